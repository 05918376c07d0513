package io.chsink.connect.evolve;

import io.chsink.connect.cluster.ClusterView;
import io.chsink.connect.cluster.DistributedTable;
import io.chsink.connect.cluster.ShardTable;
import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.mapping.SchemaMemo;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import io.chsink.connect.schema.TableSchemaSource;
import io.chsink.connect.writer.InsertFailure;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * auto.create and/or auto.evolve: a missing table is created from its first row's value schema (and key schema);
 * a row whose value schema has fields the table lacks gets them added, as Nullable columns for optional fields and
 * DEFAULT columns for fields with a default. Never drops, renames or retypes a column. Statements go through
 * {@link DdlRunner} (logged, re-read, retried on races).
 */
public final class FollowingTables implements TableEvolution {
    private static final Logger LOG = LoggerFactory.getLogger(FollowingTables.class);

    /** How created tables look: engine, sorting key, settings, cluster, and the cdc.mode=debezium columns. */
    public static final class Options {
        final String engine;
        final List<String> orderBy;
        final Map<String, String> settings;
        final String cluster;
        /** cdc.mode=debezium: the version and deleted columns, else null. */
        final String versionColumn;
        final String deletedColumn;
        /** The version column's type: UInt64, or UInt128 with cdc.version.bits=128. */
        String versionType = "UInt64";

        /**
         * @param engine the engine text, or empty for MergeTree (cdc: ReplacingMergeTree(version, deleted))
         * @param versionColumn with {@code deletedColumn}: the cdc.mode=debezium columns, or null without CDC
         */
        public Options(String engine, List<String> orderBy, Map<String, String> settings, String cluster,
                String versionColumn, String deletedColumn) {
            this.engine = engine == null ? "" : engine.trim();
            this.orderBy = orderBy;
            this.settings = settings;
            this.cluster = cluster;
            this.versionColumn = versionColumn;
            this.deletedColumn = deletedColumn;
        }

        boolean cdc() {
            return versionColumn != null;
        }

        /** cdc.version.bits=128: the version column is UInt128. */
        public Options withVersionBits(int bits) {
            versionType = bits == 128 ? "UInt128" : "UInt64";
            return this;
        }

        String engine() {
            if (!engine.isEmpty()) {
                return engine;
            }
            return cdc() ? TableDdl.replacingEngine(versionColumn, deletedColumn) : "MergeTree";
        }
    }

    private final boolean create;
    private final boolean evolve;
    private final Options options;
    private final ConnectTypes types;
    private final DdlRunner runner;
    private final TableSchemaSource tables;
    private ClusterView clusters = ClusterView.NONE;
    /** Per mapping seen, the value schemas whose new fields cannot be added, with the reason. */
    private final Map<TableMapping, SchemaMemo<String>> rejected = new WeakHashMap<>();
    private final Set<String> warnedKeys = new HashSet<>();

    public FollowingTables(boolean create, boolean evolve, Options options, ConnectTypes types, DdlRunner runner,
            TableSchemaSource tables) {
        this.create = create;
        this.evolve = evolve;
        this.options = options;
        this.types = types;
        this.runner = runner;
        this.tables = tables;
    }

    /** Where Distributed targets are read from (auto.evolve adds their columns to the shards' local tables first). */
    public FollowingTables withClusters(ClusterView clusters) {
        this.clusters = clusters;
        return this;
    }

    @Override
    public boolean createsTables() {
        return create;
    }

    @Override
    public String name() {
        return create && evolve ? "create+evolve" : create ? "create" : "evolve";
    }

    @Override
    public boolean mustEvolve(TableMapping mapping, SinkRecord row) {
        Object v = row.value();
        return evolve && v instanceof Struct && mapping.lacksColumnsFor(((Struct) v).schema());
    }

    @Override
    public TableSchema create(TableId table, SinkRecord row) {
        if (!(row.value() instanceof Struct)) {
            throw new RecordMappingException(String.format("Cannot write record topic=%s partition=%d offset=%d: "
                    + "table %s does not exist, and auto.create cannot create it from topic '%s': the record has no "
                    + "value schema (schemaless JSON, or a converter without schemas), so the column types are "
                    + "unknown. Create the table, or use a converter with schemas.", Origin.topic(row),
                    Origin.partition(row), Origin.offset(row), table.quoted(), row.topic()));
        }
        String sql = createStatement(table, row);
        return runner.run(sql, table, s -> s != null, "auto.create of " + table + " for topic '" + row.topic() + "'");
    }

