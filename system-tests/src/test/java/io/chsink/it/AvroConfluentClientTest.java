package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.chsink.it.avro.TestRegistry;
import io.chsink.it.stack.NodePackages;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Records written by Confluent's own JavaScript Schema Registry client ({@code @confluentinc/schemaregistry}, the
 * version locked in {@code src/test/js/confluent-avro-writer}) against the stand-in registry, read by the plugin's
 * AvroConverter (value and key) in the real worker into ClickHouse. The client registers the schemas and references
 * itself: a shared type in two versions and a value schema in two versions, each referencing one of them; the first
 * referenced version (after the value schema version referencing it) is soft-deleted through the registry before the
 * records are read. It frames half the records with the schema id in front of the
 * value and half with the schema GUID in the {@code __value_schema_id} / {@code __key_schema_id} headers
 * (HeaderSchemaIdSerializer). Every row equals the one the script wrote, field by field, decimals included; the count
 * is exact and nothing goes to the dead-letter queue.
 */
class AvroConfluentClientTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path WRITER = Path.of(System.getProperty("chsink.repo.dir", ".."), "system-tests", "src", "test",
            "js", "confluent-avro-writer").toAbsolutePath().normalize();
    private static final String MONEY_SUBJECT = "chsink.it.Money";
    private static final String DDL = "(`id` UInt32, `label` String, "
            + "`price` Tuple(`amount` Decimal(18, 4), `currency` String, `rate` Nullable(Decimal(9, 6))), "
            + "`total` Decimal(38, 9), `_key` String)";
    private static final String COLUMNS = "`id`, `label`, `price`, `total`, `_key`";
    private final SinkHarness h = new SinkHarness();

    @Test
    void recordsOfConfluentsJavaScriptClientInBothFramingsWithReferencesLandEqual() throws Exception {
        Path modules = NodePackages.ensure(WRITER);
        try (TestRegistry registry = new TestRegistry()) {
            String topic = SinkHarness.unique("avro_js");
            h.stack.clickhouse().exec("CREATE TABLE `" + topic + "` " + DDL + " ENGINE = MergeTree ORDER BY `id`");
            h.stack.kafka().createTopic(topic, 1);
            Path out = Files.createDirectories(Path.of(System.getProperty("chsink.work.dir",
                    System.getProperty("java.io.tmpdir")), "avro-js")).resolve(topic + ".json");
            String log = NodePackages.node(WRITER.resolve("write.js"), List.of("--registry", registry.url(), "--topic",
                    topic, "--out", out.toString(), "--modules", modules.toString()), Duration.ofMinutes(5));
            System.out.println("AvroConfluentClientTest: " + log.trim());
            JsonNode doc = JSON.readTree(out.toFile());
            JsonNode records = doc.get("records");
            int n = records.size();

            // the client is the version package.json pins, and the registry did what the script asked of it
            String pinned = JSON.readTree(WRITER.resolve("package.json").toFile()).path("dependencies")
                    .path("@confluentinc/schemaregistry").asText();
            assertEquals(pinned, doc.path("client").asText(), "the client that wrote the records");
            JsonNode facts = doc.get("facts");
            assertEquals(20, n, "records written");
            assertEquals(42206, facts.path("deleteReferencedError").asInt(),
                    "deleting a version a live schema references is refused: " + facts);
            assertEquals(40402, facts.path("deletedVersionWithoutFlagError").asInt(), facts.toString());
            assertTrue(facts.path("deletedVersionWithFlag").asBoolean(), facts.toString());
            assertEquals(n, facts.path("readBack").asInt(), "the JS deserializer reads every record back");
            int[] orderIds = {facts.at("/orderIds/0").asInt(), facts.at("/orderIds/1").asInt()};
            assertTrue(orderIds[0] != orderIds[1], "two Order schemas: " + facts);
            int moneyV1 = facts.at("/moneyVersions/0").asInt();
            assertRegistry(registry, "/subjects/" + MONEY_SUBJECT + "/versions/" + moneyV1, 404, "\"error_code\":40402");
            assertRegistry(registry, "/subjects/" + MONEY_SUBJECT + "/versions/" + moneyV1 + "?deleted=true", 200,
                    "\"deleted\":true");
            JsonNode keyVersion = JSON.readTree(assertRegistry(registry, "/subjects/" + topic + "-key/versions/1", 200,
                    "\"schema\":\"\\\"string\\\"\""));

            // the framings are what the client was asked for: ids in front, or GUIDs in headers and raw Avro
            int[] framings = new int[2];
            int[] orderVersions = new int[2];
            List<ProducerRecord<byte[], byte[]>> produce = new ArrayList<>();
            for (JsonNode r : records) {
                byte[] key = Base64.getDecoder().decode(r.get("key").asText());
                byte[] value = Base64.getDecoder().decode(r.get("value").asText());
                RecordHeaders headers = new RecordHeaders();
                for (JsonNode header : r.get("headers")) {
                    headers.add(header.get("name").asText(), Base64.getDecoder().decode(header.get("value").asText()));
                }
                int version = r.get("orderVersion").asInt();
                orderVersions[version - 1]++;
                String at = "record " + r.at("/row/id").asInt() + ": ";
                if (r.get("framing").asText().equals("header")) {
                    framings[0]++;
                    assertEquals(2, headers.toArray().length, at + headers);
                    assertArrayEquals(guidHeader(registry.guid(orderIds[version - 1])),
                            headers.lastHeader("__value_schema_id").value(), at + "the value's GUID header");
                    assertArrayEquals(guidHeader(UUID.fromString(keyVersion.get("guid").asText())),
                            headers.lastHeader("__key_schema_id").value(), at + "the key's GUID header");
                } else {
                    framings[1]++;
                    assertEquals(0, headers.toArray().length, at + headers);
                    assertEquals(0, value[0], at + "magic byte");
                    assertEquals(orderIds[version - 1], ByteBuffer.wrap(value, 1, 4).getInt(), at + "the value's id");
                    assertEquals(0, key[0], at + "the key's magic byte");
                    assertEquals(keyVersion.get("id").asInt(), ByteBuffer.wrap(key, 1, 4).getInt(), at + "the key's id");
                }
                produce.add(new ProducerRecord<>(topic, 0, key, value, headers));
            }
            assertArrayEquals(new int[] {n / 2, n / 2}, framings, "header-framed, prefix-framed");
            assertArrayEquals(new int[] {n / 2, n / 2}, orderVersions, "Order version 1, 2");

            // what each row must be, as ClickHouse reads the script's values from SQL literals
            String ref = SinkHarness.unique("avro_js_ref");
            h.stack.clickhouse().exec("CREATE TABLE `" + ref + "` " + DDL + " ENGINE = MergeTree ORDER BY `id`");
            StringJoiner rows = new StringJoiner(", ");
            for (JsonNode r : records) {
                JsonNode row = r.get("row");
                rows.add("(" + row.get("id").asInt() + ", " + ScalarTypesTest.sqlString(row.get("label").asText())
                        + ", tuple(toDecimal64('" + decimal(row, "amount") + "', 4), "
                        + ScalarTypesTest.sqlString(row.get("currency").asText()) + ", "
                        + (row.get("rate").isNull() ? "NULL" : "toDecimal32('" + decimal(row, "rate") + "', 6)") + "), "
                        + "toDecimal128('" + decimal(row, "total") + "', 9), " + ScalarTypesTest.sqlString(row.get("key").asText())
                        + ")");
            }
            h.stack.clickhouse().exec("INSERT INTO `" + ref + "` (" + COLUMNS + ") VALUES " + rows);
            String expected = h.ch().query(select(ref));
            assertEquals(n, expected.lines().count(), expected);

            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, h.stack.kafka().bootstrapServers());
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                for (ProducerRecord<byte[], byte[]> r : produce) {
                    producer.send(r).get(60, TimeUnit.SECONDS);
                }
            }
            String connector = SinkHarness.unique("sink_avro_js");
            String dlq = topic + "_dlq";
            Map<String, String> o = SinkHarness.overrides(topic, 1);
            o.put("value.converter.schema.registry.url", registry.url());
            o.put("key.converter", "io.chsink.connect.convert.avro.AvroConverter");
            o.put("key.converter.schema.registry.url", registry.url());
            o.put("errors.tolerance", "all");
            o.put("errors.deadletterqueue.topic.name", dlq);
            o.put("errors.deadletterqueue.topic.replication.factor", "1");
            try {
                h.createConnector(connector, AvroTypesTest.EXAMPLE, o);
                h.awaitRows(topic, n, connector);
                assertEquals(expected, h.ch().query(select(topic)), "every row as the script wrote it");
                assertEquals(n + "\t" + n, h.ch().query("SELECT count(), uniqExact(`id`) FROM `" + topic + "`").trim());
                assertEquals(0, endOffset(dlq), "records in the dead-letter queue");
                // the rows of both Money versions: v1 has no rate (NULL), v2 has the script's rates
                assertEquals(n / 2 + "\t" + (n / 2 - 2), h.ch().query("SELECT countIf(`id` <= " + n / 2 + " AND "
                        + "isNull(tupleElement(`price`, 'rate'))), countIf(`id` > " + n / 2 + " AND "
                        + "isNotNull(tupleElement(`price`, 'rate'))) FROM `"
                        + topic + "`").trim());
            } finally {
                h.deleteQuietly(connector);
            }
            // the reference holds the script's edges (a literal read wrongly would lose them)
            assertEquals("99999999999999999999999999999.999999999\t-99999999999999.9999",
                    h.ch().query("SELECT max(`total`), min(tupleElement(`price`, 'amount')) FROM `" + ref + "` FORMAT TSV").trim());
        }
    }

    private static String decimal(JsonNode row, String field) {
        String text = row.get(field).asText();
        if (!text.matches("-?[0-9]+(\\.[0-9]+)?")) {
            throw new IllegalArgumentException("not a decimal: " + field + "=" + text);
        }
        return text;
    }

    private static String select(String table) {
        return "SELECT " + COLUMNS + " FROM `" + table + "` ORDER BY `id` FORMAT TSV";
    }

    /** Magic byte 1 and the 16 bytes of a GUID: what HeaderSchemaIdSerializer puts in a header. */
    private static byte[] guidHeader(UUID guid) {
        return ByteBuffer.allocate(17).put((byte) 1).putLong(guid.getMostSignificantBits())
                .putLong(guid.getLeastSignificantBits()).array();
    }

    /** GETs a registry path, asserts its status and that the body contains {@code contains}; the body. */
    private static String assertRegistry(TestRegistry registry, String path, int status, String contains) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(registry.url() + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(status, r.statusCode(), path + ": " + r.body());
        assertTrue(r.body().contains(contains), path + ": " + r.body());
        return r.body();
    }

    private long endOffset(String topic) throws Exception {
        TopicPartition tp = new TopicPartition(topic, 0);
        return h.stack.kafka().admin().listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp)
                .get(30, TimeUnit.SECONDS).offset();
    }
}
