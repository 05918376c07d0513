package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.tools.attach.VirtualMachine;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.ConnectWorker;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The soak run: a paced stream over several tables and partitions, at both delivery guarantees at once (an
 * exactly_once connector with its state in a KeeperMap, and an at_least_once one), with short flushes so that it
 * makes many blocks, and a worker kill, a ClickHouse restart and a rebalance (a second worker joining and leaving)
 * in turn. Every few seconds it samples the worker's heap after a GC, its threads, open file descriptors and HTTP
 * connections to ClickHouse, the connector's MBeans and buffered bytes, and the exactly_once state rows per
 * partition. It fails when a sampled resource grows with time (the slope of a line fitted through the settled
 * samples of each worker's life, times the run's length, beyond a tolerance), when a resource with a bound by
 * construction exceeds it at any sample (the HTTP connections to ClickHouse, the connector's MBeans, a partition's
 * recorded blocks below its committed offset), or when a row is lost (either guarantee) or duplicated
 * (exactly_once). The bounded ones are not checked by slope: their count steps with what the tasks do (a pool opens
 * connections as concurrent requests need them and keeps them; a task registers a table's MBean when it first
 * writes to the table, and a rebalance can hand it partitions of another table), and one step in a worker's life of
 * a few settled samples extrapolates to the run's length as growth. A client left open (a leaked pool) shows in the
 * open files, whose slope is checked, once ClickHouse closes its idle connections.
 *
 * <p>{@code -Dchsink.soak.minutes} sets the length: 3 in the test run, 30 with {@code -Psoak}.
 */
class SoakTest {
    private static final String STATE = "chsink_exactly_once_state";
    /** docs/exactly-once.md "The bound": at most 64 recorded blocks below the committed offset (+1 while the prune runs). */
    private static final int BLOCKS_BELOW_COMMITTED = 65;
    private static final int TOPICS = 3;
    private static final String CONNECTIONS = "HTTP connections to ClickHouse";
    private static final String MBEANS = "connector MBeans";
    /**
     * The resources checked against a bound at every sample instead of by slope, and that bound:
     * <ul>
     *   <li>connections: 2 connectors x 2 tasks, each task's client pooling at most 10 (client-v2's
     *       max_open_connections, which ClientFactory leaves at its default);
     *   <li>MBeans: 2 connectors x 2 tasks, each with its own and one per table it has written to ({@link #TOPICS}).
     * </ul>
     */
    private static final Map<String, Integer> BOUNDS = Map.of(CONNECTIONS, 2 * 2 * 10, MBEANS, 2 * 2 * (1 + TOPICS));
    /** Events per second per topic. */
    private static final int RATE = 100;
    private static final Duration SAMPLE_EVERY = Duration.ofSeconds(5);
    /** Samples this soon after a fault (or a worker start) are not used for the slopes: the worker is recovering. */
    private static final Duration SETTLE = Duration.ofSeconds(15);
    private static KeeperClickHouse stand;
    private static ClickHouseServer keeper;

    @BeforeAll
    static void start() {
        stand = KeeperClickHouse.start("soak", "kills the local worker and ClickHouse");
        keeper = stand.clickhouse;
    }

    @AfterAll
    static void stop() {
        KeeperClickHouse.stopQuietly(stand, "SoakTest");
    }

    enum Fault { WORKER_KILL, CLICKHOUSE_RESTART, REBALANCE }

    /** One sample of the resources watched; {@code worker} counts the worker's lives (a kill starts a new one). */
    record Sample(double seconds, int worker, boolean settled, Map<String, Double> values) {
    }

