package io.chsink.it;

import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.stack.ClickHouseHttp;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.RowWatcher;
import io.chsink.it.stack.Stack;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.TopicPartition;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the system tests share: the stack, unique names, connector creation from config/ examples, waiting. The
 * ClickHouse is the stack's, or another one the test started (the connectors then write there).
 */
final class SinkHarness {
    private static final AtomicInteger SEQ = new AtomicInteger();

    final Stack stack = Stack.shared();
    final String db = "default";
    /** The ClickHouse the connectors write to and the checks read. */
    final ClickHouseServer clickhouse;

    SinkHarness() {
        this.clickhouse = stack.clickhouse();
    }

    /** The shared Kafka and Connect worker, with connectors writing to {@code clickhouse}. */
    SinkHarness(ClickHouseServer clickhouse) {
        this.clickhouse = clickhouse;
    }

    /** A name unique within this test run, safe as topic, table and connector name. */
    static String unique(String prefix) {
        return prefix + "_" + Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36) + "_" + SEQ.incrementAndGet();
    }

    ClickHouseHttp ch() {
        return clickhouse.http();
    }

    ConnectRest rest() {
        return stack.connect().rest();
    }

    /** Creates a connector from config/{example} with the stack's endpoints and the given overrides. */
    void createConnector(String name, String example, Map<String, String> overrides) {
        rest().putConnectorConfig(name, config(example, overrides));
    }

    /** config/{example} with the stack's endpoints and the given overrides, without its name. */
    Map<String, String> config(String example, Map<String, String> overrides) {
        Map<String, String> o = new HashMap<>();
        o.put("clickhouse.url", clickhouse.url());
        o.put("clickhouse.database", db);
        o.putAll(overrides);
        Map<String, String> config = ConnectorConfigs.load(example, o);
        config.remove("name");
        return config;
    }

    long awaitRows(String table, long expected, String connector) {
        return new RowWatcher(ch(), "`" + db + "`.`" + table + "`").awaitRows(expected, Duration.ofMinutes(5),
                Duration.ofSeconds(90), new ConnectorFailure(rest(), connector), null);
    }

    /**
     * Asserts that the distinct rows of an events table are exactly the first {@code rows} generated events of
     * {@code seed} (duplicates from at-least-once redelivery aside): count and check line of a DISTINCT copy.
     */
    void assertDistinctRowsAreTheDataset(String table, long seed, long rows) {
        String distinct = table + "_distinct";
        clickhouse.exec(EventsTable.createSql(db, distinct));
        clickhouse.exec("INSERT INTO `" + distinct + "` SELECT DISTINCT * FROM `" + table + "`");
        org.junit.jupiter.api.Assertions.assertEquals(rows, scalar("SELECT count() FROM `" + distinct + "`"));
        org.junit.jupiter.api.Assertions.assertEquals(EventsTable.expected(seed, rows), EventsTable.check(ch(), db, distinct));
    }

    /** Connector overrides every test starts from: its topic and tasks.max. */
    static Map<String, String> overrides(String topic, int tasks) {
        Map<String, String> o = new HashMap<>();
        o.put("topics", topic);
        o.put("tasks.max", Integer.toString(tasks));
        return o;
    }

    long scalar(String sql) {
        return Long.parseLong(ch().scalar(sql).trim());
    }

    /** Waits until the connector or one of its tasks is FAILED and returns the trace. */
    String awaitFailure(String connector, Duration timeout) throws InterruptedException {
        return ConnectorFailure.await(rest(), connector, timeout);
    }

    /**
     * The line of a task's trace with the connector's own message: Connect wraps what put() threw in "Exiting
     * WorkerSinkTask due to unrecoverable exception", so it is the first "Caused by" (else the first line).
     */
    static String causeLine(String trace) {
        return trace.lines().filter(l -> l.startsWith("Caused by: ")).findFirst()
                .orElse(trace.lines().findFirst().orElse(""));
    }

    /** The offsets a sink connector's consumer group ({@code connect-NAME}) has committed, per partition. */
    Map<TopicPartition, Long> committedOffsets(String connector) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> m = stack.kafka().admin().listConsumerGroupOffsets("connect-" + connector)
                .partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, Long> out = new HashMap<>();
        m.forEach((tp, o) -> {
            if (o != null) {
                out.put(tp, o.offset());
            }
        });
        return out;
    }

    /** The end offset of each partition: where the next record produced to it will go. */
    Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) throws Exception {
        Map<TopicPartition, OffsetSpec> q = partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
        Map<TopicPartition, Long> out = new HashMap<>();
        stack.kafka().admin().listOffsets(q).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /**
     * Waits until the connector's group has committed each of {@code partitions} to its end offset as it is now
     * (nothing left to replay); fails at once when the connector or a task fails.
     */
    void awaitCommittedToEnd(String connector, Collection<TopicPartition> partitions, Duration timeout) throws Exception {
        Map<TopicPartition, Long> end = endOffsets(partitions);
        long deadline = System.nanoTime() + timeout.toNanos();
        ConnectorFailure failure = new ConnectorFailure(rest(), connector);
        while (true) {
            Map<TopicPartition, Long> c = committedOffsets(connector);
            boolean done = end.entrySet().stream().allMatch(e -> c.getOrDefault(e.getKey(), -1L) >= e.getValue());
            if (done) {
                return;
            }
            String f = failure.get();
            if (f != null) {
                throw new AssertionError("connector failed: " + f);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("offsets not committed to the end within " + timeout + ": committed " + c
                        + ", end " + end);
            }
            Thread.sleep(500);
        }
    }

    /**
     * Waits until the connector's consumer group is Stable with {@code members} members, each with partitions (a
     * member that has just joined is listed with none until its rebalance completes), and returns its description.
     */
    ConsumerGroupDescription awaitSettledGroup(String connector, int members, Duration timeout) throws Exception {
        String group = "connect-" + connector;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            ConsumerGroupDescription d = null;
            try {
                d = stack.kafka().admin().describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                    throw e;
                } // no member has joined yet
            }
            boolean settled = d != null && d.groupState() == GroupState.STABLE && d.members().size() == members
                    && d.members().stream().noneMatch(m -> m.assignment().topicPartitions().isEmpty());
            if (settled) {
                return d;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("group " + group + " not settled with " + members + " members within "
                        + timeout + ": " + d);
            }
            Thread.sleep(200);
        }
    }

    void deleteQuietly(String connector) {
        try {
            rest().deleteConnector(connector);
        } catch (RuntimeException e) {
            // already gone
        }
    }
}
