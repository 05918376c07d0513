package io.chsink.connect.exactlyonce;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.command.CommandSettings;
import com.clickhouse.client.api.query.GenericRecord;
import com.clickhouse.client.api.query.QuerySettings;
import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.writer.Commands;
import io.chsink.connect.writer.InsertFailure;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable record of block compositions, in a small ClickHouse table the connector creates: one row per
 * inserted block, keyed by (connector, topic, partition, first offset). Where the server has a usable KeeperMap
 * engine (a Keeper and {@code keeper_map_path_prefix}), the table is a KeeperMap (linearizable, no merges);
 * otherwise a ReplacingMergeTree keyed the same way, versioned by the server's clock and read with FINAL, so the
 * latest write of a key is the one seen. No Keeper is required; but a Keeper that is configured and does not
 * answer fails the open (to be retried) rather than leading to a ReplacingMergeTree.
 *
 * <p>All values travel as query parameters; the table name is quoted.
 */
public final class StateStore implements RecordedBlocks {
    private static final Logger LOG = LoggerFactory.getLogger(StateStore.class);
    private static final long TIMEOUT_S = 60;
    private static final String COLUMNS = "connector String, topic String, partition Int32, first_offset Int64, "
            + "last_offset Int64, target_database String, target_table String, rows UInt32, first_timestamp Int64, "
            + "token String, version UInt64";
    /** The rest of the fallback table's definition after COLUMNS; %s is the engine. */
    private static final String REPLACING_TAIL = ", recorded_at DateTime DEFAULT now()) ENGINE = %s ORDER BY "
            + "(connector, topic, partition, first_offset) TTL recorded_at + INTERVAL 30 DAY";

    /** The first and last offset of a partition's epoch marker row ({@link #reset}). */
    static final long MARKER_OFFSET = -1;
    static final String MARKER_TOKEN = "chsink-epoch";
    /** A marker's recorded_at: with the 30-day TTL added, still within DateTime's range (up to 2106). */
    static final String MARKER_RECORDED_AT = "2100-01-01 00:00:00";
    /** The first offset of a partition's handled mark row ({@link #storeMarks}). */
    static final long MARK_OFFSET = -2;
    static final String MARK_TOKEN = "chsink-handled";

    private final Client client;
    private final TableId table;
    private final String connector;
    private final boolean keeperMap;
    private String engine;

    private StateStore(Client client, TableId table, String connector, boolean keeperMap) {
        this.client = client;
        this.table = table;
        this.connector = connector;
        this.keeperMap = keeperMap;
    }

    /** Creates the state table unless it exists (a KeeperMap where the server allows one) and opens it. */
    public static StateStore open(Client client, TableId table, String connector) {
        String engine = engineOf(client, table);
        if (engine == null) {
            engine = create(client, table);
        }
        boolean km = engine.equals("KeeperMap");
        if (!km && !engine.contains("ReplacingMergeTree")) {
            throw new IllegalStateException("Exactly-once state table " + table.quoted() + " exists with engine "
                    + engine + "; expected KeeperMap or ReplacingMergeTree. Drop it or name another table.");
        }
        LOG.info("Exactly-once state table {} ({})", table.quoted(), engine);
        StateStore store = new StateStore(client, table, connector, km);
        store.engine = engine;
        return store;
    }

    /** The state table's engine as the server reported it when opened, e.g. KeeperMap or ReplacingMergeTree. */
    @Override
    public String engine() {
        return engine;
    }

    /**
     * The statement a user runs (on every replica, or with ON CLUSTER) to have a replicated state table where the
     * connector would create a node-local one: the columns and key of the ReplacingMergeTree the connector creates.
     */
    public static String replicatedCreateSql(TableId table) {
        return "CREATE TABLE IF NOT EXISTS " + table.quoted() + " (" + COLUMNS + REPLACING_TAIL.replace("%s",
                "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}', version)");
    }

    /** The table's engine, or null when it does not exist. */
    static String engineOf(Client client, TableId table) {
        Map<String, Object> p = new HashMap<>();
        p.put("db", table.database());
        p.put("tbl", table.table());
        List<GenericRecord> rows = client.queryAll(
                "SELECT engine FROM system.tables WHERE database = {db:String} AND name = {tbl:String}", p);
        return rows.isEmpty() ? null : rows.get(0).getString("engine");
    }

