package io.chsink.it.bench;

import io.chsink.it.events.CheckLine;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ClickHouseHttp;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.ProcessCpu;
import io.chsink.it.stack.RowWatcher;
import io.chsink.it.stack.Stack;
import io.chsink.it.stack.ZooKeeperNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Path S: a 2-shard target. Two clickhouse-local servers of their own (beside the stack's, which stays idle): shard 1,
 * and the initiator, which is shard 2 as well (the {@code remote_servers} cluster {@value #CLUSTER} lists shard 1's
 * TCP port, then the initiator's own), each with a local MergeTree events table, and on the initiator a
 * {@code Distributed(bench_pair, default, <local>, <key>)} table that the connectors write. Two servers rather than
 * an initiator plus two shards: on a 2-core machine a third server would only add a process that forwards rows, and
 * a Distributed table on every shard, the client talking to one of them, is how such clusters are commonly written.
 * <p>
 * The same topic (JSON with schemas, produced once) is read by:
 * <ul>
 *   <li>this connector (config/clickhouse-sink.json), sharding key {@code cityHash64(user_id)}: each block through
 *       the Distributed table, split by the key, with {@code distributed_foreground_insert=1};</li>
 *   <li>this connector, sharding key {@code rand()}: each block whole to one shard ({@code insert_shard_id}), with
 *       {@code distributed_foreground_insert=1};</li>
 *   <li>the official connector (its best settings, as path M) into the same Distributed tables, as users run it: the
 *       server's default, background distribution ({@code distributed_foreground_insert=0}): an insert returns once
 *       the initiator has written its own shard's rows and queued the other shard's on its disk;</li>
 *   <li>with {@code --exactly-once}: this connector under config/clickhouse-sink-exactly-once.json, both keys, into
 *       local tables with {@code non_replicated_deduplication_window}, its state in a KeeperMap on the initiator (a
 *       ZooKeeper child JVM started for it).</li>
 * </ul>
 * The clock runs from the connector's creation until {@code count()} of the Distributed table, which sums the shards'
 * local tables (rows queued on the initiator are not counted), equals the events; then each shard's count, the check
 * line over the Distributed table and the initiator's distribution queue are read.
 */
final class ShardedPath implements AutoCloseable {
    static final String CLUSTER = "bench_pair";

    /** The Distributed table's sharding key. */
    enum Key {
        HASH("hash", "cityHash64(user_id)"), RAND("rand", "rand()");

        final String label;
        final String sql;

        Key(String label, String sql) {
            this.label = label;
            this.sql = sql;
        }
    }

    /** Who writes, under which guarantee. */
    enum Sink {
        OURS(""), OFFICIAL("official-"), OURS_EXACTLY_ONCE("");

        final String idPart;

        Sink(String idPart) {
            this.idPart = idPart;
        }
    }

    /** The topic every run reads. */
    record Dataset(String topic, long rows, CheckLine expected, long kafkaBytes, double produceSeconds) {
    }

    private final String db;
    private final ZooKeeperNode zookeeper;
    private final ClickHouseServer shard1;
    private final ClickHouseServer initiator;

    private ShardedPath(String db, ZooKeeperNode zookeeper, ClickHouseServer shard1, ClickHouseServer initiator) {
        this.db = db;
        this.zookeeper = zookeeper;
        this.shard1 = shard1;
        this.initiator = initiator;
    }

    /** Starts shard 1, then the initiator (shard 2); {@code keeper}: a ZooKeeper for the initiator's KeeperMap. */
    static ShardedPath start(Path workDir, String db, boolean keeper) {
        ZooKeeperNode zk = null;
        ClickHouseServer s1 = null;
        try {
            zk = keeper ? new ZooKeeperNode().start(workDir.resolve("s-zookeeper")) : null;
            s1 = ClickHouseServer.builder(workDir.resolve("s-shard1")).start();
            ClickHouseServer.Builder b = ClickHouseServer.builder(workDir.resolve("s-initiator")).cluster(CLUSTER, s1);
            if (zk != null) {
                b.zookeeper(zk);
            }
            ClickHouseServer init = b.start();
            return new ShardedPath(db, zk, s1, init);
        } catch (RuntimeException e) {
            if (s1 != null) {
                s1.close();
            }
            if (zk != null) {
                zk.close();
            }
            throw e;
        }
    }

    /** Creates a topic of {@code partitions} partitions and produces the events, JSON with schemas (not timed). */
    static Dataset produce(Stack stack, String topic, long seed, long rows, int partitions) {
        stack.kafka().createTopic(topic, partitions);
        long[] bytes = {0};
        long t0 = System.nanoTime();
        new EventProducer(stack.kafka().bootstrapServers()).produce(topic, partitions, new EventGenerator(seed), rows,
                e -> {
                    byte[] v = EventProducer.format(true).apply(e);
                    bytes[0] += v.length;
                    return v;
                }, null);
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf("    produced %,d events (%.1f MB of JSON with schemas) into %s, %d partitions, in %.1f s"
                + " (not timed)%n", rows, bytes[0] / 1e6, topic, partitions, seconds);
        return new Dataset(topic, rows, EventsTable.expected(seed, rows), bytes[0], seconds);
    }

    /** The servers, for the report: shard 1's and the initiator's ports. */
    String describe() {
        return "shard 1 127.0.0.1:" + shard1.tcpPort() + " (HTTP " + shard1.httpPort() + "), initiator = shard 2 127.0.0.1:"
                + initiator.tcpPort() + " (HTTP " + initiator.httpPort() + ")" + (zookeeper == null ? ""
                        : ", ZooKeeper 127.0.0.1:" + zookeeper.port() + " for the initiator's KeeperMap");
    }

    /**
     * One timed run: fresh local tables on both shards and the Distributed table {@code name} on the initiator,
     * {@code sink} reading the dataset's topic with {@code tasks} tasks; checks, and drops the tables unless kept.
     * {@code id} null: a warm-up (nothing reported).
     */
    SinkBenchReport.Path run(Stack stack, Dataset d, String name, Sink sink, Key key, int tasks, boolean keepTables,
            String id) {
        boolean dedup = sink == Sink.OURS_EXACTLY_ONCE;
        String local = name + "_local";
        for (ClickHouseServer s : List.of(shard1, initiator)) {
            s.exec("DROP TABLE IF EXISTS " + EventsTable.qualified(db, local) + " SYNC");
            s.exec(dedup ? EventsTable.createDedupSql(db, local) : EventsTable.createSql(db, local));
        }
        String dist = EventsTable.qualified(db, name);
        initiator.exec("DROP TABLE IF EXISTS " + dist + " SYNC");
        initiator.exec("CREATE TABLE " + dist + " AS " + EventsTable.qualified(db, local) + " ENGINE = Distributed("
                + CLUSTER + ", " + EventsTable.quote(db) + ", " + EventsTable.quote(local) + ", " + key.sql + ")");

        String connector = name.replace('_', '-') + "-sink";
        Map<String, String> config = sink == Sink.OFFICIAL
                ? ManyTablesPath.officialConfig(initiator.url(), initiator.user(), initiator.password(), db,
                        List.of(d.topic()), List.of(name), tasks)
                : oursConfig(d.topic(), name, tasks, sink == Sink.OURS_EXACTLY_ONCE);

        ClickHouseHttp http = initiator.http();
        long workerPid = stack.connect().pid();
        ProcessCpu workerCpu = ProcessCpu.ofPid(workerPid);
        ProcessCpu initCpu = ProcessCpu.ofClickHouse(initiator.httpPort());
        ProcessCpu s1Cpu = ProcessCpu.ofClickHouse(shard1.httpPort());
        long[] initEvents0 = insertEvents(http);
        long[] s1Events0 = insertEvents(shard1.http());
        ProcessCpu.Sample w0 = workerCpu.sample();
        ProcessCpu.Sample i0 = initCpu.sample();
        ProcessCpu.Sample p0 = s1Cpu.sample();
        long start = System.nanoTime();
        LastGrowth shard2 = new LastGrowth(http, EventsTable.qualified(db, local));
        stack.connect().rest().putConnectorConfig(connector, config);
        // count() of the Distributed table: the shards' local tables summed (rows queued on the initiator not counted).
        RowWatcher watcher = new RowWatcher(http, dist);
        watcher.awaitRows(d.rows(), Duration.ofMinutes(30), Duration.ofMinutes(3),
                EndToEndPath.everyFewSeconds(new ConnectorFailure(stack.connect().rest(), connector)),
                id == null ? null : (landed, rate) -> {
                    if ((System.nanoTime() - start) / 1_000_000_000L % 10 == 0) {
                        System.out.printf("    rows on the shards: %,d / %,d (%,d rows/s)%n", landed, d.rows(), rate);
                    }
                });
        long nanos = System.nanoTime() - start;
        long shard2Done = shard2.stop() - start;
        ProcessCpu.Sample wUsed = workerCpu.sample().minus(w0);
        ProcessCpu.Sample iUsed = initCpu.sample().minus(i0);
        ProcessCpu.Sample sUsed = s1Cpu.sample().minus(p0);
        long[] initEvents1 = insertEvents(http);
        long[] s1Events1 = insertEvents(shard1.http());
        long firstRow = watcher.firstRowNanos() < 0 ? -1 : watcher.firstRowNanos() - start;
        // What the initiator still has queued for shard 1 (background distribution only): 0 files when the rows are
        // all on the shards.
        String queued = http.query("SELECT sum(data_files), sum(data_compressed_bytes) FROM system.distribution_queue"
                + " WHERE database = '" + db + "' AND table = '" + name + "' FORMAT TabSeparated").trim();
        stack.connect().rest().deleteConnector(connector);

        long onShard1 = Long.parseLong(shard1.http().scalar("SELECT count() FROM " + EventsTable.qualified(db, local)).trim());
        long onShard2 = Long.parseLong(http.scalar("SELECT count() FROM " + EventsTable.qualified(db, local)).trim());
        long count = Long.parseLong(http.scalar("SELECT count() FROM " + dist).trim());
        CheckLine line = EventsTable.check(http, db, name);
        if (!keepTables) {
            initiator.exec("DROP TABLE " + dist + " SYNC");
            for (ClickHouseServer s : List.of(shard1, initiator)) {
                s.exec("DROP TABLE " + EventsTable.qualified(db, local) + " SYNC");
            }
        }
        boolean ok = count == d.rows() && onShard1 + onShard2 == d.rows() && line.equals(d.expected());
        String who = switch (sink) {
            case OURS -> "this connector";
            case OURS_EXACTLY_ONCE -> "this connector, delivery.guarantee=exactly_once";
            case OFFICIAL -> "official connector";
        };
        String mode = sink == Sink.OFFICIAL ? "background distribution (server default)"
                : key == Key.HASH ? "through Distributed, split by key, foreground" : "whole blocks to shards (insert_shard_id), foreground";
        System.out.printf("    %s, key %s: %,.0f rows/s (%.2f s), worker CPU %.2f s, ClickHouse CPU initiator %.2f s +"
                + " shard 1 %.2f s; rows on shard 1 %,d, shard 2 %,d (complete at %.1f s); inserts received: initiator %,d, shard 1 %,d;"
                + " queue left on the initiator (files, bytes): %s; %s%n", who, key.sql, d.rows() / (nanos / 1e9),
                nanos / 1e9, wUsed.seconds(), iUsed.seconds(), sUsed.seconds(), onShard1, onShard2,
                shard2Done / 1e9, initEvents1[0] - initEvents0[0], s1Events1[0] - s1Events0[0], queued.replace('\t', ' '),
                ok ? "check equal to the generator's" : "CHECK MISMATCH: count " + count + ", " + line);
        if (id == null) {
            return null;
        }
        ProcessCpu.Sample chUsed = new ProcessCpu.Sample(iUsed.userNanos() + sUsed.userNanos(),
                iUsed.sysNanos() + sUsed.sysNanos());
        SinkBenchReport.Path p = new SinkBenchReport.Path(id, "2 shards, " + who + ", key " + key.sql + ", " + mode,
                d.rows(), nanos / 1e9, "worker", wUsed, chUsed);
        p.details.put("shardingKey", key.sql);
        p.details.put("sink", sink == Sink.OFFICIAL ? "official" : "ours");
        p.details.put("deliveryGuarantee", sink == Sink.OURS_EXACTLY_ONCE ? "exactly_once" : "at_least_once");
        p.details.put("distribution", mode);
        p.details.put("rowsOnShard1", onShard1);
        p.details.put("rowsOnShard2Initiator", onShard2);
        // Shard 2's part of an insert split over both shards (the initiator's own local table) is written before the
        // insert returns, under both distribution modes: when it stopped growing, the connector's last insert had
        // returned; what follows is the initiator's queue reaching shard 1 (background distribution). Whole blocks
        // (S-rand*): only when shard 2's last block landed.
        p.details.put("shard2CompleteSeconds", shard2Done / 1e9);
        p.details.put("initiatorCpuSeconds", iUsed.seconds());
        p.details.put("shard1CpuSeconds", sUsed.seconds());
        p.details.put("insertsReceivedByInitiator", initEvents1[0] - initEvents0[0]);
        p.details.put("insertsReceivedByShard1", s1Events1[0] - s1Events0[0]);
        p.details.put("rowsInsertedCounterInitiator", initEvents1[1] - initEvents0[1]);
        p.details.put("rowsInsertedCounterShard1", s1Events1[1] - s1Events0[1]);
        p.details.put("distributionQueueLeft", queued.replace('\t', ' '));
        if (firstRow > 0) {
            p.details.put("firstRowSeconds", firstRow / 1e9);
            p.details.put("rowsPerSecondAfterFirstRow", d.rows() / ((nanos - firstRow) / 1e9));
        }
        p.details.put("kafkaValueBytesPerRecord", (double) d.kafkaBytes() / d.rows());
        p.details.put("produceSecondsNotTimed", d.produceSeconds());
        p.check = new SinkBenchReport.Check(name + " (Distributed)", count, line, d.expected(), ok);
        return p;
    }

    /** The example config (exactly_once: its own example) with the initiator's address, the topic and the table. */
    private Map<String, String> oursConfig(String topic, String table, int tasks, boolean exactlyOnce) {
        Map<String, String> overrides = new HashMap<>();
        overrides.put("topics", topic);
        overrides.put("tasks.max", Integer.toString(tasks));
        overrides.put("clickhouse.url", initiator.url());
        overrides.put("clickhouse.user", initiator.user());
        overrides.put("clickhouse.password", initiator.password());
        overrides.put("clickhouse.database", db);
        overrides.put("topic.to.table.map", topic + ":" + table);
        Map<String, String> config = ConnectorConfigs.load(exactlyOnce ? EndToEndPath.EXACTLY_ONCE_EXAMPLE
                : EndToEndPath.Format.SCHEMA.example, overrides);
        config.remove("name");
        return new LinkedHashMap<>(config);
    }

    /**
     * Reads a table's count() five times a second on a thread of its own, and keeps when it last grew: the time its
     * rows were complete.
     */
    private static final class LastGrowth {
        private final Thread thread;
        private volatile boolean running = true;
        private volatile long lastGrowth = System.nanoTime();

        LastGrowth(ClickHouseHttp http, String qualifiedTable) {
            thread = new Thread(() -> {
                long last = -1;
                while (running) {
                    try {
                        long n = Long.parseLong(http.scalar("SELECT count() FROM " + qualifiedTable).trim());
                        if (n != last) {
                            last = n;
                            lastGrowth = System.nanoTime();
                        }
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        // a failed read: the next one counts
                    }
                }
            }, "shard2-count");
            thread.setDaemon(true);
            thread.start();
        }

        /** Stops the reads; returns System.nanoTime() of the last growth seen. */
        long stop() {
            running = false;
            thread.interrupt();
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return lastGrowth;
        }
    }

    /** The server's InsertQuery and InsertedRows counters since it started. */
    private static long[] insertEvents(ClickHouseHttp http) {
        String[] f = http.query("SELECT sumIf(value, event = 'InsertQuery'), sumIf(value, event = 'InsertedRows')"
                + " FROM system.events FORMAT TabSeparated").trim().split("\t");
        return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
    }

    @Override
    public void close() {
        initiator.close();
        shard1.close();
        if (zookeeper != null) {
            zookeeper.close();
        }
    }
}
