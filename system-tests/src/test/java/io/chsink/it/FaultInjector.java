package io.chsink.it;

import io.chsink.it.stack.ConnectWorker;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Injects the faults of the exactly-once tests into the shared stack, one at a time, and says what each hit: an
 * insert into the watched tables running or not (system.processes), and for worker kills how many recorded blocks
 * lay beyond the committed offsets (state table vs. the Connect consumer group) at the moment of the kill.
 */
final class FaultInjector {
    enum Kind {
        /** SIGKILL of the worker while no insert into the tables runs: blocks open or queued, not sent. */
        WORKER_KILL_BEFORE_INSERT,
        /** SIGKILL of the worker while an insert into one of the tables runs. */
        WORKER_KILL_DURING_INSERT,
        /** SIGKILL of the worker right after an insert ended: its offsets are not committed yet. */
        WORKER_KILL_AFTER_INSERT,
        /** A second worker joins the group (tasks move) and leaves again. */
        WORKER_JOIN_LEAVE,
        /** POST /connectors/{name}/tasks/{id}/restart. */
        TASK_RESTART,
        /** SIGKILL of ClickHouse while an insert runs, restart after 1-3 s. */
        CLICKHOUSE_KILL_DURING_INSERT
    }

    private final SinkHarness h;
    private final String connector;
    private final int tasks;
    private final List<String> tables;
    private final Set<TopicPartition> partitions;
    private final String stateTable;
    private final Random random;
    private final Duration insertWait;

    FaultInjector(SinkHarness h, String connector, int tasks, List<String> tables, Set<TopicPartition> partitions,
            String stateTable, long seed, Duration insertWait) {
        this.h = h;
        this.connector = connector;
        this.tasks = tasks;
        this.tables = tables;
        this.partitions = partitions;
        this.stateTable = stateTable;
        this.random = new Random(seed ^ 0x5DEECE66DL);
        this.insertWait = insertWait;
    }

    /**
     * {@code n} faults from {@code seed} (at least one of each kind, so never fewer than the number of kinds): every
     * kind once, the rest drawn at random, shuffled.
     */
    static List<Kind> plan(long seed, int n) {
        Random r = new Random(seed);
        List<Kind> plan = new ArrayList<>(List.of(Kind.values()));
        while (plan.size() < n) {
            plan.add(Kind.values()[r.nextInt(Kind.values().length)]);
        }
        Collections.shuffle(plan, r);
        return plan;
    }

    /** Injects one fault and waits until the connector runs again; returns what it hit. */
    String inject(Kind kind) throws Exception {
        String hit;
        switch (kind) {
            case WORKER_KILL_BEFORE_INSERT: {
                String idle = awaitNoInsert();
                h.stack.connect().kill();
                hit = idle + "; " + uncommittedBlocks();
                h.stack.connect().start();
                break;
            }
            case WORKER_KILL_DURING_INSERT: {
                String running = awaitInsert();
                h.stack.connect().kill();
                hit = running + "; " + uncommittedBlocks();
                h.stack.connect().start();
                break;
            }
            case WORKER_KILL_AFTER_INSERT: {
                String running = awaitInsert();
                String ended = running == null ? "no insert seen" : awaitInsertEnd(running);
                h.stack.connect().kill();
                hit = ended + "; " + uncommittedBlocks();
                h.stack.connect().start();
                break;
            }
            case WORKER_JOIN_LEAVE: {
                ConnectWorker second = new ConnectWorker();
                try {
                    second.start(Paths.get(System.getProperty("chsink.work.dir", "target/stack"), connector + "-w2-"
                            + random.nextInt(1_000_000)), h.stack.kafka().bootstrapServers());
                    String during = awaitInsert();
                    Thread.sleep(2000 + random.nextInt(4000));
                    hit = "joined (" + during + "), left after a few seconds";
                    second.stop();
                } finally {
                    second.close();
                }
                break;
            }
            case TASK_RESTART: {
                int task = random.nextInt(tasks);
                String running = awaitInsert();
                h.rest().restartTask(connector, task);
                hit = "task " + task + " restarted; " + running;
                break;
            }
            case CLICKHOUSE_KILL_DURING_INSERT: {
                String running = awaitInsert();
                h.stack.clickhouse().kill();
                long downMs = 1000 + random.nextInt(2000);
                Thread.sleep(downMs);
                h.stack.clickhouse().start();
                hit = running + "; ClickHouse down for " + downMs + " ms";
                break;
            }
            default:
                throw new IllegalArgumentException(kind.toString());
        }
        h.rest().waitForTasksRunning(connector, tasks, Duration.ofMinutes(3));
        return hit;
    }