    /** The CREATE TABLE statement for the row's schemas (a bad record when they cannot make a table). */
    String createStatement(TableId table, SinkRecord row) {
        Schema schema = ((Struct) row.value()).schema();
        List<TableDdl.Column> columns = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Field f : schema.fields()) {
            if (TableMapping.isMetadataName(f.name())) {
                continue; // a column of that name would take the record's metadata, not the field
            }
            try {
                columns.add(column(f));
            } catch (ConnectTypes.Unmappable e) {
                throw new RecordMappingException(String.format("Cannot write record topic=%s partition=%d "
                        + "offset=%d: auto.create cannot create table %s: field '%s' (Connect %s): %s",
                        Origin.topic(row), Origin.partition(row), Origin.offset(row), table.quoted(), f.name(),
                        describe(f.schema()), e.getMessage()));
            }
            names.add(f.name());
        }
        if (options.cdc()) {
            // The rows of cdc.mode=debezium carry both; a row shape without them still gets a valid engine.
            for (String c : new String[] {options.versionColumn, options.deletedColumn}) {
                if (names.add(c)) {
                    columns.add(new TableDdl.Column(c, c.equals(options.versionColumn) ? options.versionType : "UInt8",
                            "0"));
                }
            }
        }
        if (columns.isEmpty()) {
            throw new RecordMappingException(String.format("Cannot write record topic=%s partition=%d offset=%d: "
                    + "auto.create cannot create table %s: the value schema has no field that makes a column",
                    Origin.topic(row), Origin.partition(row), Origin.offset(row), table.quoted()));
        }
        List<String> orderBy = orderBy(row, columns, table);
        if (options.cdc() && orderBy.isEmpty()) {
            throw new RecordMappingException(String.format("Cannot write record topic=%s partition=%d offset=%d: "
                    + "auto.create cannot create table %s for cdc.mode=debezium: a ReplacingMergeTree must be "
                    + "ordered by the primary key, and the record key of topic '%s' is no Struct whose fields are "
                    + "columns. Set auto.create.order.by.", Origin.topic(row), Origin.partition(row), Origin.offset(row),
                    table.quoted(), row.topic()));
        }
        return TableDdl.createTable(table, options.cluster, columns, options.engine(), orderBy, options.settings);
    }

    /** auto.create.order.by, else the record key's fields that are non-Nullable sortable columns, else none. */
    private List<String> orderBy(SinkRecord row, List<TableDdl.Column> columns, TableId table) {
        if (!options.orderBy.isEmpty()) {
            if (options.cdc() && row.keySchema() != null && row.keySchema().type() == Schema.Type.STRUCT) {
                // A ReplacingMergeTree keeps one row per sorting key: it must contain the source's primary key.
                List<String> lacking = new ArrayList<>();
                for (Field f : row.keySchema().fields()) {
                    if (!options.orderBy.contains(f.name())) {
                        lacking.add(f.name());
                    }
                }
                if (!lacking.isEmpty()) {
                    throw new RecordMappingException(String.format("Cannot write record topic=%s partition=%d "
                            + "offset=%d: auto.create cannot create table %s for cdc.mode=debezium ordered by %s "
                            + "(auto.create.order.by): it lacks the record key's field(s) %s, so rows of different "
                            + "keys would replace each other. Add them to auto.create.order.by, or leave it empty "
                            + "to order by the key.", Origin.topic(row), Origin.partition(row), Origin.offset(row),
                            table.quoted(), options.orderBy, lacking));
                }
            }
            return options.orderBy;
        }
        Schema key = row.keySchema();
        if (key == null || key.type() != Schema.Type.STRUCT) {
            return Collections.emptyList();
        }
        List<String> out = new ArrayList<>();
        for (Field f : key.fields()) {
            TableDdl.Column c = null;
            for (TableDdl.Column x : columns) {
                if (x.name().equals(f.name())) {
                    c = x;
                }
            }
            if (c != null && sortable(c.type())) {
                out.add(f.name());
            } else if (options.cdc()) {
                throw new RecordMappingException(String.format("Cannot write record topic=%s partition=%d offset=%d: "
                        + "auto.create cannot create table %s for cdc.mode=debezium: key field '%s' is %s, so it "
                        + "cannot be part of ORDER BY, and a ReplacingMergeTree must be ordered by the whole key. "
                        + "Create the table yourself.", Origin.topic(row), Origin.partition(row), Origin.offset(row),
                        table.quoted(), f.name(), c == null ? "not a field of the value" : "of type " + c.type()));
            } else if (warnedKeys.add(table + "/" + f.name())) {
                LOG.warn("auto.create of {}: key field '{}' is {}, so it is not part of ORDER BY", table, f.name(),
                        c == null ? "not a field of the value" : "of type " + c.type());
            }
        }
        return out;
    }

    private static boolean sortable(String type) {
        return !(type.startsWith("Nullable(") || type.startsWith("Map(") || type.startsWith("JSON")
                || type.startsWith("Variant("));
    }

    @Override
    public TableSchema evolve(TableId table, TableMapping seen, SinkRecord row) {
        Schema schema = ((Struct) row.value()).schema();
        SchemaMemo<String> refused = rejected.computeIfAbsent(seen, m -> SchemaMemo.byIdentity());
        String reason = refused.get(schema);
        if (reason != null) {
            throw bad(row, table, reason);
        }
        List<TableDdl.Column> wanted = new ArrayList<>();
        for (Field f : seen.missingFields(schema)) {
            TableDdl.Column c;
            try {
                c = column(f);
            } catch (ConnectTypes.Unmappable e) {
                reason = "field '" + f.name() + "' (Connect " + describe(f.schema()) + ") has no ClickHouse column "
                        + "type: " + e.getMessage();
                refused.put(schema, reason);
                throw bad(row, table, reason);
            }
            if (!f.schema().isOptional() && c.defaultLiteral() == null) {
                reason = "field '" + f.name() + "' (Connect " + describe(f.schema()) + ") -> auto.evolve cannot add "
                        + "required column '" + f.name() + "' (ClickHouse type " + c.type() + ") without a default"
                        + (f.schema().defaultValue() != null ? " (its default has no ClickHouse literal: "
                                + DefaultLiterals.whyNot(f.schema(), f.schema().defaultValue()) + ")" : "")
                        + ": rows written before have no value for it. Make the field optional or give it a "
                        + "default, or add the column to the table yourself";
                refused.put(schema, reason);
                throw bad(row, table, reason);
            }
            wanted.add(c);
        }
        TableSchema current;
        try {
            current = tables.load(table);
        } catch (RuntimeException e) {
            current = seen.schema(); // the statement below re-reads; IF NOT EXISTS makes it safe either way
        }
        if (current == null) {
            if (create) {
                return create(table, row);
            }
            throw new ConnectException("Table " + table.quoted() + " for topic '" + row.topic() + "' no longer exists");
        }
        Set<String> there = new HashSet<>();
        for (TableColumn c : current.columns()) {
            there.add(c.name());
        }
        List<TableDdl.Column> add = new ArrayList<>();
        for (TableDdl.Column c : wanted) {
            if (!there.contains(c.name())) {
                add.add(c);
            }
        }
        if (add.isEmpty()) {
            return current; // another task or connector added them
        }
        DistributedTable d = clusters.read(table);
        if (d != null) {
            addToShards(d, add, row);
        }
        String sql = TableDdl.addColumns(table, options.cluster, add);
        return runner.run(sql, table, s -> s != null && hasAll(s, add), "auto.evolve of " + table + " for topic '"
                + row.topic() + "'");
    }

    /**
     * A Distributed target's columns are added to the local table on every shard first (ON CLUSTER the Distributed
     * table's cluster), then to the Distributed table. Shards that have them all already are left alone; when the
     * cluster cannot run the statement (no distributed DDL), the task stops with the statements to run.
     */
    private void addToShards(DistributedTable d, List<TableDdl.Column> add, SinkRecord row) {
        Map<Integer, ShardTable> shards = clusters.shardTables(d);
        boolean everywhere = shards.size() == d.shards().size();
        for (ShardTable t : shards.values()) {
            for (TableDdl.Column c : add) {
                everywhere &= t.columnTypes().containsKey(c.name());
            }
        }
        if (everywhere) {
            return;
        }
        TableId local = d.localTable(d.shards().get(0));
        String onCluster = TableDdl.addColumns(local, d.cluster(), add);
        try {
            runner.runOnce(onCluster, "auto.evolve of the local tables of " + d.table() + " on cluster '"
                    + d.cluster() + "' for topic '" + row.topic() + "'");
        } catch (RuntimeException e) {
            throw new ConnectException(d.describe() + ": auto.evolve could not add the record's new columns to the "
                    + "local tables on the shards (" + InsertFailure.classify(e).message() + "). Add them, then "
                    + "restart the task (the connector then adds them to the Distributed table): " + onCluster
                    + "; or, without distributed DDL, on every shard: " + TableDdl.addColumns(local, "", add), e);
        }
    }

    private static boolean hasAll(TableSchema s, List<TableDdl.Column> columns) {
        Set<String> names = new HashSet<>();
        for (TableColumn c : s.columns()) {
            names.add(c.name());
        }
        for (TableDdl.Column c : columns) {
            if (!names.contains(c.name())) {
                return false;
            }
        }
        return true;
    }

    /** The column made for a field: its type (cdc.mode=debezium: UInt64 version, UInt8 deleted) and default. */
    TableDdl.Column column(Field f) {
        if (options.cdc() && f.name().equals(options.versionColumn)) {
            return new TableDdl.Column(f.name(), options.versionType, null);
        }
        if (options.cdc() && f.name().equals(options.deletedColumn)) {
            return new TableDdl.Column(f.name(), "UInt8", null);
        }
        Schema s = f.schema();
        return new TableDdl.Column(f.name(), types.columnType(s), DefaultLiterals.of(s, s.defaultValue()));
    }

    private static String describe(Schema s) {
        return (s.name() != null ? s.name() : s.type().toString()) + (s.isOptional() ? ", optional" : ", required")
                + (s.defaultValue() != null ? ", with a default" : ", no default");
    }

    private static RecordMappingException bad(SinkRecord row, TableId table, String reason) {
        return new RecordMappingException(String.format("Cannot write record topic=%s partition=%d offset=%d into "
                + "table %s: %s", Origin.topic(row), Origin.partition(row), Origin.offset(row), table, reason));
    }
}
