package io.chsink.it;

import static io.chsink.it.Mentions.assertMentions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.EventProducer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Every class of bad scalar input, each in its own topic as the third of four records: with errors.tolerance=none
 * the task fails with a message naming topic, partition, offset, field, column, ClickHouse type and the value's
 * kind (never the value); with errors.tolerance=all exactly the bad records reach the dead-letter queue, with the
 * reason in their headers, and every other record lands.
 */
class BadInputTest {
    private static final String TABLE_COLUMNS = "id UInt32, req Int32, small Nullable(UInt8), dec Nullable(Decimal(6, 2)), "
            + "num Nullable(Float64), day Nullable(Date), ts Nullable(DateTime64(3)), uid Nullable(UUID), "
            + "ip Nullable(IPv4), ip6 Nullable(IPv6), kind Nullable(Enum8('a' = 1, 'b' = 2)), "
            + "code Nullable(FixedString(3)), _topic LowCardinality(String)";

    private final SinkHarness h = new SinkHarness();

    /** A bad-input class: the bad record's JSON (null: a tombstone), the value text, and what the message says. */
    private static final class Case {
        final String name;
        final String bad;
        final String secret;
        final String[] says;

        Case(String name, String bad, String secret, String... says) {
            this.name = name;
            this.bad = bad;
            this.secret = secret;
            this.says = says;
        }
    }

    private static List<Case> schemalessCases() {
        return Arrays.asList(
            new Case("null_required", "{\"id\":3,\"req\":null}", null, "field 'req' -> column 'req' (ClickHouse type "
                    + "Int32): value is null: null for a non-Nullable column without a default"),
            new Case("missing_required", "{\"id\":3}", null, "field 'req' -> column 'req' (ClickHouse type Int32): "
                    + "value is missing: null for a non-Nullable column without a default"),
            new Case("int_range", "{\"id\":3,\"req\":1,\"small\":300}", "300", "field 'small' -> column 'small' "
                    + "(ClickHouse type Nullable(UInt8)): value is Long: value is out of range for UInt8"),
            new Case("dec_overflow", "{\"id\":3,\"req\":1,\"dec\":\"12345.67\"}", "12345", "field 'dec' -> column "
                    + "'dec' (ClickHouse type Nullable(Decimal(6, 2))): value is string of length 8: value has more "
                    + "than 6 digits for Decimal(6, 2)"),
            new Case("dec_scale", "{\"id\":3,\"req\":1,\"dec\":1.234}", "1.234", "field 'dec' -> column 'dec' "
                    + "(ClickHouse type Nullable(Decimal(6, 2))): value is Double: value has more than 2 digits after "
                    + "the point for Decimal(6, 2)"),
            new Case("not_a_number", "{\"id\":3,\"req\":1,\"num\":\"abc\"}", "abc", "field 'num' -> column 'num' "
                    + "(ClickHouse type Nullable(Float64)): value is string of length 3: string is not a number"),
            new Case("bad_date", "{\"id\":3,\"req\":1,\"day\":\"2026-02-30\"}", "2026-02-30", "field 'day' -> column "
                    + "'day' (ClickHouse type Nullable(Date)): value is string of length 10: string is not an ISO-8601 date"),
            new Case("bad_timestamp", "{\"id\":3,\"req\":1,\"ts\":\"yesterday noon\"}", "yesterday", "field 'ts' -> "
                    + "column 'ts' (ClickHouse type Nullable(DateTime64(3))): value is string of length 14: string is "
                    + "not an ISO-8601 timestamp"),
            new Case("bad_uuid", "{\"id\":3,\"req\":1,\"uid\":\"0000-not-a-uuid\"}", "not-a-uuid", "field 'uid' -> "
                    + "column 'uid' (ClickHouse type Nullable(UUID)): value is string of length 15: string is not a UUID"),
            new Case("bad_ipv4", "{\"id\":3,\"req\":1,\"ip\":\"300.1.1.1\"}", "300.1.1.1", "field 'ip' -> column 'ip' "
                    + "(ClickHouse type Nullable(IPv4)): value is string of length 9: string is not an IPv4 address"),
            new Case("bad_ipv6", "{\"id\":3,\"req\":1,\"ip6\":\"2001:db8::g\"}", "db8::g", "field 'ip6' -> column "
                    + "'ip6' (ClickHouse type Nullable(IPv6)): value is string of length 11: string is not an IPv6 address"),
            new Case("bad_enum", "{\"id\":3,\"req\":1,\"kind\":\"c\"}", null, "field 'kind' -> column 'kind' (ClickHouse "
                    + "type Nullable(Enum8('a' = 1, 'b' = 2))): value is string of length 1: name is not one of Enum8"),
            new Case("long_fixed", "{\"id\":3,\"req\":1,\"code\":\"abcd\"}", "abcd", "field 'code' -> column 'code' "
                    + "(ClickHouse type Nullable(FixedString(3))): value is string of length 4: value of 4 bytes is "
                    + "longer than FixedString(3)"),
            new Case("unknown_field", "{\"id\":3,\"req\":1,\"extra\":\"secret-value\"}", "secret-value",
                    "field 'extra' -> the table has no column 'extra' (unknown.fields.behavior=error)"),
            new Case("tombstone", null, null, "the record value is null (a tombstone) and tombstones.behavior=fail"));
    }

