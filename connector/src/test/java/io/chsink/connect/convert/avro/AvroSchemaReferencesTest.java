package io.chsink.connect.convert.avro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.UUID;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Schema references as Confluent's client resolves them when it reads (client module:
 * io.confluent.kafka.schemaregistry.AbstractSchemaProvider.resolveReferences, QualifiedSubject,
 * CachedSchemaRegistryClient, RestService):
 * <ul>
 *   <li>each referenced version is fetched with soft-deleted versions included: resolveReferences passes
 *       lookupDeletedSchema = !validateAsNew (true when reading) to getByVersion, and RestService.getVersion puts it in
 *       the query as {@code deleted=true};
 *   <li>one schema per reference name: the map "visited" is keyed by SchemaReference.getName(), and a name met again
 *       is skipped whatever subject and version it names (unless reference.versions.strict, off by default, which
 *       then fails on a different version) — after its version was fetched;
 *   <li>depth first: a referenced schema's own references go into the LinkedHashMap before it, and the Avro parser
 *       sees them in that order, then the schema;
 *   <li>contexts: each reference subject is QualifiedSubject.qualifySubjectWithParent(tenant, parent subject,
 *       reference subject): a subject in a context of its own ({@code :.other:name}) is kept; one in the default
 *       context moves into the parent's context. The parent of a top-level schema fetched by id is the "subject" of
 *       the registry's answer (getSchemaEntityByIdFromRegistry builds the Schema from restSchema.getSubject()), of one
 *       fetched by GUID none (getSchemaByGuidFromRegistry: new Schema(null, ...)), and of a referenced schema the
 *       subject of its version's answer (s.getSubject()).
 * </ul>
 */
class AvroSchemaReferencesTest {
    private static final String MONEY = "{\"type\":\"record\",\"name\":\"Money\",\"namespace\":\"r\",\"fields\":["
            + "{\"name\":\"units\",\"type\":\"long\"},{\"name\":\"currency\",\"type\":\"r.Currency\"}]}";
    private static final String CURRENCY = "{\"type\":\"enum\",\"name\":\"Currency\",\"namespace\":\"r\","
            + "\"symbols\":[\"EUR\",\"USD\"]}";
    private static final String ORDER = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"r\",\"fields\":["
            + "{\"name\":\"price\",\"type\":\"r.Money\"},{\"name\":\"paid\",\"type\":\"r.Currency\"}]}";
    private static final String ORDER_REFS = "\"references\":[{\"name\":\"r.Money\",\"subject\":\"money\",\"version\":1},"
            + "{\"name\":\"r.Currency\",\"subject\":\"currency\",\"version\":2}]";

    private ScriptedRegistry registry;

    @AfterEach
    void stop() {
        if (registry != null) {
            registry.close();
        }
    }

    private WriterSchemas schemas() {
        return new WriterSchemas(new RegistryClient(new AvroConverterConfig(registry.config())), true, false);
    }

    @Test
    void referencedVersionsAreFetchedWithDeletedOnesDepthFirstAndOncePerName() throws Exception {
        registry = new ScriptedRegistry();
        registry.bodies.put("/schemas/ids/10", ScriptedRegistry.answer(ORDER, ORDER_REFS));
        // Money names Currency by the same reference name, in another subject and version: skipped by name.
        registry.bodies.put("/subjects/money/versions/1?deleted=true", ScriptedRegistry.answer(MONEY,
                "\"subject\":\"money\",\"version\":1",
                "\"references\":[{\"name\":\"r.Currency\",\"subject\":\"currency-old\",\"version\":1}]"));
        registry.bodies.put("/subjects/currency-old/versions/1?deleted=true", ScriptedRegistry.answer(CURRENCY,
                "\"subject\":\"currency-old\",\"version\":1"));
        registry.bodies.put("/subjects/currency/versions/2?deleted=true", ScriptedRegistry.answer(
                "{\"type\":\"enum\",\"name\":\"Currency\",\"namespace\":\"r\",\"symbols\":[\"CHF\"]}",
                "\"subject\":\"currency\",\"version\":2"));
        AvroTranslator.Translated t = schemas().translate(10, null);
        assertEquals(List.of("/schemas/ids/10", "/subjects/money/versions/1?deleted=true",
                "/subjects/currency-old/versions/1?deleted=true", "/subjects/currency/versions/2?deleted=true"),
                registry.requests(), "depth first, deleted=true, and the later Currency reference still fetched");
        org.apache.kafka.connect.data.Schema paid = t.schema.field("paid").schema();
        assertEquals("EUR", paid.parameters().get("io.confluent.connect.avro.Enum.EUR"),
                "r.Currency is the one Money's reference brought first, not currency version 2");
        assertEquals(null, paid.parameters().get("io.confluent.connect.avro.Enum.CHF"));
    }