    /** Creates the table; returns the engine it has then (another task may have created it in the meantime). */
    private static String create(Client client, TableId table) {
        String path = "/chsink/" + table.database() + "/" + table.table();
        try {
            run(client, "CREATE TABLE IF NOT EXISTS " + table.quoted() + " (key String, " + COLUMNS
                    + ") ENGINE = KeeperMap(" + literal(path) + ") PRIMARY KEY key", null);
        } catch (RuntimeException e) {
            if (InsertFailure.classify(e).retriable()) {
                // The server has a Keeper that did not answer (KEEPER_EXCEPTION, NO_ZOOKEEPER, a timeout): falling
                // back would leave a ReplacingMergeTree here for good, blind to the blocks other servers recorded
                // in the shared KeeperMap. The caller retries.
                throw e;
            }
            LOG.info("KeeperMap is not usable on this server ({}); the state table is a ReplacingMergeTree",
                    firstLine(e));
            run(client, "CREATE TABLE IF NOT EXISTS " + table.quoted() + " (" + COLUMNS + REPLACING_TAIL
                    .replace("%s", "ReplacingMergeTree(version)"), null);
        }
        String engine = engineOf(client, table);
        if (engine == null) {
            throw new IllegalStateException("Exactly-once state table " + table.quoted() + " is not there after CREATE");
        }
        return engine;
    }

    /** Writes the manifest; returns when the server has acknowledged it. */
    @Override
    public void record(BlockManifest m) {
        write(m.partition(), m.firstOffset(), m.lastOffset(), m.table().database(), m.table().table(), m.rows(),
                m.firstTimestamp(), m.token(), false);
    }

    /**
     * One row. A marker (the partition's epoch row) gets a {@code recorded_at} far beyond the ReplacingMergeTree's
     * TTL, so it never expires: see {@link #reset}.
     */
    private void write(TopicPartition tp, long first, long last, String db, String tbl, int rows, long ts,
            String token, boolean marker) {
        Map<String, Object> p = new HashMap<>();
        p.put("connector", connector);
        p.put("topic", tp.topic());
        p.put("partition", tp.partition());
        p.put("first", first);
        p.put("last", last);
        p.put("db", db);
        p.put("tbl", tbl);
        p.put("rows", rows);
        p.put("ts", ts);
        p.put("token", token);
        String values = "{connector:String}, {topic:String}, {partition:Int32}, {first:Int64}, {last:Int64}, "
                + "{db:String}, {tbl:String}, {rows:UInt32}, {ts:Int64}, {token:String}, "
                + "toUnixTimestamp64Nano(now64(9))";
        String sql = keeperMap
                ? "INSERT INTO " + table.quoted() + " SELECT concat({connector:String}, '/', {topic:String}, '/', "
                        + "toString({partition:Int32}), '/', toString({first:Int64})), " + values
                : "INSERT INTO " + table.quoted() + " (connector, topic, partition, first_offset, last_offset, "
                        + "target_database, target_table, rows, first_timestamp, token, version"
                        + (marker ? ", recorded_at" : "") + ") SELECT " + values
                        + (marker ? ", toDateTime(" + literal(MARKER_RECORDED_AT) + ", 'UTC')" : "");
        run(client, sql, p);
    }

    /**
     * Everything the state table holds for a partition, read in one query: its recorded blocks that end at or after
     * {@code fromOffset} (the first offset redelivered) in offset order, how many end before it, its epoch marker and
     * its handled mark. Per partition that is a bounded number of rows (docs/exactly-once.md, "Bounded state").
     */
    @Override
    public RecordedPartition load(TopicPartition tp, long fromOffset) {
        Map<String, Object> p = new HashMap<>();
        p.put("connector", connector);
        p.put("topic", tp.topic());
        p.put("partition", tp.partition());
        List<GenericRecord> rows = client.queryAll("SELECT first_offset, last_offset, target_database, "
                + "target_table, rows, first_timestamp, token FROM " + table.quoted() + (keeperMap ? "" : " FINAL")
                + " WHERE connector = {connector:String} AND topic = {topic:String} AND partition = {partition:Int32}"
                + " ORDER BY first_offset", p, readSettings());
        List<BlockManifest> blocks = new ArrayList<>(rows.size());
        long below = 0;
        long epoch = 0;
        HandledOffsets.Mark mark = HandledOffsets.Mark.NONE;
        for (GenericRecord r : rows) {
            long first = r.getLong("first_offset");
            long last = r.getLong("last_offset");
            if (first == MARKER_OFFSET) {
                epoch = r.getLong("first_timestamp");
            } else if (first == MARK_OFFSET) {
                mark = new HandledOffsets.Mark(last, anchorOf(r.getString("token")), r.getLong("first_timestamp"));
            } else if (first < 0) {
                continue; // a row of a later version of the connector
            } else if (last < fromOffset) {
                below++;
            } else {
                blocks.add(new BlockManifest(new TableId(r.getString("target_database"), r.getString("target_table")),
                        tp, first, last, (int) r.getLong("rows"), r.getLong("first_timestamp"), r.getString("token"))
                        .markRecorded());
            }
        }
        return new RecordedPartition(blocks, below, epoch, mark);
    }

