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

    /**
     * 1,000,000 events produced at a pace spread over the whole fault plan (a background producer), so that every
     * fault, the last ones too, meets a stream in flight; each fault aims at inserts and says whether it hit.
     */
    @Test
    void millionEventsUnderEveryKindOfFaultLandExactlyOnce() throws Exception {
        assumeLocalStack();
        long total = 1_000_000;
        int faults = Integer.getInteger("chsink.eo.faults", FaultInjector.Kind.values().length); // each kind once
        long seed = Long.getLong("chsink.eo.seed", System.currentTimeMillis() % 100_000);
        // Blocks sealed by time every 3 s hold a few thousand rows of the paced stream: inserts long enough to aim at.
        Run run = new Run("eo_fault", seed, faults, Map.of("flush.max.rows", "100000", "flush.interval.ms", "3000"));
        run.injector.preferInsertsOf(20_000); // the catch-up blocks after a fault: their bodies take a while to send
        try {
            run.start();
            run.pace(total / 2);
            for (int i = 0; i < run.plan.size(); i++) {
                Thread.sleep(run.random.nextInt(1500));
                run.inject(i);
            }
            run.reinjectMissed();
            run.stopPacing();
            run.produce(total / 2 - run.generators[0].produced()); // the rest, so each topic gets total / 2
            run.verify(total / 2);
            run.assertEveryKindHitItsTarget();
        } finally {
            run.close();
        }
    }

    /**
     * A slow topic (about 4 records per second per topic): blocks are sealed by flush.interval.ms, one or two rows
     * each, and faults land on that trickle.
     */
    @Test
    void slowTopicFlushedByTimeUnderSixFaultsLandsExactlyOnce() throws Exception {
        assumeLocalStack();
        int faults = Integer.getInteger("chsink.eo.slow.faults", 6);
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

    /**
     * How many more times a kind of the main run's plan is injected after the plan when none of its faults hit the
     * target (the stream may have been between inserts, or the inserts too short to aim at, each time it came up).
     */
    private static final int RETRIES_PER_KIND = 2;

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
        final List<FaultInjector.Hit> results = new ArrayList<>();
        /** Seconds each fault took so far (with the pause before it), to pace the producer. */
        private double faultSeconds;
        private Thread pacer;
        private volatile boolean pacing;
        /** The first failed produce request of {@link #send}, if any. */
        private volatile String sendFailure;
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
                    Duration.ofSeconds(45));
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
            send(1);
        }

        synchronized void produce(long perTopic) {
            segments.add(new long[] {perTopic, 0}); // EventProducer: round robin from partition 0 in each call
            for (int i = 0; i < 2; i++) {
                producer.produce(topics[i], 2, generators[i], perTopic, true, null);
            }
        }

        /**
         * The events of the direct load missing from the table, as runs of partition/offset (the generator is run again
         * and its events matched by value), for finding the blocks they were in from the worker's log.
         */
        String missingOffsets(String reference, String table, long seed, long count) {
            Set<String> keys = new HashSet<>(java.util.Arrays.asList(h.ch().query("SELECT concat(toString(user_id), "
                    + "'|', event_type, '|', url, '|', toString(duration_ms), '|', toString(toUnixTimestamp(event_time)))"
                    + " FROM (SELECT * FROM `" + reference + "` EXCEPT SELECT * FROM `" + table + "`) LIMIT 100000 "
                    + "FORMAT TSV").split("\n")));
            java.util.TreeMap<Integer, java.util.TreeSet<Long>> at = new java.util.TreeMap<>();
            java.util.TreeMap<java.time.YearMonth, Integer> months = new java.util.TreeMap<>();
            EventGenerator g = new EventGenerator(seed);
            for (long j = 0; j < count; j++) {
                io.chsink.it.events.Event e = g.next();
                if (keys.contains(e.userId() + "|" + e.eventType() + "|" + e.url() + "|" + e.durationMs() + "|"
                        + e.eventTime())) {
                    long[] po = whereIs(j);
                    at.computeIfAbsent((int) po[0], k -> new java.util.TreeSet<>()).add(po[1]);
                    months.merge(java.time.YearMonth.from(java.time.Instant.ofEpochSecond(e.eventTime())
                            .atZone(java.time.ZoneOffset.UTC)), 1, Integer::sum);
                }
            }
            StringBuilder out = new StringBuilder(keys.size() + " rows (by month: " + months + "; a whole month of one "
                    + "block in flight at a ClickHouse kill is the crash window of docs/exactly-once.md Limits):");
            at.forEach((partition, offsets) -> {
                List<String> runs = new ArrayList<>();
                long from = -1;
                long to = -2;
                for (long o : offsets) {
                    if (o != to + 1) {
                        if (from >= 0) {
                            runs.add(from == to ? String.valueOf(from) : from + ".." + to);
                        }
                        from = o;
                    }
                    to = o;
                }
                runs.add(from == to ? String.valueOf(from) : from + ".." + to);
                out.append(String.format(" partition %d: %d offsets in %d runs %s;", partition, offsets.size(), runs.size(),
                        runs.size() > 30 ? runs.subList(0, 30) + "..." : runs));
            });
            return out.toString();
        }

        /** Each production's events per topic and the partition of its first event, in order (both topics alike). */
        private final List<long[]> segments = new ArrayList<>();

        /** Where event {@code index} of a topic's generator went: {partition, offset} as produced (a re-sent record moves). */
        long[] whereIs(long index) {
            long base = 0;
            long[] next = new long[2];
            for (long[] seg : segments) {
                long n = seg[0];
                int first = (int) seg[1];
                if (index < base + n) {
                    long k = index - base;
                    int p = (int) ((first + k) % 2);
                    long before = p == first ? (k + 1) / 2 : k / 2;
                    return new long[] {p, next[p] + before};
                }
                next[first] += (n + 1) / 2;
                next[1 - first] += n / 2;
                base += n;
            }
            return new long[] {-1, index};
        }

        /**
         * Starts a background producer that spreads {@code perTopic} events per topic over the fault plan: every
         * 250 ms the rest divided by the time the remaining faults are expected to take (the mean so far, 25 s at
         * first), counting one more fault's time so that the stream still flows during the last fault.
         */
        void pace(long perTopic) {
            pacing = true;
            pacer = new Thread(() -> {
                try {
                    while (pacing) {
                        long left = perTopic - generators[0].produced();
                        int faultsLeft;
                        double mean;
                        synchronized (this) {
                            // the retries of missed kinds are paced for too, so that they also meet a stream
                            faultsLeft = Math.max(0, plan.size() + RETRIES_PER_KIND - results.size());
                            mean = results.isEmpty() ? 25 : faultSeconds / results.size();
                        }
                        long n = Math.min(left, Math.max(50, (long) Math.ceil(left * 0.25 / ((faultsLeft + 1) * mean))));
                        if (n > 0) {
                            send(n);
                        }
                        Thread.sleep(250);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "paced-producer");
            pacer.start();
        }

        void stopPacing() throws InterruptedException {
            pacing = false;
            pacer.join();
            System.out.printf("%s: %d events per topic produced while the faults ran%n", connector,
                    generators[0].produced());
        }

        /** {@code n} events to each topic, partitions taking turns, through one long-lived producer. */
        private synchronized void send(long n) {
            producer();
            segments.add(new long[] {n, trickled % 2});
            for (long k = 0; k < n; k++) {
                int partition = (int) (trickled++ % 2);
                for (int i = 0; i < 2; i++) {
                    slow.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topics[i], partition, null,
                            EventProducer.format(true).apply(generators[i].next())), (md, e) -> {
                                if (e != null && sendFailure == null) {
                                    sendFailure = e.toString();
                                }
                            });
                }
            }
            slow.flush();
        }

        private void producer() {
            if (slow == null) {
                java.util.Properties p = new java.util.Properties();
                p.put("bootstrap.servers", h.stack.kafka().bootstrapServers());
                p.put("acks", "all");
                p.put("enable.idempotence", "true");
                p.put("linger.ms", "5");
                slow = new org.apache.kafka.clients.producer.KafkaProducer<>(p,
                        new org.apache.kafka.common.serialization.ByteArraySerializer(),
                        new org.apache.kafka.common.serialization.ByteArraySerializer());
            }
        }

        void inject(int i) throws Exception {
            inject(plan.get(i), String.format("fault %2d/%d", i + 1, plan.size()));
        }

        /**
         * After the plan: each kind none of whose faults hit its target is injected again, up to
         * {@link #RETRIES_PER_KIND} times, until one does (printed as retries; the check still needs one hit per kind).
         */
        void reinjectMissed() throws Exception {
            for (FaultInjector.Kind k : FaultInjector.Kind.values()) {
                for (int r = 1; r <= RETRIES_PER_KIND && tally().containsKey(k) && tally().get(k)[1] == 0; r++) {
                    Thread.sleep(random.nextInt(1500));
                    inject(k, String.format("retry %d/%d", r, RETRIES_PER_KIND));
                }
            }
        }

        private void inject(FaultInjector.Kind k, String label) throws Exception {
            long t0 = System.nanoTime();
            FaultInjector.Hit hit = injector.inject(k);
            double seconds = (System.nanoTime() - t0) / 1e9;
            String line = String.format("%-11s %-30s %s %s (%.1f s)", label, k,
                    hit.target() ? (k.midInsert() ? "[MID-INSERT]" : "[ON TARGET]") : "[missed]", hit.what(), seconds);
            synchronized (this) {
                results.add(hit);
                faultSeconds += seconds + 0.75; // with the pause before it
            }
            hits.add(line);
            System.out.println(line);
        }

        /** Per kind: faults injected and faults that provably hit their target (mid-insert for most kinds). */
        Map<FaultInjector.Kind, int[]> tally() {
            Map<FaultInjector.Kind, int[]> t = new java.util.EnumMap<>(FaultInjector.Kind.class);
            for (FaultInjector.Hit r : results) {
                int[] c = t.computeIfAbsent(r.kind(), x -> new int[2]);
                c[0]++;
                if (r.target()) {
                    c[1]++;
                }
            }
            return t;
        }

        /**
         * Each kind of the plan hit its target at least once (mid-insert for the kinds aimed at an insert), in the
         * plan or its retries.
         */
        void assertEveryKindHitItsTarget() {
            Map<FaultInjector.Kind, int[]> t = tally();
            List<String> missed = new ArrayList<>();
            t.forEach((k, c) -> {
                if (c[1] == 0) {
                    missed.add(k + " (" + c[0] + " injected, none " + (k.midInsert() ? "mid-insert" : "on target") + ")");
                }
            });
            assertTrue(missed.isEmpty(), "fault kinds that never hit their target, seed " + seed + ": " + missed
                    + "\n" + String.join("\n", hits));
        }

        void verify(long perTopic) throws Exception {
            injector.awaitCommittedToEnd(Duration.ofMinutes(6));
            assertEquals(null, sendFailure, "a produce request failed, so Kafka lacks events");
            Map<TopicPartition, Long> end = injector.endOffsets();
            try (Client client = h.stack.clickhouse().newClient()) {
                for (int i = 0; i < 2; i++) {
                    String t = topics[i];
                    assertEquals(perTopic, generators[i].produced());
                    long inKafka = end.entrySet().stream().filter(e -> e.getKey().topic().equals(t))
                            .mapToLong(Map.Entry::getValue).sum();
                    assertEquals(perTopic, inKafka, t + ": records in Kafka (end offsets) vs. events produced");
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
                    if (missing > 0) {
                        System.out.println(t + ": rows of the direct load missing from the table, by partition/offset "
                                + "as produced: " + missingOffsets(reference, t, generators[i].seed(), perTopic));
                    }
                    assertEquals(perTopic, count, t + ": count() after " + hits);
                    assertEquals(count, distinct, t + ": uniqExact(*)");
                    assertEquals(0, missing, t + ": rows of the direct load missing");
                    assertEquals(0, extraRows, t + ": rows not in the direct load");
                    assertEquals(direct, actual, t + ": check line");
                }
            }
            long rebuilt = injector.rebuiltBlocks();
            StringBuilder kinds = new StringBuilder();
            tally().forEach((k, c) -> kinds.append(String.format("%n  %-30s %d injected, %d %s", k, c[0], c[1],
                    k.midInsert() ? "mid-insert" : "on target")));
            System.out.printf("%s: %d faults, %d blocks rebuilt by this connector's tasks, seed %d%s%n", connector,
                    hits.size(), rebuilt, seed, kinds);
            assertTrue(rebuilt > 0, connector + ": no block was rebuilt under " + hits.size() + " faults (seed " + seed
                    + "): the faults never hit a recorded, uncommitted block\n" + String.join("\n", hits));
        }

        void close() {
            pacing = false;
            if (slow != null) {
                slow.close();
            }
            h.deleteQuietly(connector);
        }
    }

}
