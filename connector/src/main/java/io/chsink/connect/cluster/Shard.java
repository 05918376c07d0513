package io.chsink.connect.cluster;

/** One shard of a cluster as {@code system.clusters} lists it (its first replica's address names it). */
public final class Shard {
    private final int number;
    private final long weight;
    private final String host;
    private final int port;
    private final String defaultDatabase;

    public Shard(int number, long weight, String host, int port, String defaultDatabase) {
        this.number = number;
        this.weight = weight;
        this.host = host;
        this.port = port;
        this.defaultDatabase = defaultDatabase == null ? "" : defaultDatabase;
    }

    /** {@code shard_num}: what {@code insert_shard_id} and {@code shardNum()} call it (from 1). */
    public int number() {
        return number;
    }

    public long weight() {
        return weight;
    }

    /** The database a Distributed table with an empty database argument writes on this shard ('' = the server's). */
    public String defaultDatabase() {
        return defaultDatabase;
    }

    /** {@code shard 2 (10.0.0.7:9000)}, as every message names a shard. */
    public String name() {
        return "shard " + number + " (" + host + ":" + port + ")";
    }

    @Override
    public String toString() {
        return name();
    }
}
