package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * auto.create with cdc.mode=debezium on real PostgreSQL and Debezium: no target table exists; the sink creates each
 * one from the first change event (ReplacingMergeTree(_version, _is_deleted) ordered by the primary key, columns
 * from the row image's Debezium types), and after a snapshot and a random stream ClickHouse's FINAL state equals
 * PostgreSQL row for row, compared with the same canonical text as the tables created by hand.
 */
class CdcAutoCreateTest {
    @Test
    void tablesCreatedFromTheChangeEventsConvergeToTheSource() throws Exception {
        CdcHarness c = new CdcHarness("cdc_auto", 4242);
        String db = c.prefix + "_auto";
        try {
            c.workload.createSourceTables();
            for (String t : c.workload.topics(c.prefix)) {
                c.h.stack.kafka().createTopic(t, 3);
            }
            c.h.stack.clickhouse().exec("CREATE DATABASE `" + db + "`");
            c.workload.seed(200);
            c.startSource();
            c.startSink(c.sink, db, Map.of("auto.create", "true"));
            System.out.println("cdc_auto: " + c.workload.run(2000, 5, 0));
            c.assertConverges(db, "auto-created tables");
            for (String table : new String[] {"orders", "lines", "people"}) {
                String create = c.h.ch().scalar("SELECT create_table_query FROM system.tables WHERE database = '" + db
                        + "' AND name = '" + c.prefix + "_" + table + "'");
                System.out.println("cdc_auto: " + create);
                assertTrue(create.contains("ENGINE = ReplacingMergeTree(_version, _is_deleted)"), create);
            }
            String orders = c.h.ch().scalar("SELECT sorting_key FROM system.tables WHERE database = '" + db
                    + "' AND name = '" + c.prefix + "_orders'");
            String lines = c.h.ch().scalar("SELECT sorting_key FROM system.tables WHERE database = '" + db
                    + "' AND name = '" + c.prefix + "_lines'");
            assertTrue(orders.equals("id") || orders.equals("(id)"), "orders ordered by its primary key: " + orders);
            assertTrue(lines.replace("(", "").replace(")", "").equals("order_id, line"), "lines ordered by its composite primary key: " + lines);
        } finally {
            c.deleteConnectors();
        }
    }
}