    @Test
    void aReferenceToASoftDeletedVersionIsReadAsOnlyDeletedTrueServesIt() throws Exception {
        registry = new ScriptedRegistry();
        registry.bodies.put("/schemas/ids/11", ScriptedRegistry.answer(
                "{\"type\":\"record\",\"name\":\"Wrap\",\"namespace\":\"r\",\"fields\":[{\"name\":\"c\",\"type\":"
                + "\"r.Currency\"}]}", "\"references\":[{\"name\":\"r.Currency\",\"subject\":\"currency\",\"version\":3}]"));
        registry.bodies.put("/subjects/currency/versions/3?deleted=true", ScriptedRegistry.answer(CURRENCY,
                "\"subject\":\"currency\",\"version\":3,\"deleted\":true"));
        assertEquals("r.Currency", schemas().translate(11, null).schema.field("c").schema().name());
    }

    @Test
    void aMissingReferencedVersionIsNamedAsSuchNotAsAnUnknownSchemaId() throws Exception {
        registry = new ScriptedRegistry();
        registry.bodies.put("/schemas/ids/14?subject=orders-value", ScriptedRegistry.answer(ORDER, ORDER_REFS));
        AvroConverter c = new AvroConverter();
        c.configure(registry.config(), false);
        org.apache.kafka.connect.errors.DataException e = assertThrows(org.apache.kafka.connect.errors.DataException.class,
                () -> c.toConnectData("orders", new byte[] {0, 0, 0, 0, 14, 0}));
        assertTrue(e.getMessage().contains("its writer schema id 14 cannot be read: a version it references (reference "
                + "name 'r.Money') is missing from the registry: the schema registry at " + registry.url() + " answered "
                + "404 for subject 'money' version 1"), e.getMessage());
    }

    @Test
    void referencesOfASchemaInAContextAreQualifiedWithThatContext() throws Exception {
        registry = new ScriptedRegistry();
        // The id's answer names its subject in context .ctx; its references are plain subjects, one already qualified.
        registry.bodies.put("/schemas/ids/12", ScriptedRegistry.answer(ORDER, "\"subject\":\":.ctx:orders-value\"",
                "\"references\":[{\"name\":\"r.Money\",\"subject\":\"money\",\"version\":1},"
                + "{\"name\":\"r.Currency\",\"subject\":\":.other:currency\",\"version\":2}]"));
        // Money's version answer names :.ctx:money; its own reference is qualified with .ctx in turn.
        registry.bodies.put("/subjects/%3A.ctx%3Amoney/versions/1?deleted=true", ScriptedRegistry.answer(MONEY,
                "\"subject\":\":.ctx:money\",\"version\":1",
                "\"references\":[{\"name\":\"r.Currency\",\"subject\":\"currency\",\"version\":1}]"));
        registry.bodies.put("/subjects/%3A.ctx%3Acurrency/versions/1?deleted=true", ScriptedRegistry.answer(CURRENCY,
                "\"subject\":\":.ctx:currency\",\"version\":1"));
        registry.bodies.put("/subjects/%3A.other%3Acurrency/versions/2?deleted=true", ScriptedRegistry.answer(CURRENCY,
                "\"subject\":\":.other:currency\",\"version\":2"));
        schemas().translate(12, null);
        assertEquals(List.of("/schemas/ids/12", "/subjects/%3A.ctx%3Amoney/versions/1?deleted=true",
                "/subjects/%3A.ctx%3Acurrency/versions/1?deleted=true",
                "/subjects/%3A.other%3Acurrency/versions/2?deleted=true"), registry.requests());
    }

