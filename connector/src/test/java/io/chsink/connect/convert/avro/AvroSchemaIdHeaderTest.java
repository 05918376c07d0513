package io.chsink.connect.convert.avro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Schema ids in record headers, as Confluent's serializers of the 8.x line can send them. What is expected comes from
 * Confluent's schema-registry sources (schema-serializer module, io.confluent.kafka.serializers.schema.id):
 * <ul>
 *   <li>HeaderSchemaIdSerializer.serialize adds the header {@code __value_schema_id} ({@code __key_schema_id} for a
 *       key: SchemaId.VALUE_SCHEMA_ID_HEADER / KEY_SCHEMA_ID_HEADER) holding SchemaId.guidToBytes(): the magic byte
 *       MAGIC_BYTE_V1 = 1, then the GUID's most and least significant 8 bytes; the value is the raw Avro body.
 *   <li>DualSchemaIdDeserializer (the default key and value schema id deserializer of AbstractKafkaSchemaSerDeConfig)
 *       reads the last header of that name first; when there is one with a non-null value, SchemaId.fromBytes reads
 *       it (MAGIC_BYTE_V0 = 0 and a 4-byte id, or MAGIC_BYTE_V1 and a GUID) and the whole payload is the body.
 *       Otherwise fromBytes reads the payload's prefix, which may be either form too.
 *   <li>A GUID is looked up with {@code GET /schemas/guids/{guid}} (RestService.getByGuid, by
 *       AbstractKafkaSchemaSerDe.getSchemaBySchemaId), the GUID in UUID.toString() form; CachedSchemaRegistryClient
 *       keeps it in guidToSchemaCache.
 * </ul>
 */
class AvroSchemaIdHeaderTest {
    private static final String ROW = "{\"type\":\"record\",\"name\":\"Row\",\"namespace\":\"t\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"name\",\"type\":\"string\"}]}";
    private static final UUID GUID = UUID.fromString("0b6c3c1e-5f2a-4c3b-9d7e-112233445566");

    private ScriptedRegistry registry;

    @AfterEach
    void stop() {
        if (registry != null) {
            registry.close();
        }
    }

    private static AvroConverter converter(Map<String, Object> config, boolean isKey) {
        AvroConverter c = new AvroConverter();
        c.configure(config, isKey);
        return c;
    }

    /** The raw Avro body of a Row: id 0 writes a first byte 0, which a prefix reader would take for the magic byte. */
    private static byte[] rawRow(int id, String name) {
        GenericRecord r = new GenericData.Record(AvroTranslatorTest.avro(ROW));
        r.put("id", id);
        r.put("name", name);
        return AvroTranslatorTest.write(AvroTranslatorTest.avro(ROW), r);
    }

    /** SchemaId.guidToBytes: magic byte 1, most significant 8 bytes, least significant 8 bytes. */
    static byte[] guidHeader(UUID guid) {
        return ByteBuffer.allocate(17).put((byte) 1).putLong(guid.getMostSignificantBits())
                .putLong(guid.getLeastSignificantBits()).array();
    }

    /** SchemaId.idToBytes: magic byte 0 and the 4-byte big-endian id. */
    static byte[] idHeader(int id) {
        return ByteBuffer.allocate(5).put((byte) 0).putInt(id).array();
    }

    private static Headers headers(String name, byte[] value) {
        RecordHeaders h = new RecordHeaders();
        h.add(name, value);
        return h;
    }