    @Test
    void pacedStreamUnderFaultsKeepsResourcesFlatAndEveryRowOnce() throws Exception {
        double minutes = Double.parseDouble(System.getProperty("chsink.soak.minutes", "3"));
        Duration length = Duration.ofMillis((long) (minutes * 60_000));
        Duration faultEvery = Duration.ofMillis(Math.max(30_000, length.toMillis() / 10));
        SinkHarness h = new SinkHarness(keeper);
        long seed = Long.getLong("chsink.soak.seed", System.currentTimeMillis() % 100_000);
        Random random = new Random(seed);
        String eo = SinkHarness.unique("soak_eo");
        String alo = SinkHarness.unique("soak_alo");
        List<String> eoTopics = new ArrayList<>();
        List<String> aloTopics = new ArrayList<>();
        Map<String, EventGenerator> generators = new LinkedHashMap<>();
        Set<TopicPartition> eoPartitions = new HashSet<>();
        for (int i = 0; i < TOPICS; i++) {
            eoTopics.add(eo + "_t" + i);
            aloTopics.add(alo + "_t" + i);
        }
        for (String t : eoTopics) {
            keeper.exec(EventsTable.createDedupSql(h.db, t));
        }
        for (String t : aloTopics) {
            keeper.exec(EventsTable.createSql(h.db, t));
        }
        List<String> all = new ArrayList<>(eoTopics);
        all.addAll(aloTopics);
        for (int i = 0; i < all.size(); i++) {
            h.stack.kafka().createTopic(all.get(i), 2);
            generators.put(all.get(i), new EventGenerator(seed * 31 + i));
        }
        for (String t : eoTopics) {
            eoPartitions.add(new TopicPartition(t, 0));
            eoPartitions.add(new TopicPartition(t, 1));
        }
        Map<String, String> common = Map.of("flush.max.rows", "200", "flush.interval.ms", "500");
        Map<String, String> eoConfig = SinkHarness.overrides(String.join(",", eoTopics), 2);
        eoConfig.putAll(common);
        Map<String, String> aloConfig = SinkHarness.overrides(String.join(",", aloTopics), 2);
        aloConfig.putAll(common);
        Set<TopicPartition> aloPartitions = new HashSet<>();
        for (String t : aloTopics) {
            aloPartitions.add(new TopicPartition(t, 0));
            aloPartitions.add(new TopicPartition(t, 1));
        }
        FaultInjector offsets = new FaultInjector(h, eo, 2, eoTopics, eoPartitions, STATE, seed, Duration.ofSeconds(5));
        FaultInjector aloOffsets = new FaultInjector(h, alo, 2, aloTopics, aloPartitions, STATE, seed, Duration.ofSeconds(5));
        System.out.printf("SoakTest: %.1f min, seed %d (rerun with -Dchsink.soak.seed=%d), %d topics x 2 partitions per "
                + "guarantee, %d events/s per topic, a fault every %d s%n", minutes, seed, seed, TOPICS, RATE,
                faultEvery.toSeconds());

        Paced paced = new Paced(h.stack.kafka().bootstrapServers(), generators);
        List<Sample> samples = new ArrayList<>();
        List<String> faults = new ArrayList<>();
        Map<TopicPartition, Long> mostBelow = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        Map<TopicPartition, Long> mostRows = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        WorkerProbe probe = null;
        long t0 = System.nanoTime();
        try {
            h.createConnector(eo, "clickhouse-sink-exactly-once.json", eoConfig);
            h.createConnector(alo, "clickhouse-sink.json", aloConfig);
            h.rest().waitForTasksRunning(eo, 2, Duration.ofMinutes(2));
            h.rest().waitForTasksRunning(alo, 2, Duration.ofMinutes(2));
            paced.start();
            long lastFaultAt = System.nanoTime();
            long nextFault = lastFaultAt + faultEvery.toNanos();
            int worker = 0;
            int faultIndex = random.nextInt(Fault.values().length);
            long end = t0 + length.toNanos();
            while (System.nanoTime() < end) {
                if (System.nanoTime() >= nextFault && end - System.nanoTime() > SETTLE.toNanos() * 2) {
                    Fault f = Fault.values()[faultIndex++ % Fault.values().length];
                    long f0 = System.nanoTime();
                    if (f == Fault.WORKER_KILL && probe != null) {
                        probe.close();
                        probe = null;
                    }
                    String what = inject(h, f, random, List.of(eo, alo));
                    h.rest().waitForTasksRunning(eo, 2, Duration.ofMinutes(3));
                    h.rest().waitForTasksRunning(alo, 2, Duration.ofMinutes(3));
                    if (f == Fault.WORKER_KILL) {
                        worker++;
                    }
                    faults.add(String.format("%6.1f s %-18s %s (%.1f s)", (f0 - t0) / 1e9, f, what,
                            (System.nanoTime() - f0) / 1e9));
                    lastFaultAt = System.nanoTime();
                    nextFault = lastFaultAt + faultEvery.toNanos();
                }
                if (probe == null) {
                    probe = WorkerProbe.attach(h.stack.connect().pid(), keeper.httpPort());
                }
                Map<String, Double> v = new TreeMap<>(probe.sample());
                Map<TopicPartition, Long> committed = offsets.committedOffsets();
                Map<TopicPartition, long[]> state = stateRows(keeper, eo, committed);
                long total = 0;
                for (Map.Entry<TopicPartition, long[]> e : state.entrySet()) {
                    mostRows.merge(e.getKey(), e.getValue()[0], Math::max);
                    mostBelow.merge(e.getKey(), e.getValue()[1], Math::max);
                    total += e.getValue()[0];
                }
                v.put("state rows", (double) total);
                boolean settled = System.nanoTime() - lastFaultAt > SETTLE.toNanos();
                samples.add(new Sample((System.nanoTime() - t0) / 1e9, worker, settled, v));
                Thread.sleep(SAMPLE_EVERY.toMillis());
            }
            paced.stop();
            for (String t : all) {
                h.awaitRows(t, paced.sent(t), t.startsWith(eo) ? eo : alo);
            }
            // Offsets at the end: every row verified in ClickHouse (at_least_once may have counted duplicates above).
            offsets.awaitCommittedToEnd(Duration.ofMinutes(3));
            aloOffsets.awaitCommittedToEnd(Duration.ofMinutes(3));
        } finally {
            paced.stop();
            if (probe != null) {
                probe.close();
            }
            if (!h.stack.connect().isRunning()) {
                h.stack.connect().start();
            }
            h.deleteQuietly(eo);
            h.deleteQuietly(alo);
        }

        // Rows: none lost at either guarantee, none duplicated at exactly_once.
        StringBuilder rows = new StringBuilder();
        long duplicates = 0;
        for (String t : all) {
            long sent = paced.sent(t);
            long count = h.scalar("SELECT count() FROM `" + t + "`");
            long distinct = h.scalar("SELECT uniqExact(*) FROM `" + t + "`");
            rows.append(String.format("  %-28s sent %,8d  rows %,8d  distinct %,8d%n", t, sent, count, distinct));
            if (t.startsWith(eo)) {
                assertEquals(sent, count, t + ": exactly_once rows");
            } else {
                duplicates += count - distinct;
            }
            assertEquals(sent, distinct, t + ": rows lost");
            h.assertDistinctRowsAreTheDataset(t, generators.get(t).seed(), sent);
        }

        // Resources: flat over the run.
        List<String> report = new ArrayList<>();
        List<String> grew = new ArrayList<>();
        double span = samples.isEmpty() ? 0 : samples.get(samples.size() - 1).seconds() - samples.get(0).seconds();
        for (String name : samples.isEmpty() ? Set.<String>of() : samples.get(0).values().keySet()) {
            double slope = pooledSlope(samples, name);
            double median = median(samples, name);
            double growth = slope * span;
            double allowed = tolerance(name, median);
            report.add(String.format("  %-30s median %,14.0f  growth over the run %,+12.0f  (%s)", name, median, growth,
                    BOUNDS.containsKey(name) ? "bound " + BOUNDS.get(name) + " at every sample"
                            : name.equals("state rows") ? "bound per partition below"
                            : String.format("allowed %,.0f", allowed)));
            StringBuilder series = new StringBuilder("    ");
            for (Sample x : samples) {
                series.append(String.format("%s%.0f ", x.settled() ? "" : "~", x.values().getOrDefault(name, Double.NaN)));
            }
            report.add(series.toString().stripTrailing());
            // The state rows rise and fall with every prune (a saw), the connections and MBeans step with what the
            // tasks do: their bounds, asserted at every sample below, are the check that they do not grow with time.
            if (growth > allowed && !name.equals("state rows") && !BOUNDS.containsKey(name)) {
                grew.add(name + " grew by " + Math.round(growth) + " (allowed " + Math.round(allowed) + ")");
            }
        }
        long settled = samples.stream().filter(Sample::settled).count();
        System.out.printf("SoakTest: %.1f min, %d samples (%d settled), %d faults, %d worker lives%n%s%n"
                + "SoakTest rows:%n%s  at_least_once duplicates (redelivered after faults): %d%n"
                + "SoakTest resources (slope through the settled samples of each worker's life; ~ marks a sample "
                + "within " + SETTLE.toSeconds() + " s of a fault):%n%s%n"
                + "SoakTest state per partition (exactly_once, KeeperMap): most rows %s; most blocks below the "
                + "committed offset %s (bound %d)%n", (System.nanoTime() - t0) / 6e10, samples.size(), settled,
                faults.size(), samples.isEmpty() ? 0 : samples.get(samples.size() - 1).worker() + 1,
                String.join("\n", faults), rows, duplicates, String.join("\n", report), mostRows, mostBelow,
                BLOCKS_BELOW_COMMITTED);
        assertEquals("KeeperMap", keeper.query("SELECT engine FROM system.tables WHERE database = 'default' AND name = '"
                + STATE + "'").trim());
        assertTrue(faults.size() >= Fault.values().length, "every kind of fault at least once: " + faults);
        assertTrue(settled >= 10, "settled samples: " + settled);
        assertEquals(eoPartitions, mostRows.keySet(), "every partition's state sampled");
        mostBelow.forEach((tp, n) -> assertTrue(n <= BLOCKS_BELOW_COMMITTED, tp + ": " + n
                + " recorded blocks below the committed offset > " + BLOCKS_BELOW_COMMITTED));
        BOUNDS.forEach((name, bound) -> {
            double most = samples.stream().mapToDouble(x -> x.values().get(name)).max().orElse(0);
            assertTrue(most > 0, name + ": the probe saw none at any sample");
            assertTrue(most <= bound, name + ": " + Math.round(most) + " at one sample, more than its bound " + bound);
        });
        assertTrue(grew.isEmpty(), "resources grew with time: " + grew);
    }