    private static String struct(String fields, String payload) {
        return "{\"schema\":{\"type\":\"struct\",\"optional\":false,\"fields\":[" + fields + "]},\"payload\":" + payload + "}";
    }

    private static final String ID = "{\"field\":\"id\",\"type\":\"int32\",\"optional\":false}";
    private static final String REQ = "{\"field\":\"req\",\"type\":\"int32\",\"optional\":false}";
    private static final String SMALL = "{\"field\":\"small\",\"type\":\"int16\",\"optional\":true}";

    /** A record whose schema changes mid-stream: a field added, a field removed, a field's type changed. */
    private static List<Case> schemaChangeCases() {
        return Arrays.asList(
            new Case("schema_new_field", struct(ID + "," + REQ + ",{\"field\":\"added\",\"type\":\"string\",\"optional\":false}",
                    "{\"id\":3,\"req\":1,\"added\":\"new\"}"), null,
                    "field 'added' -> the table has no column 'added' (unknown.fields.behavior=error)"),
            new Case("schema_removed_field", struct(ID + "," + SMALL, "{\"id\":3,\"small\":1}"), null,
                    "field '(absent)' -> column 'req' (ClickHouse type Int32): value is missing: null for a "
                            + "non-Nullable column without a default"),
            new Case("schema_type_change", struct(ID + "," + REQ + ",{\"field\":\"small\",\"type\":\"string\",\"optional\":true}",
                    "{\"id\":3,\"req\":1,\"small\":\"seven\"}"), "seven", "field 'small' -> column 'small' (ClickHouse "
                    + "type Nullable(UInt8)): value is string of length 5: string is not a number"));
    }

    private static List<String> records(Case c, boolean withSchema) {
        List<String> r = new ArrayList<>();
        for (int id = 1; id <= 4; id++) {
            if (id == 3) {
                r.add(c.bad);
            } else {
                String good = "{\"id\":" + id + ",\"req\":" + id + ",\"small\":" + id + "}";
                r.add(withSchema ? struct(ID + "," + REQ + "," + SMALL, good) : good);
            }
        }
        return r;
    }

