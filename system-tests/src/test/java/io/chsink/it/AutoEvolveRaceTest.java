package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.EventProducer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Two connectors of two tasks each (config/clickhouse-sink-auto.json), on two topics routed to one table that does
 * not exist, all started at once on records produced beforehand, each partition moving from v1 to v2 records: the
 * four tasks race to create the table and to add the v2 columns. The table ends with each column once, every
 * record lands exactly once with its values, and no task fails.
 */
class AutoEvolveRaceTest {
    private final SinkHarness h = new SinkHarness();

    @Test
    void fourTasksOfTwoConnectorsCreateAndEvolveOneTable() throws Exception {
        String table = SinkHarness.unique("app_shared");
        String topicA = table + "_a";
        String topicB = table + "_b";
        String c1 = SinkHarness.unique("sink");
        String c2 = SinkHarness.unique("sink");
        int perPartition = 1500;
        EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
        long id = 0;
        long v2Records = 0;
        for (String topic : List.of(topicA, topicB)) {
            h.stack.kafka().createTopic(topic, 2);
            for (int p = 0; p < 2; p++) {
                List<String> values = new ArrayList<>();
                for (int i = 0; i < perPartition; i++, id++) {
                    // the first records of each partition are v1; v2 starts early, at a different point per partition
                    boolean v2 = i >= 5 + 40 * p && i % 7 != 0;
                    values.add(v2 ? AutoEvolveTest.v2(id) : AutoEvolveTest.v1(id));
                    v2Records += v2 ? 1 : 0;
                }
                producer.produceRaw(topic, p, values);
            }
        }
        long total = id;
        long logStart = Files.size(h.stack.connect().logFile());
        try {
            for (String[] c : new String[][] {{c1, topicA}, {c2, topicB}}) {
                Map<String, String> o = SinkHarness.overrides(c[1], 2);
                o.put("topics.regex", "");
                o.put("topic.to.table.map", c[1] + ":" + table);
                o.put("errors.tolerance", "none"); // any bad record would fail a task: none is expected
                h.createConnector(c[0], "clickhouse-sink-auto.json", o);
            }
            AutoTables.awaitRows(h, table, total, c1);
            h.awaitRows(table, total, c2);
            Thread.sleep(2000);
            String q = "`" + table + "`";
            assertEquals(total, h.scalar("SELECT count() FROM " + q), "every record exactly once");
            assertEquals(total, h.scalar("SELECT uniqExact(id) FROM " + q));
            assertEquals(v2Records, h.scalar("SELECT countIf(note = concat('n', toString(id)) AND region = "
                    + "concat('r', toString(id % 3))) FROM " + q), "every v2 record with its values");
            assertEquals(total - v2Records, h.scalar("SELECT countIf(note IS NULL AND region = 'eu') FROM " + q));
            assertEquals("id\tInt64\nname\tString\nnote\tNullable(String)\nregion\tString",
                    h.ch().scalar("SELECT name, type FROM system.columns WHERE database = 'default' AND table = '"
                            + table + "' ORDER BY position FORMAT TabSeparatedRaw"), "one table, each column once");
            assertFalse(h.rest().connectorStatus(c1).anyFailed() || h.rest().connectorStatus(c2).anyFailed());
            String log = Files.readString(h.stack.connect().logFile()).substring((int) logStart);
            int creates = count(log, "auto.create of default." + table + " for topic '[^']+': CREATE TABLE");
            int alters = count(log, "auto.evolve of default." + table + " for topic '[^']+': ALTER TABLE");
            assertTrue(creates >= 1, "the CREATE is logged");
            assertTrue(alters >= 1 && log.contains("ADD COLUMN IF NOT EXISTS `note` Nullable(String)"),
                    "the table made from v1 records got the v2 columns by an ALTER");
            System.out.printf("AutoEvolveRaceTest: %d records, %d CREATE and %d ALTER statements run by 4 tasks%n",
                    total, creates, alters);
        } finally {
            h.deleteQuietly(c1);
            h.deleteQuietly(c2);
        }
    }

    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