    @Test
    void aGuidHeaderNamesTheWriterSchemaOfARawAvroValueFetchedOnceByGuid() throws Exception {
        registry = new ScriptedRegistry();
        registry.bodies.put("/schemas/guids/" + GUID, ScriptedRegistry.answer(ROW, "\"guid\":\"" + GUID + "\""));
        AvroConverter c = converter(registry.config(), false);
        byte[] raw = rawRow(0, "abcd");
        assertEquals(0, raw[0], "the raw body starts with 0, like the Confluent prefix");
        assertTrue(raw.length >= 5);
        SchemaAndValue a = c.toConnectData("orders", headers("__value_schema_id", guidHeader(GUID)), raw);
        assertEquals(new Struct(a.schema()).put("id", 0).put("name", "abcd"), a.value(),
                "read as raw Avro with the header's schema, not as a prefix naming id 0x08616263");
        SchemaAndValue b = c.toConnectData("orders", headers("__value_schema_id", guidHeader(GUID)), rawRow(5, "e"));
        assertEquals(5, ((Struct) b.value()).get("id"));
        assertEquals(List.of("/schemas/guids/0b6c3c1e-5f2a-4c3b-9d7e-112233445566"), registry.requests(),
                "one request, GUID in its text form, then the cache");
        assertEquals(1, c.cachedSchemas());
    }

    @Test
    void theLastHeaderCountsAnIdHeaderWorksAndWithoutAHeaderThePrefixIsRead() throws Exception {
        registry = new ScriptedRegistry();
        registry.bodies.put("/schemas/guids/" + GUID, ScriptedRegistry.answer(ROW));
        registry.bodies.put("/schemas/ids/7?subject=t-value", ScriptedRegistry.answer(ROW));
        AvroConverter c = converter(registry.config(), false);
        RecordHeaders two = new RecordHeaders();
        two.add("__value_schema_id", new byte[] {9, 9});
        two.add("__value_schema_id", guidHeader(GUID));
        assertEquals(1, ((Struct) c.toConnectData("t", two, rawRow(1, "x")).value()).get("id"), "Headers.lastHeader");
        assertEquals(2, ((Struct) c.toConnectData("t", headers("__value_schema_id", idHeader(7)), rawRow(2, "y"))
                .value()).get("id"), "magic byte 0 and an id in the header: SchemaId.fromBytes takes both");
        byte[] framed = AvroConverterTest.framed(7, ROW, record(3));
        assertEquals(3, ((Struct) c.toConnectData("t", new RecordHeaders(), framed).value()).get("id"), "no header");
        assertEquals(3, ((Struct) c.toConnectData("t", headers("__value_schema_id", null), framed).value()).get("id"),
                "a header without a value: the prefix, as DualSchemaIdDeserializer");
        assertEquals(3, ((Struct) c.toConnectData("t", headers("__key_schema_id", guidHeader(GUID)), framed).value())
                .get("id"), "a value converter does not read the key's header");
        assertEquals(3, ((Struct) c.toConnectData("t", framed).value()).get("id"), "the overload without headers");
        byte[] guidPrefixed = ByteBuffer.allocate(17 + rawRow(4, "z").length).put(guidHeader(GUID)).put(rawRow(4, "z"))
                .array();
        assertEquals(4, ((Struct) c.toConnectData("t", null, guidPrefixed).value()).get("id"),
                "magic byte 1 and a GUID as the prefix: SchemaId.fromBytes reads that from the payload too");

        AvroConverter keys = converter(registry.config(), true);
        assertEquals(6, ((Struct) keys.toConnectData("t", headers("__key_schema_id", guidHeader(GUID)), rawRow(6, "k"))
                .value()).get("id"), "a key converter reads __key_schema_id");
        assertEquals(SchemaAndValue.NULL, c.toConnectData("t", headers("__value_schema_id", guidHeader(GUID)), null),
                "a tombstone is null, header or not");
    }

    private static GenericRecord record(int id) {
        GenericRecord r = new GenericData.Record(AvroTranslatorTest.avro(ROW));
        r.put("id", id);
        r.put("name", "n");
        return r;
    }

