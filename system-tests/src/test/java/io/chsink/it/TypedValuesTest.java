package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.chsink.it.kafka.EventProducer;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Records written with JsonConverter, with schemas (Structs with logical types) and without (maps), land with
 * exactly the values sent: 64-bit integers beyond a double's precision, decimals, dates and timestamps, NULLs,
 * LowCardinality, UTF-8, and a column left to its DEFAULT. A tombstone in the stream is skipped. A null in a field
 * whose schema has a default is NULL, unless the converter itself replaced it (replace.null.with.default=true).
 */
class TypedValuesTest {
    private static final String COLUMNS = "id UInt32, i8 Int8, u64 UInt64, f64 Float64, ok Bool, name String, "
            + "note Nullable(String), tag LowCardinality(String), amount Decimal(18, 4), day Date, ts DateTime, "
            + "ts3 DateTime64(3, 'UTC'), label LowCardinality(Nullable(String)), dflt String DEFAULT 'fallback'";
    private static final String READ_BACK = "SELECT id, i8, u64, f64, ok, name, note, tag, amount, day, "
            + "toUnixTimestamp(ts), ts3, label, dflt FROM %s ORDER BY id FORMAT TSV";
    private static final String EXPECTED =
            "1\t-128\t9007199254740993\t0.1\ttrue\tnaïve ☃\t\\N\ta\t12345.6789\t2026-01-01\t1767225600\t"
                    + "2026-01-01 00:00:00.123\t\\N\tfallback\n"
            + "2\t127\t0\t-2.5\tfalse\t\tn\tb\t-0.0001\t1970-01-01\t0\t1970-01-01 00:00:01.000\tL\tfallback\n";

    private static final String SCHEMA = "{\"type\":\"struct\",\"optional\":false,\"fields\":["
            + "{\"field\":\"id\",\"type\":\"int32\",\"optional\":false},"
            + "{\"field\":\"i8\",\"type\":\"int8\",\"optional\":false},"
            + "{\"field\":\"u64\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"f64\",\"type\":\"double\",\"optional\":false},"
            + "{\"field\":\"ok\",\"type\":\"boolean\",\"optional\":false},"
            + "{\"field\":\"name\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"note\",\"type\":\"string\",\"optional\":true},"
            + "{\"field\":\"tag\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"amount\",\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\","
            + "\"version\":1,\"parameters\":{\"scale\":\"4\"},\"optional\":false},"
            + "{\"field\":\"day\",\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Date\",\"version\":1,\"optional\":false},"
            + "{\"field\":\"ts\",\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\",\"version\":1,\"optional\":false},"
            + "{\"field\":\"ts3\",\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\",\"version\":1,\"optional\":false},"
            + "{\"field\":\"label\",\"type\":\"string\",\"optional\":true}]}";

    private final SinkHarness h = new SinkHarness();

