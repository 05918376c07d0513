package io.chsink.connect.writer;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import io.chsink.connect.schema.TableId;
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
    private static final String COLUMNS_SQL = "SELECT name, type FROM system.columns "
            + "WHERE database = {db:String} AND table = {tbl:String} ORDER BY position";

    /** Reads a table's engine; in tests a fixed answer. */
    public interface EngineSource {
        /** {engine, engine_full} of the table and its column types, or null when the table is missing. */
        Engine read(TableId table);
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

    /** @param perTable the delivery's inserts per table in flight ({@code Delivery.insertsPerTable()}) */
    public InsertLimits(Client client, int perTable) {
        this(table -> read(client, table), perTable);
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
            e = source.read(table);
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

    private static Engine read(Client client, TableId table) {
        Map<String, Object> p = new HashMap<>();
        p.put("db", table.database());
        p.put("tbl", table.table());
        List<GenericRecord> rows = client.queryAll(ENGINE_SQL, p);
        if (rows.isEmpty()) {
            return null;
        }
        String engine = rows.get(0).getString("engine");
        Map<String, String> types = new LinkedHashMap<>();
        if (InsertOrder.needsColumns(engine)) {
            for (GenericRecord c : client.queryAll(COLUMNS_SQL, p)) {
                types.put(c.getString("name"), c.getString("type"));
            }
        }
        return new Engine(engine, rows.get(0).getString("engine_full"), types);
    }
}
