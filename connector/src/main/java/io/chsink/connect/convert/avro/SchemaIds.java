package io.chsink.connect.convert.avro;

import java.util.UUID;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.connect.errors.DataException;

/**
 * Which writer schema a record names, and where its Avro body starts, as Confluent's default schema id deserializer
 * (DualSchemaIdDeserializer, with SchemaId.fromBytes) finds it: the last {@code __value_schema_id} (or
 * {@code __key_schema_id}) header first, and then the whole value is the Avro body; without that header, or with a
 * null one, the prefix of the value. Both take the same form: the magic byte 0 and a 4-byte big-endian schema id, or
 * the magic byte 1 and a 16-byte GUID (most significant 8 bytes first). HeaderSchemaIdSerializer writes a GUID.
 * A header of any other form is a bad record, never a fall back to the prefix: a raw Avro value may well start with 0.
 */
final class SchemaIds {
    static final String KEY_HEADER = "__key_schema_id";
    static final String VALUE_HEADER = "__value_schema_id";
    static final byte MAGIC_ID = 0;
    static final byte MAGIC_GUID = 1;
    private static final int ID_FORM = 5;
    private static final int GUID_FORM = 17;

    /** A schema id or GUID (then {@code id} is -1), and where the Avro body of the value starts. */
    static final class WriterId {
        final int id;
        final UUID guid;
        final int bodyStart;

        WriterId(int id, UUID guid, int bodyStart) {
            this.id = id;
            this.guid = guid;
            this.bodyStart = bodyStart;
        }

        /** "schema id 7" or "schema guid 0b6c...": how messages name it. */
        String describe() {
            return guid == null ? "schema id " + id : "schema guid " + guid;
        }
    }

    private SchemaIds() {
    }

    /** The header a key or value converter reads. */
    static String headerName(boolean isKey) {
        return isKey ? KEY_HEADER : VALUE_HEADER;
    }

    /** The writer schema of a non-null value; a DataException (its reason, without the topic) when there is none. */
    static WriterId of(Headers headers, String headerName, byte[] value) {
        Header header = headers == null ? null : headers.lastHeader(headerName);
        byte[] h = header == null ? null : header.value();
        if (h != null) {
            return inHeader(headerName, h);
        }
        return inPrefix(headerName, value);
    }

    private static WriterId inHeader(String name, byte[] h) {
        if (h.length == 0) {
            throw new DataException("its header " + name + " is empty (a schema id header is the magic byte 1 and a "
                    + "16-byte schema GUID, or the magic byte 0 and a 4-byte schema id)");
        }
        if (h[0] == MAGIC_GUID && h.length == GUID_FORM) {
            return new WriterId(-1, guid(h, 1), 0);
        }
        if (h[0] == MAGIC_ID && h.length == ID_FORM) {
            return new WriterId(id(h, 1), null, 0);
        }
        if (h[0] != MAGIC_GUID && h[0] != MAGIC_ID) {
            throw new DataException("its header " + name + " starts with byte " + (h[0] & 0xFF) + ", not the magic byte "
                    + "1 (a 16-byte schema GUID follows) or 0 (a 4-byte schema id follows)");
        }
        if (h[0] == MAGIC_GUID) {
            throw new DataException("its header " + name + " has " + h.length + " bytes, not the 17 of the magic byte 1 "
                    + "and a 16-byte schema GUID");
        }
        throw new DataException("its header " + name + " has " + h.length + " bytes, not the 5 of the magic byte 0 and "
                + "a 4-byte schema id");
    }

    private static WriterId inPrefix(String name, byte[] value) {
        if (value.length > 0 && value[0] == MAGIC_GUID) {
            if (value.length < GUID_FORM) {
                throw new DataException("it has " + value.length + " bytes, fewer than the 17 of the Confluent wire "
                        + "format header with a schema GUID (magic byte 1 and a 16-byte GUID)");
            }
            return new WriterId(-1, guid(value, 1), GUID_FORM);
        }
        if (value.length < ID_FORM) {
            throw new DataException("it has " + value.length + " bytes, fewer than the 5 of the Confluent wire format "
                    + "header (magic byte 0 and a 4-byte schema id)");
        }
        if (value[0] != MAGIC_ID) {
            throw new DataException("its first byte is " + (value[0] & 0xFF) + ", not the magic byte 0 of the Confluent "
                    + "wire format, and it has no " + name + " header (is the topic Avro written with a schema registry "
                    + "serializer?)");
        }
        return new WriterId(id(value, 1), null, ID_FORM);
    }

    static int id(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }

    private static UUID guid(byte[] b, int at) {
        return new UUID(longAt(b, at), longAt(b, at + 8));
    }

    private static long longAt(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b[at + i] & 0xFF);
        }
        return v;
    }
}