    private void run(boolean withSchema, String... values) throws Exception {
        String topic = SinkHarness.unique(withSchema ? "typed_schema" : "typed_schemaless");
        String connector = SinkHarness.unique("sink");
        h.stack.clickhouse().exec("CREATE TABLE `" + topic + "` (" + COLUMNS + ") ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(topic, 1);
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, Arrays.asList(values));
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("value.converter.schemas.enable", Boolean.toString(withSchema));
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            h.awaitRows(topic, 2, connector);
            Thread.sleep(1500);
            assertEquals(EXPECTED, h.ch().query(String.format(READ_BACK, "`" + topic + "`")));
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void structsWithLogicalTypesLandExactly() throws Exception {
        run(true,
                "{\"schema\":" + SCHEMA + ",\"payload\":{\"id\":1,\"i8\":-128,\"u64\":9007199254740993,\"f64\":0.1,"
                        + "\"ok\":true,\"name\":\"naïve ☃\",\"note\":null,\"tag\":\"a\",\"amount\":\"B1vNFQ==\","
                        + "\"day\":20454,\"ts\":1767225600000,\"ts3\":1767225600123,\"label\":null}}",
                null,
                "{\"schema\":" + SCHEMA + ",\"payload\":{\"id\":2,\"i8\":127,\"u64\":0,\"f64\":-2.5,"
                        + "\"ok\":false,\"name\":\"\",\"note\":\"n\",\"tag\":\"b\",\"amount\":\"/w==\","
                        + "\"day\":0,\"ts\":0,\"ts3\":1000,\"label\":\"L\"}}");
    }

    @Test
    void schemalessMapsLandExactly() throws Exception {
        run(false,
                "{\"id\":1,\"i8\":-128,\"u64\":9007199254740993,\"f64\":0.1,\"ok\":true,\"name\":\"naïve ☃\","
                        + "\"note\":null,\"tag\":\"a\",\"amount\":\"12345.6789\",\"day\":\"2026-01-01\","
                        + "\"ts\":\"2026-01-01T00:00:00Z\",\"ts3\":1767225600123,\"label\":null}",
                null,
                "{\"id\":2,\"i8\":127,\"u64\":0,\"f64\":-2.5,\"ok\":false,\"name\":\"\",\"note\":\"n\",\"tag\":\"b\","
                        + "\"amount\":-0.0001,\"day\":0,\"ts\":0,\"ts3\":\"1970-01-01 00:00:01\",\"label\":\"L\"}");
    }

    /** PostgreSQL's {@code price numeric(10,2) DEFAULT 0} and {@code status text DEFAULT 'new'}, as Connect JSON. */
    private static final String DEFAULTS_SCHEMA = "{\"type\":\"struct\",\"optional\":false,\"fields\":["
            + "{\"field\":\"id\",\"type\":\"int32\",\"optional\":false},"
            + "{\"field\":\"price\",\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\","
            + "\"version\":1,\"parameters\":{\"scale\":\"2\"},\"optional\":true,\"default\":\"AA==\"},"
            + "{\"field\":\"status\",\"type\":\"string\",\"optional\":true,\"default\":\"new\"}]}";

    /**
     * Row 1 has both fields null, row 2 values: with replace.null.with.default=false the nulls land as NULL (the
     * sink reads no schema default in their place); with the converter's default, true, the converter has put the
     * defaults in, and they land. Kafka's own JsonConverter and this project's JsonEnvelopeConverter alike.
     */
    @Test
    void aNullWithASchemaDefaultIsNullUnlessTheConverterReplacedIt() throws Exception {
        String[] converters = {"org.apache.kafka.connect.json.JsonConverter",
                "io.chsink.connect.convert.JsonEnvelopeConverter"};
        for (String converter : converters) {
            for (Boolean replace : new Boolean[] {false, null}) {
                String topic = SinkHarness.unique("defaults");
                String connector = SinkHarness.unique("sink");
                h.stack.clickhouse().exec("CREATE TABLE `" + topic + "` (id UInt32, price Nullable(Decimal(10, 2)), "
                        + "status Nullable(String)) ENGINE = MergeTree ORDER BY id");
                h.stack.kafka().createTopic(topic, 1);
                new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, Arrays.asList(
                        "{\"schema\":" + DEFAULTS_SCHEMA + ",\"payload\":{\"id\":1,\"price\":null,\"status\":null}}",
                        "{\"schema\":" + DEFAULTS_SCHEMA + ",\"payload\":{\"id\":2,\"price\":\"AJY=\","
                                + "\"status\":\"paid\"}}"));
                Map<String, String> o = SinkHarness.overrides(topic, 1);
                o.put("value.converter", converter);
                if (replace != null) {
                    o.put("value.converter.replace.null.with.default", replace.toString());
                }
                try {
                    h.createConnector(connector, "clickhouse-sink.json", o);
                    h.awaitRows(topic, 2, connector);
                    String first = replace == null ? "1\t0\tnew\n" : "1\t\\N\t\\N\n"; // 26.7 prints 0.00 as 0
                    assertEquals(first + "2\t1.5\tpaid\n", h.ch().query("SELECT id, price, status FROM `" + topic
                            + "` ORDER BY id FORMAT TSV"), converter + ", replace.null.with.default=" + replace);
                } finally {
                    h.deleteQuietly(connector);
                }
            }
        }
    }
}
