package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.cdc.CdcWorkload;
import io.chsink.it.kafka.ConnectorFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the CDC system tests share: a workload on the stack's PostgreSQL, its Debezium source connector (in the stack's
 * Connect worker, from the Debezium plugin directory) and a sink from config/clickhouse-sink-cdc.json, and the
 * assertion that ClickHouse's FINAL state equals PostgreSQL row for row.
 */
final class CdcHarness {
    final SinkHarness h = new SinkHarness();
    final String prefix;
    final CdcWorkload workload;
    final String source;
    final String sink;
    private final List<String> connectors = new ArrayList<>();

    CdcHarness(String name, long seed) {
        assertTrue(h.stack.connect().hasDebeziumPostgres(), "the worker lists Debezium's PostgreSQL connector "
                + "(plugin.path from chsink.debezium.plugin.path)");
        this.prefix = SinkHarness.unique(name).toLowerCase(java.util.Locale.ROOT);
        this.workload = new CdcWorkload(h.stack.postgres(), prefix, seed);
        this.source = prefix + "_source";
        this.sink = prefix + "_sink";
        System.out.println(getClass().getSimpleName() + " " + name + ": seed " + seed + ", tables " + prefix + "_*");
    }

    /** Source tables, target tables in the test database, and the topics (3 partitions each). */
    void createTables(boolean dedupWindow) {
        workload.createSourceTables();
        workload.createTargetTables(h.ch(), h.db, dedupWindow);
        for (String t : workload.topics(prefix)) {
            h.stack.kafka().createTopic(t, 3);
        }
    }

    void startSource() {
        h.rest().putConnectorConfig(source, workload.debeziumConfig(prefix, 3));
        connectors.add(source);
        h.rest().waitForTasksRunning(source, 1, Duration.ofMinutes(2));
    }

    /** A sink from config/clickhouse-sink-cdc.json for the workload's topics, with overrides. */
    void startSink(String name, String database, Map<String, String> overrides) {
        Map<String, String> o = new HashMap<>();
        o.put("clickhouse.database", database);
        o.put("topics", String.join(",", workload.topics(prefix)));
        o.put("topic.to.table.map", workload.topicToTableMap(prefix, database));
        o.put("tasks.max", "2");
        o.putAll(overrides);
        h.createConnector(name, "clickhouse-sink-cdc.json", o);
        connectors.add(name);
        h.rest().waitForTasksRunning(name, 2, Duration.ofMinutes(2));
    }

    Supplier<String> failures() {
        List<ConnectorFailure> probes = new ArrayList<>();
        for (String c : connectors) {
            probes.add(new ConnectorFailure(h.rest(), c));
        }
        return () -> probes.stream().map(ConnectorFailure::get).filter(f -> f != null).findFirst().orElse(null);
    }

    /** Waits until ClickHouse's FINAL state of {@code database} equals PostgreSQL, and asserts it. */
    void assertConverges(String database, String when) throws InterruptedException {
        List<CdcWorkload.TableComparison> r = workload.awaitEqual(h.ch(), database, Duration.ofMinutes(3), failures());
        StringBuilder all = new StringBuilder();
        boolean ok = true;
        for (CdcWorkload.TableComparison c : r) {
            all.append("\n  ").append(c);
            if (!c.equal()) {
                ok = false;
                c.differences.stream().limit(5).forEach(d -> all.append("\n    ").append(d));
            }
        }
        System.out.println(when + ":" + all);
        assertTrue(ok, when + ": ClickHouse FINAL differs from PostgreSQL:" + all);
    }

    long scalar(String sql) {
        return h.scalar(sql);
    }

    void deleteConnectors() {
        for (String c : connectors) {
            h.deleteQuietly(c);
        }
    }
}