    /** Injects {@code f}; a rebalance counts only when the second worker ran tasks of the connectors (its log says so). */
    private static String inject(SinkHarness h, Fault f, Random random, List<String> connectors) throws Exception {
        switch (f) {
            case WORKER_KILL -> {
                int code = h.stack.connect().kill();
                h.stack.connect().start();
                return "worker SIGKILLed (exit " + code + ") and started again";
            }
            case CLICKHOUSE_RESTART -> {
                keeper.kill();
                long down = 1000 + random.nextInt(2000);
                Thread.sleep(down);
                keeper.start();
                return "ClickHouse SIGKILLed, started again after " + down + " ms";
            }
            case REBALANCE -> {
                ConnectWorker second = new ConnectWorker();
                Path dir = Paths.get(System.getProperty("chsink.work.dir", "target/stack"), "soak-w2-"
                        + random.nextInt(1_000_000)).toAbsolutePath();
                try {
                    second.start(dir, h.stack.kafka().bootstrapServers());
                    long stay = 5_000 + random.nextInt(5_000);
                    Thread.sleep(stay);
                    second.stop();
                    long moved;
                    try (java.util.stream.Stream<String> lines = Files.lines(dir.resolve("worker.log"))) {
                        moved = lines.filter(l -> connectors.stream().anyMatch(c -> l.contains("Stopping task " + c + "-")))
                                .count();
                    }
                    assertTrue(moved > 0, "the second worker ran no task of " + connectors + " (" + dir + ")");
                    return "a second worker joined, ran " + moved + " tasks for " + stay / 1000 + " s and left";
                } finally {
                    second.close();
                }
            }
            default -> throw new IllegalArgumentException(f.toString());
        }
    }

