package io.chsink.connect.writer;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import io.chsink.connect.cluster.ClusterReader;
import io.chsink.connect.cluster.DistributedTable;
import io.chsink.connect.cluster.ShardTable;
import io.chsink.connect.schema.HexNames;
import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many inserts of each table the {@link InsertPipeline} may have in flight: the delivery's number, or one for a
 * table whose engine makes the order of inserts part of the data ({@link InsertOrder}), so that a partition's
 * blocks land in the order they were written. The engine is read from {@code system.tables} when the task loads
 * the table ({@link #checkTable}); a table not checked yet gets the delivery's number.
 *
 * <p>Only the task thread calls this class.
 */
public final class InsertLimits implements ToIntFunction<TableId> {
    private static final Logger LOG = LoggerFactory.getLogger(InsertLimits.class);
    private static final String ENGINE_SQL = "SELECT engine, engine_full FROM system.tables "
            + "WHERE database = {db:String} AND name = {tbl:String}";
    private static final String ENGINES_SQL = "SELECT name, engine, engine_full FROM system.tables "
            + "WHERE database = {db:String} AND has(" + HexNames.sql("tbls") + ", name)";
    private static final String COLUMNS_SQL = "SELECT name, type FROM system.columns "
            + "WHERE database = {db:String} AND table = {tbl:String} ORDER BY position";

    /** Reads a table's engine; in tests a fixed answer. */
    public interface EngineSource {
        /** {engine, engine_full} of the table and its column types, or null when the table is missing. */
        Engine read(TableId table);

        /** The engines of several tables, each a key (null: missing); one read where the source can. */
        default Map<TableId, Engine> readAll(Collection<TableId> tables) {
            Map<TableId, Engine> out = new HashMap<>();
            for (TableId t : tables) {
                out.put(t, read(t));
            }
            return out;
        }
    }

    /** What system.tables and system.columns say about a table. */
    public static final class Engine {
        final String engine;
        final String engineFull;
        final Map<String, String> columnTypes;

        /** @param columnTypes column name to type; needed only for {@link InsertOrder#needsColumns} engines */
        public Engine(String engine, String engineFull, Map<String, String> columnTypes) {
            this.engine = engine;
            this.engineFull = engineFull;
            this.columnTypes = columnTypes;
        }
    }

    private final EngineSource source;
    private final int perTable;
    private final Map<TableId, Integer> ordered = new HashMap<>();
    /** Engines read ahead by {@link #prefetch}, taken by {@link #checkTable}. */
    private final Map<TableId, Engine> prefetched = new HashMap<>();

    /** @param perTable the delivery's inserts per table in flight ({@code Delivery.insertsPerTable()}) */
    public InsertLimits(Client client, int perTable) {
        this(new EngineSource() {
            @Override
            public Engine read(TableId table) {
                return InsertLimits.read(client, table);
            }

            @Override
            public Map<TableId, Engine> readAll(Collection<TableId> tables) {
                return InsertLimits.readAll(client, tables);
            }
        }, perTable);
    }

    public InsertLimits(EngineSource source, int perTable) {
        this.source = source;
        this.perTable = perTable;
    }

    @Override
    public int applyAsInt(TableId table) {
        return ordered.getOrDefault(table, perTable);
    }

    /**
     * Decides the table's limit from its engine (when the delivery allows more than one insert in flight) and logs
     * it. A table whose engine cannot be read gets one insert in flight: slower, never out of order.
     */
    public void checkTable(TableId table) {
        if (perTable <= 1) {
            return; // already in order (exactly_once)
        }
        Engine e;
        try {
            e = prefetched.containsKey(table) ? prefetched.remove(table) : source.read(table);
        } catch (RuntimeException ex) {
            ordered.put(table, 1);
            LOG.warn("Could not read the engine of table {}: one insert in flight at a time for it, in case its "
                    + "engine needs its blocks in order: {}", table, ex.getMessage());
            return;
        }
        if (e == null) {
            ordered.remove(table);
            return; // a missing table is reported elsewhere
        }
        String why = InsertOrder.reason(e.engine, e.engineFull, e.columnTypes);
        String engine = InsertOrder.clause(e.engine, e.engineFull);
        if (why != null) {
            ordered.put(table, 1);
            LOG.info("Table {} has engine {}: one insert in flight at a time, so that a partition's blocks land in "
                    + "order ({})", table, engine, why);
        } else {
            ordered.remove(table);
            LOG.info("Table {} has engine {}: up to {} inserts in flight at a time (the order of inserts does not "
                    + "change what it keeps)", table, engine, perTable);
        }
    }

    /**
     * Reads the engines of tables about to be checked in one query (a task of many tables starts with one, not one
     * per table); a failure leaves each table to be read on its own by {@link #checkTable}.
     */
    public void prefetch(Collection<TableId> tables) {
        if (perTable <= 1 || tables.size() < 2) {
            return;
        }
        try {
            prefetched.putAll(source.readAll(tables));
        } catch (RuntimeException e) {
            LOG.debug("Could not read the engines of {} tables at once: {}", tables.size(), e.getMessage());
        }
    }

    private static Map<TableId, Engine> readAll(Client client, Collection<TableId> tables) {
        Map<String, List<TableId>> byDatabase = new LinkedHashMap<>();
        for (TableId t : tables) {
            byDatabase.computeIfAbsent(t.database(), d -> new java.util.ArrayList<>()).add(t);
        }
        Map<TableId, Engine> out = new HashMap<>();
        for (Map.Entry<String, List<TableId>> db : byDatabase.entrySet()) {
            List<String> names = new java.util.ArrayList<>();
            db.getValue().forEach(t -> names.add(t.table()));
            Map<String, Object> p = new HashMap<>();
            p.put("db", db.getKey());
            p.put("tbls", HexNames.of(names));
            Map<String, GenericRecord> byName = new HashMap<>();
            for (GenericRecord r : client.queryAll(ENGINES_SQL, p)) {
                byName.put(r.getString("name"), r);
            }
            for (TableId t : db.getValue()) {
                GenericRecord r = byName.get(t.table());
                if (r == null) {
                    out.put(t, null);
                } else if ("Distributed".equals(r.getString("engine"))
                        || InsertOrder.needsColumns(r.getString("engine"))) {
                    out.put(t, read(client, t)); // its column types too: rare engines, read on their own
                } else {
                    out.put(t, new Engine(r.getString("engine"), r.getString("engine_full"), Map.of()));
                }
            }
        }
        return out;
    }

    private static Engine read(Client client, TableId table) {
        Map<String, Object> p = new HashMap<>();
        p.put("db", table.database());
        p.put("tbl", table.table());
        List<GenericRecord> rows = client.queryAll(ENGINE_SQL, p);
        if (rows.isEmpty()) {
            return null;
        }
        String engine = rows.get(0).getString("engine");
        if ("Distributed".equals(engine)) {
            return localEngine(client, table);
        }
        Map<String, String> types = new LinkedHashMap<>();
        if (InsertOrder.needsColumns(engine)) {
            for (GenericRecord c : client.queryAll(COLUMNS_SQL, p)) {
                types.put(c.getString("name"), c.getString("type"));
            }
        }
        return new Engine(engine, rows.get(0).getString("engine_full"), types);
    }

    /**
     * A Distributed table's blocks land in its shards' local tables: their engine decides. The first shard that has
     * the table answers (the shards of one table have one engine; a shard without it is reported elsewhere).
     */
    private static Engine localEngine(Client client, TableId table) {
        DistributedTable d = ClusterReader.read(client, table);
        if (d == null) {
            return null; // dropped or re-created meanwhile: read again at its next load
        }
        for (ShardTable shard : ClusterReader.shardTables(client, d).values()) {
            return new Engine(shard.engine(), shard.engineFull(), shard.columnTypes());
        }
        return new Engine("Distributed", "Distributed", Map.of());
    }
}