    /**
     * The id look-up names the subject as Confluent's deserializer does (AbstractKafkaAvroDeserializer
     * .schemaFromRegistry: getSubject() with TopicNameStrategy, else getContext(), null by default; RestService.getId
     * adds {@code subject=}); Confluent's server (AbstractSchemaRegistry.getSchemaKeyUsingContexts) then finds the id
     * in whichever context holds that subject and answers with the subject (KafkaSchemaRegistry.get leaves it out
     * when no subject was asked). That answer's context qualifies the references. Ids are per context, so the cache
     * is per look-up subject, as CachedSchemaRegistryClient's idToSchemaCache.
     */
    @Test
    void theIdLookupNamesTheTopicSubjectWhoseContextQualifiesTheReferences() throws Exception {
        registry = new ScriptedRegistry();
        registry.bodies.put("/schemas/ids/12?subject=orders-value", ScriptedRegistry.answer(MONEY,
                "\"subject\":\":.ctx:orders-value\"",
                "\"references\":[{\"name\":\"r.Currency\",\"subject\":\"currency\",\"version\":1}]"));
        registry.bodies.put("/schemas/ids/12?subject=refunds-value", ScriptedRegistry.answer(MONEY,
                "\"references\":[{\"name\":\"r.Currency\",\"subject\":\"currency\",\"version\":1}]"));
        registry.bodies.put("/schemas/ids/12?subject=orders-key", ScriptedRegistry.answer(CURRENCY));
        registry.bodies.put("/schemas/ids/12", ScriptedRegistry.answer(CURRENCY));
        registry.bodies.put("/subjects/%3A.ctx%3Acurrency/versions/1?deleted=true", ScriptedRegistry.answer(CURRENCY));
        registry.bodies.put("/subjects/currency/versions/1?deleted=true", ScriptedRegistry.answer(CURRENCY));
        AvroConverter values = new AvroConverter();
        values.configure(registry.config(), false);
        byte[] money = {0, 0, 0, 0, 12, 2, 0}; // units 1, currency EUR
        values.toConnectData("orders", money);
        values.toConnectData("orders", money);
        values.toConnectData("refunds", money);
        assertEquals(List.of("/schemas/ids/12?subject=orders-value",
                "/subjects/%3A.ctx%3Acurrency/versions/1?deleted=true", "/schemas/ids/12?subject=refunds-value",
                "/subjects/currency/versions/1?deleted=true"), registry.requests(),
                "each topic's subject, once; the context of the answer's subject for the reference");
        assertEquals(2, values.cachedSchemas(), "id 12 once per look-up subject");

        AvroConverter keys = new AvroConverter();
        keys.configure(registry.config(), true);
        assertEquals("EUR", keys.toConnectData("orders", new byte[] {0, 0, 0, 0, 12, 0}).value());
        java.util.Map<String, Object> byRecord = registry.config();
        byRecord.put("value.subject.name.strategy", "io.confluent.kafka.serializers.subject.RecordNameStrategy");
        AvroConverter records = new AvroConverter();
        records.configure(byRecord, false);
        assertEquals("EUR", records.toConnectData("orders", new byte[] {0, 0, 0, 0, 12, 0}).value());
        List<String> asked = registry.requests();
        assertEquals(List.of("/schemas/ids/12?subject=orders-key", "/schemas/ids/12"), asked.subList(4, asked.size()),
                "a key names TOPIC-key; RecordNameStrategy names no subject");

        // What the converter cannot reproduce is refused, never silently looked up another way.
        java.util.Map<String, Object> custom = registry.config();
        custom.put("key.subject.name.strategy", "com.example.MyStrategy");
        org.apache.kafka.common.config.ConfigException e = assertThrows(
                org.apache.kafka.common.config.ConfigException.class, () -> new AvroConverter().configure(custom, false));
        assertTrue(e.getMessage().startsWith("key.subject.name.strategy=com.example.MyStrategy is not supported by "
                + "io.chsink.connect.convert.avro.AvroConverter"), e.getMessage());
        java.util.Map<String, Object> context = registry.config();
        context.put("context.name.strategy", "com.example.MyContexts");
        assertThrows(org.apache.kafka.common.config.ConfigException.class,
                () -> new AvroConverter().configure(context, false));
        java.util.Map<String, Object> defaults = registry.config();
        defaults.put("value.subject.name.strategy", "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy");
        defaults.put("context.name.strategy", "io.confluent.kafka.serializers.context.NullContextNameStrategy");
        new AvroConverter().configure(defaults, false);
    }