    /**
     * Per partition of the connector's topics: its state rows, and its recorded blocks that end below the offset
     * the consumer group had committed before they were read.
     */
    private static Map<TopicPartition, long[]> stateRows(ClickHouseServer ch, String connector,
            Map<TopicPartition, Long> committed) {
        Map<TopicPartition, long[]> out = new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
        String tsv;
        try {
            tsv = ch.query("SELECT topic, partition, count(), groupArrayIf(last_offset, first_offset >= 0) FROM `"
                    + STATE + "` WHERE connector = '" + connector + "' GROUP BY topic, partition FORMAT TSV");
        } catch (RuntimeException e) {
            return out; // the state table is not created yet, or ClickHouse is restarting
        }
        for (String line : tsv.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t");
            TopicPartition tp = new TopicPartition(f[0], Integer.parseInt(f[1]));
            long c = committed.getOrDefault(tp, 0L);
            long below = 0;
            String list = f[3].substring(1, f[3].length() - 1);
            for (String last : list.isEmpty() ? new String[0] : list.split(",")) {
                if (Long.parseLong(last) < c) {
                    below++;
                }
            }
            out.put(tp, new long[] {Long.parseLong(f[2]), below});
        }
        return out;
    }

    /** How much a resource may grow over the run before it counts as growing with time. */
    private static double tolerance(String name, double median) {
        return switch (name) {
            case "heap after GC (bytes)" -> Math.max(32L << 20, 0.3 * median);
            case "threads" -> 8;
            case "Connect start/stop threads" -> 8; // a fixed pool of 8: bounded whatever the run's length
            case "open files" -> 24;
            case CONNECTIONS, MBEANS -> Double.NaN; // see BOUNDS
            case "buffered bytes" -> 8L << 20;
            case "state rows" -> Double.NaN; // see the bound per partition
            default -> Math.max(1, 0.2 * median);
        };
    }