    private String insertsNow() {
        StringBuilder cond = new StringBuilder();
        for (String t : tables) {
            cond.append(cond.length() == 0 ? "" : " OR ").append("position(query, '`").append(t).append("`') > 0");
        }
        return h.ch().query("SELECT query_id, round(elapsed * 1000), written_rows, "
                + "extract(query, 'INTO `[^`]*`\\\\.`([^`]*)`') FROM system.processes WHERE startsWith(query, 'INSERT') "
                + "AND (" + cond + ") FORMAT TSV").trim();
    }

    /** Polls until an insert into a watched table runs; describes it, or says none ran within the wait. */
    String awaitInsert() throws InterruptedException {
        long deadline = System.nanoTime() + insertWait.toNanos();
        while (System.nanoTime() < deadline) {
            String now = tryInserts();
            if (now != null && !now.isEmpty()) {
                String[] f = now.split("\n")[0].split("\t");
                return "insert into " + f[3] + " running for " + f[1] + " ms (query " + f[0] + ")";
            }
            Thread.sleep(2);
        }
        return "no insert running within " + insertWait.toSeconds() + " s";
    }

    private String awaitInsertEnd(String running) throws InterruptedException {
        String id = running.substring(running.indexOf("(query ") + 7, running.length() - 1);
        long deadline = System.nanoTime() + insertWait.toNanos();
        while (System.nanoTime() < deadline) {
            String now = tryInserts();
            if (now != null && !now.contains(id)) {
                return running.replace("running for", "seen running at") + ", ended";
            }
            Thread.sleep(1);
        }
        return running + ", still running after " + insertWait.toSeconds() + " s";
    }

    private String awaitNoInsert() throws InterruptedException {
        long deadline = System.nanoTime() + insertWait.toNanos();
        while (System.nanoTime() < deadline) {
            String now = tryInserts();
            if (now != null && now.isEmpty()) {
                return "no insert running";
            }
            Thread.sleep(2);
        }
        return "inserts kept running for " + insertWait.toSeconds() + " s";
    }

    private String tryInserts() {
        try {
            return insertsNow();
        } catch (RuntimeException e) {
            return null; // ClickHouse restarting
        }
    }

    /** Recorded blocks at or beyond the consumer group's committed offsets: the blocks a restart must rebuild. */
    String uncommittedBlocks() {
        try {
            Map<TopicPartition, Long> committed = committedOffsets();
            int blocks = 0;
            long rows = 0;
            for (TopicPartition tp : partitions) {
                long from = committed.getOrDefault(tp, 0L);
                String r = h.ch().query("SELECT count(), sum(rows) FROM `" + stateTable + "` FINAL WHERE connector = '"
                        + connector + "' AND topic = '" + tp.topic() + "' AND partition = " + tp.partition()
                        + " AND first_offset >= " + from + " FORMAT TSV").trim();
                String[] f = r.split("\t");
                blocks += Integer.parseInt(f[0]);
                rows += Long.parseLong(f[1]);
            }
            return blocks + " recorded blocks (" + rows + " rows) beyond the committed offsets";
        } catch (Exception e) {
            return "recorded blocks unknown: " + e.getMessage();
        }
    }

    Map<TopicPartition, Long> committedOffsets() throws Exception {
        Admin admin = h.stack.kafka().admin();
        Map<TopicPartition, OffsetAndMetadata> m = admin.listConsumerGroupOffsets("connect-" + connector)
                .partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, Long> out = new HashMap<>();
        m.forEach((tp, o) -> {
            if (o != null) {
                out.put(tp, o.offset());
            }
        });
        return out;
    }

    Map<TopicPartition, Long> endOffsets() throws Exception {
        Admin admin = h.stack.kafka().admin();
        Map<TopicPartition, OffsetSpec> q = partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(q).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** Waits until the connector has committed every partition to its end (nothing left to replay). */
    void awaitCommittedToEnd(Duration timeout) throws Exception {
        Map<TopicPartition, Long> end = endOffsets();
        long deadline = System.nanoTime() + timeout.toNanos();
        io.chsink.it.kafka.ConnectorFailure failure = new io.chsink.it.kafka.ConnectorFailure(h.rest(), connector);
        while (true) {
            Map<TopicPartition, Long> c = committedOffsets();
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
}