    @Test
    void aSchemaFetchedByGuidHasNoParentSubjectSoItsReferencesStayInTheDefaultContext() throws Exception {
        registry = new ScriptedRegistry();
        UUID guid = UUID.fromString("0b6c3c1e-5f2a-4c3b-9d7e-112233445566");
        registry.bodies.put("/schemas/guids/" + guid, ScriptedRegistry.answer(
                "{\"type\":\"record\",\"name\":\"Wrap\",\"namespace\":\"r\",\"fields\":[{\"name\":\"c\",\"type\":"
                + "\"r.Currency\"}]}", "\"subject\":\":.ctx:wrap-value\"",
                "\"references\":[{\"name\":\"r.Currency\",\"subject\":\"currency\",\"version\":1}]"));
        registry.bodies.put("/subjects/currency/versions/1?deleted=true", ScriptedRegistry.answer(CURRENCY));
        schemas().translate(guid);
        assertEquals(List.of("/schemas/guids/" + guid, "/subjects/currency/versions/1?deleted=true"),
                registry.requests());
    }

    @Test
    void aReferenceWithoutNameSubjectOrVersionIsABadAnswer() throws Exception {
        registry = new ScriptedRegistry();
        registry.bodies.put("/schemas/ids/13", ScriptedRegistry.answer(ORDER,
                "\"references\":[{\"name\":\"r.Money\",\"subject\":\"money\"}]"));
        RegistryClient.RegistryException e = assertThrows(RegistryClient.RegistryException.class,
                () -> schemas().translate(13, null));
        assertEquals(RegistryClient.Failure.BAD_RESPONSE, e.failure);
        assertTrue(e.getMessage().startsWith("the registry's answer has a schema reference without a name, subject or "
                + "version"), e.getMessage());
    }

    /** QualifiedSubject.qualifySubjectWithParent with the default tenant, case by case. */
    @Test
    void subjectsAreQualifiedAsConfluentsQualifiedSubject() {
        assertEquals("money", Subjects.qualifyWithParent(null, "money"), "no parent");
        assertEquals("money", Subjects.qualifyWithParent("orders-value", "money"), "parent in the default context");
        assertEquals(":.ctx:money", Subjects.qualifyWithParent(":.ctx:orders-value", "money"));
        assertEquals(":.other:money", Subjects.qualifyWithParent(":.ctx:orders-value", ":.other:money"),
                "a reference in a context of its own keeps it");
        assertEquals(":.ctx::.:money", Subjects.qualifyWithParent(":.ctx:orders-value", ":.:money"),
                "':.:money' is in the default context, so it is moved, its text kept whole");
        assertEquals(":.ctx:money", Subjects.qualifyWithParent(":.ctx", "money"), "a parent that is a context alone");
        assertEquals(".ctx", Subjects.context(":.ctx:a:b"), "the context ends at the second colon");
        assertEquals(".", Subjects.context("a:.ctx:b"));
    }

    @Test
    void parsedSchemaKnowsTheReferencedTypes() throws Exception {
        registry = new ScriptedRegistry();
        registry.bodies.put("/subjects/currency/versions/1?deleted=true", ScriptedRegistry.answer(CURRENCY));
        Schema parsed = schemas().parse(new RegistryClient.SchemaText(
                "{\"type\":\"array\",\"items\":\"r.Currency\"}", "AVRO",
                List.of(new RegistryClient.Reference("r.Currency", "currency", 1)), null));
        assertEquals(Schema.Type.ENUM, parsed.getElementType().getType());
    }
}