    /**
     * The slope (per second) of one line fitted through the settled samples, each worker's life with an intercept of
     * its own: a resource that grows within a life grows with time, whether steadily or at each rebalance and
     * ClickHouse restart (the level after each is higher), while one that starts lower after a worker kill does not.
     */
    static double pooledSlope(List<Sample> samples, String name) {
        Map<Integer, List<Sample>> lives = new TreeMap<>();
        for (Sample s : samples) {
            if (s.settled() && s.values().containsKey(name)) {
                lives.computeIfAbsent(s.worker(), k -> new ArrayList<>()).add(s);
            }
        }
        double sxy = 0;
        double sxx = 0;
        for (List<Sample> life : lives.values()) {
            double mx = life.stream().mapToDouble(Sample::seconds).average().orElse(0);
            double my = life.stream().mapToDouble(s -> s.values().get(name)).average().orElse(0);
            for (Sample s : life) {
                sxy += (s.seconds() - mx) * (s.values().get(name) - my);
                sxx += (s.seconds() - mx) * (s.seconds() - mx);
            }
        }
        return sxx == 0 ? 0 : sxy / sxx;
    }

    private static double median(List<Sample> samples, String name) {
        double[] v = samples.stream().filter(s -> s.values().containsKey(name)).mapToDouble(s -> s.values().get(name))
                .sorted().toArray();
        return v.length == 0 ? 0 : v[v.length / 2];
    }

    /** The worker JVM seen from outside: /proc for threads, files and sockets, its JMX agent for heap and MBeans. */
    private static final class WorkerProbe implements AutoCloseable {
        private final long pid;
        private final int clickhousePort;
        private final JMXConnector jmx;
        private final MBeanServerConnection server;
        private final MemoryMXBean memory;

        private WorkerProbe(long pid, int clickhousePort, JMXConnector jmx) throws Exception {
            this.pid = pid;
            this.clickhousePort = clickhousePort;
            this.jmx = jmx;
            this.server = jmx.getMBeanServerConnection();
            this.memory = ManagementFactory.newPlatformMXBeanProxy(server, ManagementFactory.MEMORY_MXBEAN_NAME,
                    MemoryMXBean.class);
        }

        static WorkerProbe attach(long pid, int clickhousePort) throws Exception {
            VirtualMachine vm = VirtualMachine.attach(String.valueOf(pid));
            String address;
            try {
                address = vm.startLocalManagementAgent();
            } finally {
                vm.detach();
            }
            return new WorkerProbe(pid, clickhousePort, JMXConnectorFactory.connect(new JMXServiceURL(address)));
        }

        Map<String, Double> sample() throws Exception {
            Map<String, Double> v = new LinkedHashMap<>();
            memory.gc();
            v.put("heap after GC (bytes)", (double) memory.getHeapMemoryUsage().getUsed());
            int[] threads = threads();
            v.put("threads", (double) threads[0]);
            v.put("Connect start/stop threads", (double) threads[1]);
            Set<Long> sockets = new HashSet<>();
            v.put("open files", (double) openFiles(sockets));
            v.put(CONNECTIONS, (double) connections(sockets));
            Set<ObjectName> names = server.queryNames(new ObjectName("io.chsink.connect:*"), null);
            v.put(MBEANS, (double) names.size());
            double buffered = 0;
            for (ObjectName n : server.queryNames(new ObjectName("io.chsink.connect:type=sink-task-metrics,*"), null)) {
                try {
                    buffered += ((Number) server.getAttribute(n, "BufferedBytes")).doubleValue();
                } catch (javax.management.InstanceNotFoundException e) {
                    // the task stopped between the query and the read
                }
            }
            v.put("buffered bytes", buffered);
            return v;
        }