    @Test
    void aBadHeaderIsABadRecordNamingTopicHeaderAndWhatIsWrong() throws Exception {
        registry = new ScriptedRegistry();
        registry.bodies.put("/schemas/guids/" + GUID, ScriptedRegistry.answer(ROW));
        AvroConverter c = converter(registry.config(), false);
        byte[] framed = AvroConverterTest.framed(7, ROW, record(1)); // a good prefix: a bad header must not fall back
        byte[] shortGuid = java.util.Arrays.copyOf(guidHeader(GUID), 16);
        byte[] longId = java.util.Arrays.copyOf(idHeader(7), 6);
        Object[][] cases = {
            {new byte[0], "its header __value_schema_id is empty"},
            {new byte[] {2, 0, 0, 0, 7}, "its header __value_schema_id starts with byte 2, not the magic byte 1"},
            {shortGuid, "its header __value_schema_id has 16 bytes, not the 17 of the magic byte 1 and a 16-byte schema "
                + "GUID"},
            {longId, "its header __value_schema_id has 6 bytes, not the 5 of the magic byte 0 and a 4-byte schema id"},
        };
        for (Object[] k : cases) {
            DataException e = assertThrows(DataException.class,
                    () -> c.toConnectData("orders", headers("__value_schema_id", (byte[]) k[0]), framed));
            assertTrue(e.getMessage().startsWith("AvroConverter cannot read the value of a record of topic orders"),
                    e.getMessage());
            assertTrue(e.getMessage().contains((String) k[1]), e.getMessage());
        }
        UUID unknown = UUID.fromString("00000000-0000-4000-8000-000000000009");
        DataException e = assertThrows(DataException.class,
                () -> c.toConnectData("orders", headers("__value_schema_id", guidHeader(unknown)), rawRow(1, "a")));
        assertTrue(e.getMessage().contains("its schema guid 00000000-0000-4000-8000-000000000009 is unknown to the "
                + "registry (the schema registry at " + registry.url() + " answered 404 for schema guid "
                + "00000000-0000-4000-8000-000000000009: Schema not found (error_code 40403))"), e.getMessage());
        DataException leftOver = assertThrows(DataException.class, () -> c.toConnectData("orders",
                headers("__value_schema_id", guidHeader(GUID)), framed));
        assertTrue(leftOver.getMessage().contains("its bytes do not decode with writer schema guid " + GUID),
                leftOver.getMessage());
        DataException shortPrefix = assertThrows(DataException.class,
                () -> c.toConnectData("orders", null, java.util.Arrays.copyOf(guidHeader(GUID), 10)));
        assertTrue(shortPrefix.getMessage().contains("it has 10 bytes, fewer than the 17 of the Confluent wire format "
                + "header with a schema GUID"), shortPrefix.getMessage());
        DataException noMagic = assertThrows(DataException.class,
                () -> c.toConnectData("orders", new RecordHeaders(), new byte[] {7, 0, 0, 0, 1}));
        assertTrue(noMagic.getMessage().contains("its first byte is 7, not the magic byte 0 of the Confluent wire format,"
                + " and it has no __value_schema_id header"), noMagic.getMessage());
    }

    @Test
    void aGuidLookupIsRetriedLikeAnIdAndAnOutageStopsOnlyUncachedGuids() throws Exception {
        registry = new ScriptedRegistry();
        registry.bodies.put("/schemas/guids/" + GUID, ScriptedRegistry.answer(ROW));
        registry.failFirst.set(2);
        AvroConverter c = converter(registry.config(), false);
        assertEquals(1, ((Struct) c.toConnectData("t", headers("__value_schema_id", guidHeader(GUID)), rawRow(1, "a"))
                .value()).get("id"));
        assertEquals(3, registry.requests().size(), "two 503s, then the schema");
        String url = registry.url();
        registry.close();
        registry = null;
        assertEquals(2, ((Struct) c.toConnectData("t", headers("__value_schema_id", guidHeader(GUID)), rawRow(2, "b"))
                .value()).get("id"), "cached: read while the registry is down");
        UUID other = UUID.fromString("00000000-0000-4000-8000-000000000001");
        DataException down = assertThrows(DataException.class,
                () -> c.toConnectData("t", headers("__value_schema_id", guidHeader(other)), rawRow(3, "c")));
        assertTrue(down.getMessage().contains("its writer schema guid " + other + " could not be fetched: the schema "
                + "registry at " + url + " cannot be reached") && down.getMessage().contains("4 attempts over 1 URL(s)"),
                down.getMessage());
    }
}