    /** The anchor offset in a mark's token ({@value #MARK_TOKEN}/offset), or -1 when it has none. */
    static long anchorOf(String token) {
        if (!token.startsWith(MARK_TOKEN + "/")) {
            return -1;
        }
        try {
            return Long.parseLong(token.substring(MARK_TOKEN.length() + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Writes the partitions' handled marks in one statement: per partition a row with {@code first_offset = }
     * {@value #MARK_OFFSET}, the mark in {@code last_offset}, the anchor's timestamp in {@code first_timestamp} and
     * its offset in the token; it replaces the partition's previous mark (same key), and in a ReplacingMergeTree it
     * never expires ({@link #MARKER_RECORDED_AT}).
     */
    @Override
    public void storeMarks(Map<TopicPartition, HandledOffsets.Mark> marks) {
        if (marks.isEmpty()) {
            return;
        }
        StringBuilder rows = new StringBuilder();
        for (Map.Entry<TopicPartition, HandledOffsets.Mark> e : marks.entrySet()) {
            HandledOffsets.Mark m = e.getValue();
            rows.append(rows.length() == 0 ? "" : ",").append(e.getKey().topic()).append('/')
                    .append(e.getKey().partition()).append('/').append(m.below()).append('/')
                    .append(m.anchorOffset()).append('/').append(m.anchorTimestamp());
        }
        Map<String, Object> p = new HashMap<>();
        p.put("connector", connector);
        p.put("marks", rows.toString());
        String values = "{connector:String}, f[1], toInt32(f[2]), " + MARK_OFFSET + ", toInt64(f[3]), '', '', 0, "
                + "toInt64(f[5]), concat(" + literal(MARK_TOKEN + "/") + ", f[4]), toUnixTimestamp64Nano(now64(9))";
        String from = " FROM (SELECT splitByChar('/', arrayJoin(splitByChar(',', {marks:String}))) AS f)";
        run(client, keeperMap
                ? "INSERT INTO " + table.quoted() + " SELECT concat({connector:String}, '/', f[1], '/', f[2], '/', "
                        + literal(Long.toString(MARK_OFFSET)) + "), " + values + from
                : "INSERT INTO " + table.quoted() + " (connector, topic, partition, first_offset, last_offset, "
                        + "target_database, target_table, rows, first_timestamp, token, version, recorded_at) SELECT "
                        + values + ", toDateTime(" + literal(MARKER_RECORDED_AT) + ", 'UTC')" + from, p);
    }

    /**
     * Deletes, in one statement, each partition's recorded blocks that end below its bound (its handled mark, or
     * the offset Connect started it at): blocks whose records are all handled and will never be rebuilt. The epoch
     * marker and the handled mark (negative first offsets) stay.
     */
    @Override
    public void prune(Map<TopicPartition, Long> below) {
        if (below.isEmpty()) {
            return;
        }
        StringBuilder bounds = new StringBuilder();
        for (Long b : below.values()) {
            bounds.append(bounds.length() == 0 ? "" : ",").append(b);
        }
        Map<String, Object> p = new HashMap<>();
        p.put("connector", connector);
        p.put("keys", keys(below.keySet()));
        p.put("bounds", bounds.toString());
        deleteAll(" WHERE connector = {connector:String} AND first_offset >= 0 "
                + "AND last_offset < mapFromArrays(splitByChar(',', {keys:String}), arrayMap(x -> toInt64(x), "
                + "splitByChar(',', {bounds:String})))[concat(topic, '/', toString(partition))]", p);
    }

    /**
     * {@code DELETE FROM table <where>}; on a KeeperMap, repeated until no row matches. From 23.3 until ClickHouse's
     * fix #112777 (2026), a DELETE on a KeeperMap removed only the first block of matched rows (65,409 by default)
     * and reported success; after a reset, a block left behind would be rebuilt with its old token instead of its
     * records being inserted again. Each round deletes at least a block, so this ends; a round that deletes nothing
     * (rows matching but staying) throws. Returns the DELETE statements run.
     */
    int deleteAll(String where, Map<String, Object> p) {
        int rounds = 0;
        long before = Long.MAX_VALUE;
        while (true) {
            run(client, "DELETE FROM " + table.quoted() + where, p);
            rounds++;
            if (!keeperMap) {
                return rounds;
            }
            List<GenericRecord> left = client.queryAll("SELECT count() AS n FROM " + table.quoted() + where, p,
                    readSettings());
            long n = left.isEmpty() ? 0 : left.get(0).getLong("n");
            if (n == 0) {
                if (rounds > 1) {
                    LOG.info("Exactly-once state table {}: {} DELETE statements to remove the rows of one (the "
                            + "server's KeeperMap deletes at most one block of rows per DELETE: ClickHouse before "
                            + "#112777)", table.quoted(), rounds);
                }
                return rounds;
            }
            if (n >= before) {
                throw new IllegalStateException("Exactly-once state table " + table.quoted() + ": " + n + " rows still "
                        + "match after " + rounds + " DELETE statements (" + before + " before the last); the "
                        + "state table cannot be cleaned");
            }
            before = n;
        }
    }

    /** What {@link #reset} did to one partition. */
    public static final class Reset {
        /** How many recorded blocks of the partition were deleted. */
        public final long deletedBlocks;
        public final long previousEpoch;
        public final long epoch;

        Reset(long deletedBlocks, long previousEpoch, long epoch) {
            this.deletedBlocks = deletedBlocks;
            this.previousEpoch = previousEpoch;
            this.epoch = epoch;
        }
    }

    /**
     * The partitions' offsets are being altered or reset through Connect's REST API (the connector is stopped):
     * the records consumed next are to be inserted again, whatever was inserted before. For each partition, first
     * a new epoch is written ({@link #nextEpoch}: it only grows), then the partition's recorded blocks and its handled
     * mark are deleted, so that no earlier block is rebuilt with its old token, no new block gets a token of before,
     * and no record below the old mark is taken for one written before ({@link HandledOffsets}). Either step
     * may fail (an exception); a repeated call completes the work, and a partial one is harmless: a higher epoch
     * with the blocks still recorded is what a task would see had it never been reset.
     *
     * <p>The epoch is a marker row of the partition with {@code first_offset = last_offset = -1} and the epoch in
     * {@code first_timestamp}: {@link #load} tells it by its first offset and pruning keeps rows with a negative
     * {@code first_offset}; in a ReplacingMergeTree its
     * {@code recorded_at} is {@value #MARKER_RECORDED_AT}, so the 30-day TTL never removes it.
     */
    public Map<TopicPartition, Reset> reset(Collection<TopicPartition> partitions, long nowMs) {
        Map<TopicPartition, Reset> out = new LinkedHashMap<>();
        if (partitions.isEmpty()) {
            return out;
        }
        Map<String, Object> p = new HashMap<>();
        p.put("connector", connector);
        p.put("keys", keys(partitions));
        String which = " WHERE connector = {connector:String} AND has(splitByChar(',', {keys:String}), "
                + "concat(topic, '/', toString(partition)))";
        Map<TopicPartition, long[]> found = new HashMap<>(); // blocks, epoch
        for (GenericRecord r : client.queryAll("SELECT topic, partition, countIf(first_offset >= 0) AS blocks, "
                + "maxIf(first_timestamp, first_offset = " + MARKER_OFFSET + ") AS epoch FROM " + table.quoted()
                + (keeperMap ? "" : " FINAL") + which + " GROUP BY topic, partition", p, readSettings())) {
            found.put(new TopicPartition(r.getString("topic"), r.getInteger("partition")),
                    new long[] {r.getLong("blocks"), r.getLong("epoch")});
        }
        for (TopicPartition tp : partitions) {
            long[] f = found.getOrDefault(tp, new long[2]);
            long epoch = nextEpoch(f[1], nowMs);
            write(tp, MARKER_OFFSET, MARKER_OFFSET, "", "", 0, epoch, MARKER_TOKEN, true);
            out.put(tp, new Reset(f[0], f[1], epoch));
        }
        deleteAll(which + " AND first_offset != " + MARKER_OFFSET, p);
        return out;
    }

    /**
     * The epoch after a reset: the reset's time in milliseconds, or the previous epoch + 1 if that is not larger.
     * It only grows, and since it is a clock reading, even a marker lost by hand (a truncated or re-created state
     * table) cannot make a later reset reuse an epoch of earlier tokens.
     */
    static long nextEpoch(long previous, long nowMs) {
        return Math.max(previous + 1, nowMs);
    }

    /** {@code topic/partition,...}: topic names are made of [a-zA-Z0-9._-], so neither separator is ambiguous. */
    static String keys(Collection<TopicPartition> partitions) {
        StringBuilder b = new StringBuilder();
        for (TopicPartition tp : partitions) {
            b.append(b.length() == 0 ? "" : ",").append(tp.topic()).append('/').append(tp.partition());
        }
        return b.toString();
    }

    private QuerySettings readSettings() {
        QuerySettings s = new QuerySettings();
        if (!keeperMap) {
            s.serverSetting("select_sequential_consistency", "1"); // replicated state tables: see the latest write
        }
        return s;
    }

    private static void run(Client client, String sql, Map<String, Object> params) {
        CommandSettings s = new CommandSettings();
        s.serverSetting("async_insert", "0");
        s.serverSetting("insert_deduplicate", "0"); // a manifest written again (a retry) is simply the latest
        Commands.run(client, sql, params, s, TIMEOUT_S);
    }

    private static String literal(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    private static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