        /**
         * The worker's threads (by /proc/PID/task), apart from Kafka Connect's own StartAndStopExecutor threads, and
         * those: DistributedHerder starts them one by one as rebalances need them, up to its fixed pool of 8
         * (START_STOP_THREAD_POOL_SIZE), so they grow at the first rebalances and then stay.
         */
        private int[] threads() throws java.io.IOException {
            int other = 0;
            int startStop = 0;
            try (var tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
                for (Path t : tasks) {
                    String name;
                    try {
                        name = Files.readString(t.resolve("comm")).trim();
                    } catch (java.io.IOException e) {
                        continue; // ended meanwhile
                    }
                    if (name.startsWith("StartAndStopExe")) { // the kernel keeps 15 characters of the name
                        startStop++;
                    } else {
                        other++;
                    }
                }
            }
            return new int[] {other, startStop};
        }

        /** The open file descriptors; adds the inodes of those that are sockets to {@code sockets}. */
        private int openFiles(Set<Long> sockets) throws java.io.IOException {
            int n = 0;
            try (var fds = Files.newDirectoryStream(Path.of("/proc/" + pid + "/fd"))) {
                for (Path fd : fds) {
                    n++;
                    try {
                        String target = Files.readSymbolicLink(fd).toString();
                        if (target.startsWith("socket:[")) {
                            sockets.add(Long.parseLong(target.substring(8, target.length() - 1)));
                        }
                    } catch (java.io.IOException e) {
                        // closed meanwhile
                    }
                }
            }
            return n;
        }

        /** Established TCP connections of the worker to ClickHouse's HTTP port (its sockets in /proc/PID/net/tcp*). */
        private int connections(Set<Long> sockets) throws java.io.IOException {
            int n = 0;
            String port = String.format(":%04X", clickhousePort);
            for (String file : List.of("tcp", "tcp6")) {
                Path p = Path.of("/proc/" + pid + "/net/" + file);
                if (!Files.exists(p)) {
                    continue;
                }
                for (String line : Files.readAllLines(p)) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 9 && f[2].endsWith(port) && f[3].equals("01") && f[9].matches("\\d+")
                            && sockets.contains(Long.parseLong(f[9]))) {
                        n++;
                    }
                }
            }
            return n;
        }

        @Override
        public void close() {
            try {
                jmx.close();
            } catch (Exception e) {
                // the worker is gone
            }
        }
    }

    /** A producer at {@link #RATE} events per second per topic, on its own thread, counting what it sent. */
    private static final class Paced {
        private final Map<String, EventGenerator> generators;
        private final Map<String, Long> sent = new java.util.concurrent.ConcurrentHashMap<>();
        private final KafkaProducer<byte[], byte[]> producer;
        private volatile boolean running;
        private Thread thread;
        private volatile String failure;

        Paced(String bootstrap, Map<String, EventGenerator> generators) {
            this.generators = generators;
            java.util.Properties p = new java.util.Properties();
            p.put("bootstrap.servers", bootstrap);
            p.put("acks", "all");
            p.put("enable.idempotence", "true");
            p.put("linger.ms", "5");
            this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        }

        void start() {
            running = true;
            thread = new Thread(() -> {
                long tick = 0;
                long t0 = System.nanoTime();
                while (running) {
                    int perTick = RATE / 10;
                    for (Map.Entry<String, EventGenerator> e : generators.entrySet()) {
                        for (int k = 0; k < perTick; k++) {
                            long i = sent.merge(e.getKey(), 1L, Long::sum);
                            producer.send(new ProducerRecord<>(e.getKey(), (int) (i % 2), null,
                                    EventProducer.format(true).apply(e.getValue().next())), (md, ex) -> {
                                        if (ex != null && failure == null) {
                                            failure = ex.toString();
                                        }
                                    });
                        }
                    }
                    tick++;
                    long wait = t0 + tick * 100_000_000L - System.nanoTime();
                    if (wait > 0) {
                        try {
                            Thread.sleep(wait / 1_000_000);
                        } catch (InterruptedException ex) {
                            return;
                        }
                    }
                }
            }, "soak-producer");
            thread.start();
        }

        void stop() throws InterruptedException {
            if (running) {
                running = false;
                thread.join();
                producer.flush();
                producer.close(Duration.ofSeconds(30));
                if (failure != null) {
                    throw new AssertionError("a produce request failed: " + failure);
                }
            }
        }

        long sent(String topic) {
            return sent.getOrDefault(topic, 0L);
        }
    }
}
