package io.chsink.connect.exactlyonce;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.command.CommandResponse;
import com.clickhouse.client.api.command.CommandSettings;
import com.clickhouse.client.api.query.GenericRecord;
import com.clickhouse.client.api.query.QuerySettings;
import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.writer.InsertFailure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
public final class StateStore {
    private static final Logger LOG = LoggerFactory.getLogger(StateStore.class);
    private static final long TIMEOUT_S = 60;
    private static final String COLUMNS = "connector String, topic String, partition Int32, first_offset Int64, "
            + "last_offset Int64, target_database String, target_table String, rows UInt32, first_timestamp Int64, "
            + "token String, version UInt64";

    private final Client client;
    private final TableId table;
    private final String connector;
    private final boolean keeperMap;

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
        return new StateStore(client, table, connector, km);
    }

    private static String engineOf(Client client, TableId table) {
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
            run(client, "CREATE TABLE IF NOT EXISTS " + table.quoted() + " (" + COLUMNS + ", recorded_at DateTime "
                    + "DEFAULT now()) ENGINE = ReplacingMergeTree(version) ORDER BY (connector, topic, partition, "
                    + "first_offset) TTL recorded_at + INTERVAL 30 DAY", null);
        }
        String engine = engineOf(client, table);
        if (engine == null) {
            throw new IllegalStateException("Exactly-once state table " + table.quoted() + " is not there after CREATE");
        }
        return engine;
    }

    /** Writes the manifest; returns when the server has acknowledged it. */
    public void record(BlockManifest m) {
        Map<String, Object> p = new HashMap<>();
        p.put("connector", connector);
        p.put("topic", m.partition().topic());
        p.put("partition", m.partition().partition());
        p.put("first", m.firstOffset());
        p.put("last", m.lastOffset());
        p.put("db", m.table().database());
        p.put("tbl", m.table().table());
        p.put("rows", m.rows());
        p.put("ts", m.firstTimestamp());
        p.put("token", m.token());
        String values = "{connector:String}, {topic:String}, {partition:Int32}, {first:Int64}, {last:Int64}, "
                + "{db:String}, {tbl:String}, {rows:UInt32}, {ts:Int64}, {token:String}, "
                + "toUnixTimestamp64Nano(now64(9))";
        String sql = keeperMap
                ? "INSERT INTO " + table.quoted() + " SELECT concat({connector:String}, '/', {topic:String}, '/', "
                        + "toString({partition:Int32}), '/', toString({first:Int64})), " + values
                : "INSERT INTO " + table.quoted() + " (connector, topic, partition, first_offset, last_offset, "
                        + "target_database, target_table, rows, first_timestamp, token, version) SELECT " + values;
        run(client, sql, p);
    }

    /**
     * The recorded blocks of a partition whose range ends at or after {@code fromOffset} (the first offset
     * redelivered), in offset order: the ones that may not be committed yet.
     */
    public List<BlockManifest> load(TopicPartition tp, long fromOffset) {
        Map<String, Object> p = new HashMap<>();
        p.put("connector", connector);
        p.put("topic", tp.topic());
        p.put("partition", tp.partition());
        p.put("from", fromOffset);
        QuerySettings s = new QuerySettings();
        if (!keeperMap) {
            s.serverSetting("select_sequential_consistency", "1"); // replicated state tables: see the latest write
        }
        List<GenericRecord> rows = client.queryAll("SELECT first_offset, last_offset, target_database, "
                + "target_table, rows, first_timestamp, token FROM " + table.quoted() + (keeperMap ? "" : " FINAL")
                + " WHERE connector = {connector:String} AND topic = {topic:String} AND partition = {partition:Int32}"
                + " AND last_offset >= {from:Int64} ORDER BY first_offset", p, s);
        List<BlockManifest> out = new ArrayList<>(rows.size());
        for (GenericRecord r : rows) {
            out.add(new BlockManifest(new TableId(r.getString("target_database"), r.getString("target_table")), tp,
                    r.getLong("first_offset"), r.getLong("last_offset"), (int) r.getLong("rows"),
                    r.getLong("first_timestamp"), r.getString("token")).markRecorded());
        }
        if (keeperMap) {
            prune(tp, fromOffset);
        }
        return out;
    }

    /** KeeperMap has no TTL: blocks wholly before the first redelivered offset are committed and go. */
    private void prune(TopicPartition tp, long fromOffset) {
        Map<String, Object> p = new HashMap<>();
        p.put("connector", connector);
        p.put("topic", tp.topic());
        p.put("partition", tp.partition());
        p.put("from", fromOffset);
        try {
            run(client, "DELETE FROM " + table.quoted() + " WHERE connector = {connector:String} AND "
                    + "topic = {topic:String} AND partition = {partition:Int32} AND last_offset < {from:Int64}", p);
        } catch (RuntimeException e) {
            LOG.warn("Could not prune committed blocks of {} from {}: {}", tp, table.quoted(), firstLine(e));
        }
    }

    private static void run(Client client, String sql, Map<String, Object> params) {
        CommandSettings s = new CommandSettings();
        s.serverSetting("async_insert", "0");
        s.serverSetting("insert_deduplicate", "0"); // a manifest written again (a retry) is simply the latest
        try (CommandResponse r = (params == null ? client.execute(sql, s) : client.execute(sql, params, s))
                .get(TIMEOUT_S, TimeUnit.SECONDS)) {
            // acknowledged
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (Exception e) {
            Throwable c = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw c instanceof RuntimeException ? (RuntimeException) c : new IllegalStateException(c.getMessage(), c);
        }
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
