package io.chsink.it.stack;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A sharded ClickHouse for tests: embedded servers (see {@link ClickHouseServer}) on one {@link ZooKeeperNode}, the
 * shards first, then an initiator whose {@code remote_servers} names a cluster of the shards only (shard {@code i}
 * is {@code shard(i)}, weight 1 each, one replica each), so that a {@code Distributed} table on the initiator spreads
 * its rows over the shards and {@code shardNum()} of a {@code cluster(...)} query is the shard's number here. Every
 * server has a Keeper (KeeperMap tables work on each, and share their data when created with the same path). Each
 * can be SIGKILLed and started again on its data dir and ports ({@link ClickHouseServer#kill()},
 * {@link ClickHouseServer#start()}). Files go to {@code <workDir>/zookeeper}, {@code shard-<i>} and
 * {@code initiator}.
 */
public final class ClickHouseCluster implements AutoCloseable {
    private final String name;
    private final ZooKeeperNode zookeeper;
    private final List<ClickHouseServer> shards;
    private final ClickHouseServer initiator;

    private ClickHouseCluster(String name, ZooKeeperNode zookeeper, List<ClickHouseServer> shards,
            ClickHouseServer initiator) {
        this.name = name;
        this.zookeeper = zookeeper;
        this.shards = shards;
        this.initiator = initiator;
    }

    /** Starts ZooKeeper, {@code shardCount} shards and the initiator with cluster {@code name} over the shards. */
    public static ClickHouseCluster start(Path workDir, String name, int shardCount) {
        if (shardCount < 1) {
            throw new IllegalArgumentException("a cluster needs a shard: " + shardCount);
        }
        ZooKeeperNode zookeeper = new ZooKeeperNode().start(workDir.resolve("zookeeper"));
        List<ClickHouseServer> shards = new ArrayList<>();
        try {
            for (int i = 1; i <= shardCount; i++) {
                shards.add(ClickHouseServer.builder(workDir.resolve("shard-" + i)).zookeeper(zookeeper).start());
            }
            ClickHouseServer initiator = ClickHouseServer.builder(workDir.resolve("initiator")).zookeeper(zookeeper)
                    .clusterOf(name, shards.toArray(new ClickHouseServer[0])).start();
            return new ClickHouseCluster(name, zookeeper, List.copyOf(shards), initiator);
        } catch (RuntimeException e) {
            shards.forEach(ClickHouseServer::close);
            zookeeper.close();
            throw e;
        }
    }

    /** The cluster's name in the initiator's {@code remote_servers}. */
    public String name() {
        return name;
    }

    /** The server the Distributed tables live on, and the connector writes to. */
    public ClickHouseServer initiator() {
        return initiator;
    }

    /** Shard {@code number}, 1-based as {@code shardNum()} and {@code system.clusters.shard_num}. */
    public ClickHouseServer shard(int number) {
        if (number < 1 || number > shards.size()) {
            throw new IllegalArgumentException("no shard " + number + " of " + shards.size());
        }
        return shards.get(number - 1);
    }

    public int shardCount() {
        return shards.size();
    }

    public ZooKeeperNode zookeeper() {
        return zookeeper;
    }

    /** {@code 127.0.0.1:<tcp port>} of shard {@code number}: how the cluster (and its errors) name it. */
    public String address(int number) {
        return "127.0.0.1:" + shard(number).tcpPort();
    }

    /**
     * Creates the local table on shard {@code number}: a MergeTree with the given columns and ORDER BY, keeping the
     * tokens of its last {@code dedupWindow} inserts ({@code non_replicated_deduplication_window}; 0 keeps none).
     */
    public void createLocalTable(int number, String database, String table, String columns, String orderBy,
            int dedupWindow) {
        shard(number).exec("CREATE TABLE " + quote(database) + "." + quote(table) + " (" + columns + ") ENGINE = MergeTree"
                + " ORDER BY " + orderBy + " SETTINGS non_replicated_deduplication_window = " + dedupWindow);
    }

    /** {@link #createLocalTable} on every shard. */
    public void createLocalTables(String database, String table, String columns, String orderBy, int dedupWindow) {
        for (int i = 1; i <= shards.size(); i++) {
            createLocalTable(i, database, table, columns, orderBy, dedupWindow);
        }
    }

    /**
     * Creates {@code table} on the initiator: {@code Distributed(<cluster>, database, local[, shardingKey])} with the
     * given columns; {@code shardingKey} null or empty for none.
     */
    public void createDistributed(String database, String table, String columns, String local, String shardingKey) {
        initiator.exec("CREATE TABLE " + quote(database) + "." + quote(table) + " (" + columns + ") ENGINE = Distributed("
                + literal(name) + ", " + literal(database) + ", " + literal(local)
                + (shardingKey == null || shardingKey.isEmpty() ? "" : ", " + shardingKey) + ")");
    }

    /** An identifier in backticks, backslash and backtick escaped. */
    public static String quote(String identifier) {
        return "`" + identifier.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }

    private static String literal(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    /** Stops the initiator, the shards, then ZooKeeper; deletes the data dirs created here. */
    @Override
    public void close() {
        List<AutoCloseable> all = new ArrayList<>();
        all.add(initiator);
        all.addAll(shards);
        all.add(zookeeper);
        RuntimeException first = null;
        for (AutoCloseable c : all) {
            try {
                c.close();
            } catch (Exception e) {
                if (first == null) {
                    first = new IllegalStateException("cannot stop " + c, e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
