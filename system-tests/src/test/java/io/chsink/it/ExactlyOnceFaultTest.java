package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.clickhouse.client.api.Client;
import io.chsink.it.events.CheckLine;
import io.chsink.it.events.DirectLoader;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.EventProducer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * delivery.guarantee=exactly_once under a seeded random plan of faults (printed with what each one hit): worker
 * SIGKILLs before, during and after inserts, a second worker joining and leaving, task restarts through REST,
 * ClickHouse SIGKILLs during inserts. Two topics of two partitions each go to two tables with two tasks. At the
 * end every table holds exactly the events produced to its topic: count() equals the number produced,
 * uniqExact(*) = count(), and the content equals that of a direct load of the same events (check line, and no row
 * of either missing from the other).
 */
class ExactlyOnceFaultTest {
    private static final String STATE_TABLE = "chsink_exactly_once_state";
    private final SinkHarness h = new SinkHarness();

    /** 1,000,000 events produced in chunks, one before each fault, so that every fault meets a stream in flight. */
    @Test
    void millionEventsUnderTwentyTwoFaultsLandExactlyOnce() throws Exception {
        assumeLocalStack();
        long total = 1_000_000;
        int faults = Integer.getInteger("chsink.eo.faults", 22);
        long seed = Long.getLong("chsink.eo.seed", System.currentTimeMillis() % 100_000);
        Run run = new Run("eo_fault", seed, faults, Map.of("flush.max.rows", "100000"));
        int chunks = run.plan.size() + 1;
        long perTopicChunk = total / 2 / chunks;
        try {
            run.start();
            for (int i = 0; i < run.plan.size(); i++) {
                run.produce(perTopicChunk);
                Thread.sleep(run.random.nextInt(1500));
                run.inject(i);
            }
            run.produce(total / 2 - run.generators[0].produced()); // the rest, so each topic gets total / 2
            run.verify(total / 2);
        } finally {
            run.close();
        }
    }