    @Test
    void eachBadInputFailsTheTaskByNameOrGoesAloneToTheDeadLetterQueue() throws Exception {
        String table = SinkHarness.unique("bad_input");
        h.stack.clickhouse().exec("CREATE TABLE `" + table + "` (" + TABLE_COLUMNS + ") ENGINE = MergeTree ORDER BY id");
        String prefix = table + "_";
        EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
        Map<String, Case> noneTopics = new LinkedHashMap<>();
        Map<String, Boolean> schemaOf = new HashMap<>();
        List<String> allPlain = new ArrayList<>();
        List<String> allSchema = new ArrayList<>();
        for (boolean withSchema : new boolean[] {false, true}) {
            for (Case c : withSchema ? schemaChangeCases() : schemalessCases()) {
                for (String mode : new String[] {"none", "all"}) {
                    String topic = prefix + c.name + "_" + mode;
                    h.stack.kafka().createTopic(topic, 1);
                    producer.produceRaw(topic, 0, records(c, withSchema));
                    if (mode.equals("none")) {
                        noneTopics.put(topic, c);
                        schemaOf.put(topic, withSchema);
                    } else {
                        (withSchema ? allSchema : allPlain).add(topic);
                    }
                }
            }
        }
        List<String> connectors = new ArrayList<>();
        try {
            Map<String, String> connectorOf = new LinkedHashMap<>();
            for (String topic : noneTopics.keySet()) {
                String name = SinkHarness.unique("sink_none");
                h.createConnector(name, "clickhouse-sink.json", config(topic, table, schemaOf.get(topic), null));
                connectors.add(name);
                connectorOf.put(topic, name);
            }
            String dlqPlain = prefix + "dlq_plain";
            String dlqSchema = prefix + "dlq_schema";
            String plainAll = SinkHarness.unique("sink_all");
            String schemaAll = SinkHarness.unique("sink_all");
            h.createConnector(plainAll, "clickhouse-sink.json", config(String.join(",", allPlain), table, false, dlqPlain));
            h.createConnector(schemaAll, "clickhouse-sink.json", config(String.join(",", allSchema), table, true, dlqSchema));
            connectors.add(plainAll);
            connectors.add(schemaAll);
            // A topic whose table does not exist (found at run time, as with topics.regex): every record is reported.
            String orphan = prefix + "no_table_all";
            h.stack.kafka().createTopic(orphan, 1);
            producer.produceRaw(orphan, 0, records(schemalessCases().get(2), false));
            String dlqOrphan = prefix + "dlq_orphan";
            String orphanAll = SinkHarness.unique("sink_all");
            Map<String, String> oc = config(orphan, table, false, dlqOrphan);
            oc.remove("topic.to.table.map");
            oc.put("topics", "");
            oc.put("topics.regex", java.util.regex.Pattern.quote(orphan));
            h.createConnector(orphanAll, "clickhouse-sink.json", oc);
            connectors.add(orphanAll);

            for (Map.Entry<String, String> e : connectorOf.entrySet()) {
                String trace = h.awaitFailure(e.getValue(), Duration.ofMinutes(3));
                Case c = noneTopics.get(e.getKey());
                assertMentions(trace, "topic=" + e.getKey() + " partition=0 offset=2");
                assertMentions(trace, c.says);
                if (c.secret != null) {
                    assertFalse(trace.contains(c.secret), () -> "the value itself appears in: " + trace);
                }
            }

            int good = 3 * (allPlain.size() + allSchema.size());
            String landed = "SELECT count() FROM `" + table + "` WHERE _topic LIKE '%\\\\_all'";
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (h.scalar(landed) < good && System.nanoTime() < deadline) {
                Thread.sleep(500);
            }
            Thread.sleep(2000); // anything beyond the good records would land by now
            assertEquals(good, h.scalar(landed));
            assertEquals(0, h.scalar("SELECT count() FROM `" + table + "` WHERE id = 3"), "no bad record landed");
            for (String topic : allSchema) {
                assertEquals(3, h.scalar("SELECT count() FROM `" + table + "` WHERE _topic = '" + topic + "'"), topic);
            }
            for (String topic : allPlain) {
                assertEquals(3, h.scalar("SELECT count() FROM `" + table + "` WHERE _topic = '" + topic + "'"), topic);
            }
            checkDeadLetters(dlqPlain, allPlain, schemalessCases(), prefix);
            checkDeadLetters(dlqSchema, allSchema, schemaChangeCases(), prefix);
            List<ConsumerRecord<byte[], byte[]>> orphans = DeadLetterReader.readAll(h.stack.kafka().bootstrapServers(), dlqOrphan, 4);
            assertEquals(4, orphans.size(), "every record of a topic without a table is a dead letter");
            for (ConsumerRecord<byte[], byte[]> r : orphans) {
                assertMentions(header(r, "__connect.errors.exception.message"), "topic=" + orphan + " partition=0",
                        "table `default`.`" + orphan + "` does not exist in ClickHouse");
            }
            assertTrue(h.rest().connectorStatus(orphanAll).runningWith(1), "the task keeps running");
        } finally {
            for (String c : connectors) {
                h.deleteQuietly(c);
            }
        }
    }

    private Map<String, String> config(String topics, String table, boolean withSchema, String dlq) {
        Map<String, String> o = SinkHarness.overrides(topics, 1);
        StringBuilder routes = new StringBuilder();
        for (String t : topics.split(",")) {
            routes.append(routes.length() == 0 ? "" : ",").append(t).append(':').append(table);
        }
        o.put("topic.to.table.map", routes.toString());
        o.put("value.converter.schemas.enable", Boolean.toString(withSchema));
        o.put("unknown.fields.behavior", "error");
        o.put("tombstones.behavior", "fail");
        if (dlq != null) {
            o.put("errors.tolerance", "all");
            o.put("errors.deadletterqueue.topic.name", dlq);
            o.put("errors.deadletterqueue.topic.replication.factor", "1");
            o.put("errors.deadletterqueue.context.headers.enable", "true");
        }
        return o;
    }

    private void checkDeadLetters(String dlq, List<String> topics, List<Case> cases, String prefix) {
        List<ConsumerRecord<byte[], byte[]>> dead = DeadLetterReader.readAll(h.stack.kafka().bootstrapServers(), dlq, topics.size());
        assertEquals(topics.size(), dead.size(), "exactly the bad records are dead letters");
        Map<String, Case> byName = new HashMap<>();
        for (Case c : cases) {
            byName.put(prefix + c.name + "_all", c);
        }
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            String topic = header(r, "__connect.errors.topic");
            assertEquals("2", header(r, "__connect.errors.offset"), topic);
            Case c = byName.get(topic);
            assertTrue(c != null, "unexpected dead letter from " + topic);
            String reason = header(r, "__connect.errors.exception.message");
            assertMentions(reason, "topic=" + topic + " partition=0 offset=2");
            assertMentions(reason, c.says);
            byName.remove(topic);
        }
        assertTrue(byName.isEmpty(), "no dead letter for " + byName.keySet());
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        org.apache.kafka.common.header.Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