    /**
     * A slow topic (about 4 records per second per topic): blocks are sealed by flush.interval.ms, one or two rows
     * each, and faults land on that trickle.
     */
    @Test
    void slowTopicFlushedByTimeUnderTwentyFaultsLandsExactlyOnce() throws Exception {
        assumeLocalStack();
        int faults = Integer.getInteger("chsink.eo.slow.faults", 20);
        long seed = Long.getLong("chsink.eo.seed", System.currentTimeMillis() % 100_000);
        Run run = new Run("eo_slow", seed, faults, Map.of("flush.interval.ms", "300"));
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread trickle = new Thread(() -> {
            try {
                while (producing.get()) {
                    run.trickle();
                    Thread.sleep(250);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "slow-producer");
        try {
            run.start();
            trickle.start();
            Thread.sleep(3000);
            for (int i = 0; i < run.plan.size(); i++) {
                Thread.sleep(500 + run.random.nextInt(2000));
                run.inject(i);
            }
            Thread.sleep(3000);
            producing.set(false);
            trickle.join();
            long produced = run.generators[0].produced();
            assertEquals(produced, run.generators[1].produced());
            assertTrue(produced > 100, "the slow topic must have produced records during the faults: " + produced);
            run.verify(produced);
        } finally {
            producing.set(false);
            run.close();
        }
    }

    private static void assumeLocalStack() {
        Assumptions.assumeTrue(System.getProperty("chsink.connect.url") == null && System.getenv("CHSINK_CONNECT_URL") == null
                && System.getenv("CHSINK_CLICKHOUSE_URL") == null, "kills the local worker and ClickHouse");
    }

    /** One test's topics, tables, connector, fault plan and checks. */
    private final class Run {
        final String[] topics;
        final EventGenerator[] generators;
        final long seed;
        final List<FaultInjector.Kind> plan;
        final java.util.Random random;
        final String connector;
        final Map<String, String> extra;
        final FaultInjector injector;
        final List<String> hits = new ArrayList<>();
        final EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());

        Run(String prefix, long seed, int faults, Map<String, String> extra) {
            this.seed = seed;
            this.random = new java.util.Random(seed);
            this.topics = new String[] {SinkHarness.unique(prefix + "_a"), SinkHarness.unique(prefix + "_b")};
            this.generators = new EventGenerator[] {new EventGenerator(seed), new EventGenerator(seed + 1)};
            this.connector = SinkHarness.unique("eo_sink");
            this.extra = extra;
            this.plan = FaultInjector.plan(seed, faults);
            Set<TopicPartition> partitions = new HashSet<>();
            for (String t : topics) {
                partitions.add(new TopicPartition(t, 0));
                partitions.add(new TopicPartition(t, 1));
            }
            this.injector = new FaultInjector(h, connector, 2, List.of(topics), partitions, STATE_TABLE, seed,
                    Duration.ofSeconds(8));
            System.out.printf("%s: seed %d (rerun with -Dchsink.eo.seed=%d), fault plan: %s%n", prefix, seed, seed, plan);
        }

        void start() {
            for (String t : topics) {
                h.stack.clickhouse().exec(EventsTable.createDedupSql(h.db, t));
                h.stack.kafka().createTopic(t, 2);
            }
            Map<String, String> o = SinkHarness.overrides(topics[0] + "," + topics[1], 2);
            o.putAll(extra);
            h.createConnector(connector, "clickhouse-sink-exactly-once.json", o);
            h.rest().waitForTasksRunning(connector, 2, Duration.ofMinutes(2));
        }

        private org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> slow;
        private long trickled;

        /** One event to each topic, partitions taking turns, through one long-lived producer. */
        void trickle() {
            if (slow == null) {
                java.util.Properties p = new java.util.Properties();
                p.put("bootstrap.servers", h.stack.kafka().bootstrapServers());
                p.put("acks", "all");
                p.put("enable.idempotence", "true");
                slow = new org.apache.kafka.clients.producer.KafkaProducer<>(p,
                        new org.apache.kafka.common.serialization.ByteArraySerializer(),
                        new org.apache.kafka.common.serialization.ByteArraySerializer());
            }
            int partition = (int) (trickled++ % 2);
            for (int i = 0; i < 2; i++) {
                slow.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topics[i], partition, null,
                        EventProducer.format(true).apply(generators[i].next())));
            }
            slow.flush();
        }

        synchronized void produce(long perTopic) {
            for (int i = 0; i < 2; i++) {
                producer.produce(topics[i], 2, generators[i], perTopic, true, null);
            }
        }

        void inject(int i) throws Exception {
            FaultInjector.Kind k = plan.get(i);
            long t0 = System.nanoTime();
            String hit = injector.inject(k);
            String line = String.format("fault %2d/%d %-30s %s (%.1f s)", i + 1, plan.size(), k, hit,
                    (System.nanoTime() - t0) / 1e9);
            hits.add(line);
            System.out.println(line);
        }

        void verify(long perTopic) throws Exception {
            injector.awaitCommittedToEnd(Duration.ofMinutes(6));
            try (Client client = h.stack.clickhouse().newClient()) {
                for (int i = 0; i < 2; i++) {
                    String t = topics[i];
                    assertEquals(perTopic, generators[i].produced());
                    String reference = t + "_direct";
                    h.stack.clickhouse().exec(EventsTable.createSql(h.db, reference));
                    new DirectLoader(client).load(h.db, reference, new EventGenerator(generators[i].seed()), perTopic);
                    long count = h.scalar("SELECT count() FROM `" + t + "`");
                    long distinct = h.scalar("SELECT uniqExact(*) FROM `" + t + "`");
                    CheckLine actual = EventsTable.check(h.ch(), h.db, t);
                    CheckLine direct = EventsTable.check(h.ch(), h.db, reference);
                    long missing = h.scalar("SELECT count() FROM (SELECT * FROM `" + reference + "` EXCEPT SELECT * FROM `" + t + "`)");
                    long extraRows = h.scalar("SELECT count() FROM (SELECT * FROM `" + t + "` EXCEPT SELECT * FROM `" + reference + "`)");
                    System.out.printf("%s: count()=%d uniqExact(*)=%d produced=%d missing=%d unexpected=%d%n  table:  %s%n"
                            + "  direct: %s%n", t, count, distinct, perTopic, missing, extraRows, actual, direct);
                    assertEquals(perTopic, count, t + ": count() after " + hits);
                    assertEquals(count, distinct, t + ": uniqExact(*)");
                    assertEquals(0, missing, t + ": rows of the direct load missing");
                    assertEquals(0, extraRows, t + ": rows not in the direct load");
                    assertEquals(direct, actual, t + ": check line");
                }
            }
            long rebuilt = WorkerLogCount.count(h.stack.connect().logFile(), "Rebuilt ");
            System.out.printf("%s: %d faults, %d rebuilt blocks logged by the worker over its life, seed %d%n",
                    connector, hits.size(), rebuilt, seed);
        }

        void close() {
            if (slow != null) {
                slow.close();
            }
            h.deleteQuietly(connector);
        }
    }

    /** Counts log lines containing a text (the worker log is appended across restarts). */
    private static final class WorkerLogCount {
        static long count(java.nio.file.Path log, String text) {
            try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(log)) {
                return lines.filter(l -> l.contains(text)).count();
            } catch (java.io.IOException | java.io.UncheckedIOException e) {
                return -1;
            }
        }
    }
}
