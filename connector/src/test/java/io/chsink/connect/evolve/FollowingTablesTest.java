package io.chsink.connect.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.clickhouse.client.api.ServerException;
import io.chsink.connect.cluster.ClusterView;
import io.chsink.connect.cluster.DistributedEngine;
import io.chsink.connect.cluster.DistributedTable;
import io.chsink.connect.cluster.Shard;
import io.chsink.connect.cluster.ShardTable;
import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import io.chsink.connect.writer.RetryPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * The decisions of auto.create and auto.evolve, with a stand-in for ClickHouse: statements are recorded, and the
 * table the connector reads afterwards is what the test says the server would show.
 */
class FollowingTablesTest {
    private static final TableId T = new TableId("default", "orders");

    private final List<String> statements = new ArrayList<>();
    private final Map<TableId, TableSchema> server = new HashMap<>();
    /** What the table looks like once the next statement ran (null: unchanged). */
    private TableSchema afterStatement;
    private RuntimeException statementFails;
    private int reads;

    private final DdlRunner runner = new DdlRunner((sql, variants) -> {
        statements.add(sql);
        if (statementFails != null) {
            RuntimeException e = statementFails;
            statementFails = null;
            throw e;
        }
        if (afterStatement != null) {
            server.put(T, afterStatement);
        }
    }, t -> {
        reads++;
        return server.get(t);
    }, new RetryPolicy(10, 2_000));

    private FollowingTables tables(boolean create, boolean evolve, FollowingTables.Options o) {
        return new FollowingTables(create, evolve, o, new ConnectTypes(ConnectTypes.StructAs.TUPLE), runner,
                t -> {
                    reads++;
                    return server.get(t);
                });
    }

    private static FollowingTables.Options plain() {
        return new FollowingTables.Options("", List.of(), Map.of(), "", null, null);
    }

    private static TableSchema schema(String... nameAndType) {
        List<TableColumn> cols = new ArrayList<>();
        for (int i = 0; i < nameAndType.length; i += 2) {
            cols.add(new TableColumn(nameAndType[i], ClickHouseType.parse(nameAndType[i + 1]),
                    TableColumn.DefaultKind.NONE));
        }
        return new TableSchema(T, cols);
    }

    private static SinkRecord record(Schema keySchema, Object key, Struct value) {
        return new SinkRecord("orders", 2, keySchema, key, value.schema(), value, 41);
    }

    private static final Schema V1 = SchemaBuilder.struct().name("order")
            .field("id", Schema.INT64_SCHEMA)
            .field("note", Schema.OPTIONAL_STRING_SCHEMA)
            .field("amount", Decimal.builder(2).parameter("connect.decimal.precision", "12").build())
            .field("at", Timestamp.SCHEMA)
            .build();
    private static final Schema KEY = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build();

    private static Struct v1(long id) {
        return new Struct(V1).put("id", id).put("amount", new java.math.BigDecimal("1.25"))
                .put("at", new java.util.Date(0));
    }

    @Test
    void aTableIsCreatedFromTheValueSchemaOrderedByTheKeyFields() {
        afterStatement = schema("id", "Int64");
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("non_replicated_deduplication_window", "1000");
        FollowingTables f = tables(true, false, new FollowingTables.Options("", List.of(), settings, "", null, null));
        TableSchema s = f.create(T, record(KEY, new Struct(KEY).put("id", 7L), v1(7)));
        assertEquals(List.of("CREATE TABLE IF NOT EXISTS `default`.`orders` (`id` Int64, `note` Nullable(String), "
                + "`amount` Decimal(12, 2), `at` DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY (`id`) SETTINGS "
                + "`non_replicated_deduplication_window` = 1000"), statements);
        assertEquals(afterStatement, s);
        assertTrue(f.createsTables());
    }

    @Test
    void withoutAStructKeyTheTableIsOrderedByTupleOrByTheConfiguredColumns() {
        afterStatement = schema("id", "Int64");
        tables(true, false, plain()).create(T, record(Schema.STRING_SCHEMA, "k", v1(1)));
        assertTrue(statements.get(0).endsWith("ENGINE = MergeTree ORDER BY tuple()"), statements.get(0));
        tables(true, false, new FollowingTables.Options("ReplicatedMergeTree", List.of("at", "id"), Map.of(), "c1",
                null, null)).create(T, record(KEY, new Struct(KEY).put("id", 1L), v1(1)));
        assertTrue(statements.get(1).startsWith("CREATE TABLE IF NOT EXISTS `default`.`orders` ON CLUSTER `c1` ("),
                statements.get(1));
        assertTrue(statements.get(1).endsWith("ENGINE = ReplicatedMergeTree ORDER BY (`at`, `id`)"), statements.get(1));
    }

    @Test
    void schemalessRecordsCannotCreateATable() {
        Map<String, Object> value = new HashMap<>();
        value.put("id", 1L);
        SinkRecord r = new SinkRecord("orders", 0, null, null, null, value, 5);
        RecordMappingException e = assertThrows(RecordMappingException.class,
                () -> tables(true, true, plain()).create(T, r));
        assertTrue(e.getMessage().contains("topic 'orders'") && e.getMessage().contains("`default`.`orders`")
                && e.getMessage().contains("no value schema") && e.getMessage().contains("offset=5"), e.getMessage());
        assertTrue(statements.isEmpty());
        assertFalse(tables(true, true, plain()).mustEvolve(new TableMapping(schema("id", "Int64")), r),
                "schemaless rows never evolve a table");
    }

    @Test
    void cdcTablesAreReplacingMergeTreesOrderedByThePrimaryKey() {
        Schema row = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).field("name", Schema.OPTIONAL_STRING_SCHEMA)
                .field("_version", Schema.INT64_SCHEMA).field("_is_deleted", Schema.INT8_SCHEMA).build();
        Schema key = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();
        Struct value = new Struct(row).put("id", 1).put("_version", 5L).put("_is_deleted", (byte) 0);
        afterStatement = schema("id", "Int32");
        FollowingTables.Options cdc = new FollowingTables.Options("", List.of(), Map.of(), "", "_version",
                "_is_deleted");
        tables(true, false, cdc).create(T, new SinkRecord("orders", 0, key, new Struct(key).put("id", 1), row, value, 0));
        assertEquals("CREATE TABLE IF NOT EXISTS `default`.`orders` (`id` Int32, `name` Nullable(String), "
                + "`_version` UInt64, `_is_deleted` UInt8) ENGINE = ReplacingMergeTree(`_version`, `_is_deleted`) "
                + "ORDER BY (`id`)", statements.get(0));
        RecordMappingException e = assertThrows(RecordMappingException.class, () -> tables(true, false, cdc)
                .create(T, new SinkRecord("orders", 0, null, null, row, value, 0)));
        assertTrue(e.getMessage().contains("auto.create.order.by"), e.getMessage());
    }

    @Test
    void optionalFieldsAndFieldsWithDefaultsBecomeColumns() {
        TableMapping seen = new TableMapping(schema("id", "Int64"));
        Schema v2 = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA)
                .field("note", Schema.OPTIONAL_STRING_SCHEMA)
                .field("region", SchemaBuilder.string().defaultValue("e'u").build())
                .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
                .field("_offset", Schema.OPTIONAL_INT64_SCHEMA) // metadata names are never added
                .build();
        SinkRecord r = record(null, null, new Struct(v2).put("id", 1L).put("region", "x"));
        server.put(T, schema("id", "Int64"));
        afterStatement = schema("id", "Int64", "note", "Nullable(String)", "region", "String", "tags", "Array(String)");
        FollowingTables f = tables(false, true, plain());
        assertTrue(f.mustEvolve(seen, r));
        TableSchema after = f.evolve(T, seen, r);
        assertEquals(List.of("ALTER TABLE `default`.`orders` ADD COLUMN IF NOT EXISTS `note` Nullable(String), "
                + "ADD COLUMN IF NOT EXISTS `region` String DEFAULT 'e\\'u', ADD COLUMN IF NOT EXISTS `tags` "
                + "Array(String)"), statements);
        assertEquals(4, after.columns().size());
        assertFalse(f.mustEvolve(new TableMapping(after), r), "the new table takes the row");
        assertFalse(tables(true, false, plain()).mustEvolve(seen, r), "auto.evolve off: never");
        assertFalse(new FixedTables().mustEvolve(seen, r));
    }

    /** A Distributed `default`.`orders` over cluster 'two' of local tables `default`.`orders_local`. */
    private static final class TwoShards implements ClusterView {
        final Map<Integer, ShardTable> shards = new HashMap<>();
        final DistributedTable d = new DistributedTable(T,
                DistributedEngine.parse("Distributed('two', 'default', 'orders_local', cityHash64(id))"),
                List.of(new Shard(1, 1, "h1", 9000, ""), new Shard(2, 1, "h2", 9000, "")), Set.of(),
                "distributed_foreground_insert");

        void shard(int n, String... columns) {
            Map<String, String> types = new LinkedHashMap<>();
            for (int i = 0; i < columns.length; i += 2) {
                types.put(columns[i], columns[i + 1]);
            }
            shards.put(n, new ShardTable(d.shards().get(n - 1), new TableId("default", "orders_local"), "MergeTree",
                    "MergeTree ORDER BY id", "", "id", "", types, Map.of()));
        }

        @Override
        public DistributedTable read(TableId table) {
            return table.equals(T) ? d : null;
        }

        @Override
        public Map<Integer, ShardTable> shardTables(DistributedTable t) {
            return shards;
        }
    }

    private static final Schema WITH_NOTE = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA)
            .field("note", Schema.OPTIONAL_STRING_SCHEMA).build();

    @Test
    void aDistributedTargetGetsItsColumnsOnTheShardsFirstOnCluster() {
        TwoShards cluster = new TwoShards();
        cluster.shard(1, "id", "Int64");
        cluster.shard(2, "id", "Int64");
        server.put(T, schema("id", "Int64"));
        afterStatement = schema("id", "Int64", "note", "Nullable(String)");
        tables(false, true, plain()).withClusters(cluster).evolve(T, new TableMapping(schema("id", "Int64")),
                record(null, null, new Struct(WITH_NOTE).put("id", 1L)));
        assertEquals(List.of("ALTER TABLE `default`.`orders_local` ON CLUSTER `two` ADD COLUMN IF NOT EXISTS `note` "
                + "Nullable(String)", "ALTER TABLE `default`.`orders` ADD COLUMN IF NOT EXISTS `note` Nullable(String)"),
                statements);
    }

    @Test
    void withoutDistributedDdlTheTaskStopsWithTheStatementsAndShardsThatHaveThemAreLeftAlone() {
        TwoShards cluster = new TwoShards();
        cluster.shard(1, "id", "Int64", "note", "Nullable(String)");
        cluster.shard(2, "id", "Int64");
        server.put(T, schema("id", "Int64"));
        statementFails = new IllegalStateException("Code: 139. DB::Exception: There is no DistributedDDL configuration "
                + "in server config. (NO_ELEMENTS_IN_CONFIG)");
        FollowingTables f = tables(false, true, plain()).withClusters(cluster);
        SinkRecord r = record(null, null, new Struct(WITH_NOTE).put("id", 1L));
        TableMapping seen = new TableMapping(schema("id", "Int64"));
        ConnectException e = assertThrows(ConnectException.class, () -> f.evolve(T, seen, r));
        assertTrue(e.getMessage().contains("auto.evolve could not add the record's new columns to the local tables")
                && e.getMessage().contains("on every shard: ALTER TABLE `default`.`orders_local` ADD COLUMN IF NOT "
                        + "EXISTS `note` Nullable(String)"), e.getMessage());
        assertEquals(1, statements.size(), "the Distributed table is left as it is");
        // The user ran it on shard 2: the next attempt only alters the Distributed table.
        cluster.shard(2, "id", "Int64", "note", "Nullable(String)");
        statements.clear();
        afterStatement = schema("id", "Int64", "note", "Nullable(String)");
        f.evolve(T, seen, r);
        assertEquals(List.of("ALTER TABLE `default`.`orders` ADD COLUMN IF NOT EXISTS `note` Nullable(String)"),
                statements);
    }

    @Test
    void aRequiredFieldWithoutDefaultIsABadRecordAndNoStatementRuns() {
        TableMapping seen = new TableMapping(schema("id", "Int64"));
        Schema v3 = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).field("note", Schema.OPTIONAL_STRING_SCHEMA)
                .field("priority", Schema.INT32_SCHEMA).build();
        SinkRecord r = record(null, null, new Struct(v3).put("id", 1L).put("priority", 3));
        FollowingTables f = tables(false, true, plain());
        assertTrue(f.mustEvolve(seen, r));
        RecordMappingException e = assertThrows(RecordMappingException.class, () -> f.evolve(T, seen, r));
        assertTrue(e.getMessage().contains("cannot add required column 'priority' (ClickHouse type Int32) without a "
                + "default") && e.getMessage().contains("field 'priority'") && e.getMessage().contains("default.orders")
                && e.getMessage().contains("topic=orders partition=2 offset=41"), e.getMessage());
        assertTrue(statements.isEmpty(), "the record's optional field is not added either");
        int before = reads;
        assertThrows(RecordMappingException.class, () -> f.evolve(T, seen, r));
        assertEquals(before, reads, "the same schema is refused again without reading the table");
    }

    @Test
    void columnsAnotherWriterAddedMeanNoStatement() {
        TableMapping seen = new TableMapping(schema("id", "Int64"));
        server.put(T, schema("id", "Int64", "note", "Nullable(String)"));
        Schema v2 = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).field("note", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        TableSchema after = tables(false, true, plain()).evolve(T, seen, record(null, null, new Struct(v2).put("id", 1L)));
        assertTrue(statements.isEmpty());
        assertEquals(2, after.columns().size());
    }

    @Test
    void aStatementThatLostARaceSucceedsWhenTheTableIsAsNeeded() {
        TableSchema other = schema("id", "Int64");
        server.put(T, other); // another task created it between our look and our statement
        statementFails = new ServerException(57, "Table default.orders already exists", 500, "q1");
        TableSchema s = tables(true, false, plain()).create(T, record(null, null, v1(1)));
        assertEquals(1, statements.size(), "no retry: the table is there");
        assertEquals(other, s);
    }

    @Test
    void aRaceIsRetriedUntilTheTableShowsTheChange() {
        statementFails = new ServerException(517, "Cannot assign alter", 500, "q1");
        afterStatement = schema("id", "Int64");
        TableSchema s = runner.run("ALTER TABLE x", T, t -> t != null, "test");
        assertEquals(2, statements.size(), "retried once the first attempt failed and the table was not there");
        assertEquals(afterStatement, s);
    }

    @Test
    void aPermanentFailureFailsTheTaskNamingTheStatement() {
        statementFails = new ServerException(497, "chsink: Not enough privileges. To execute this query, it's "
                + "necessary to have the grant ALTER ADD COLUMN(note) ON default.orders", 500, "q1");
        ConnectException e = assertThrows(ConnectException.class,
                () -> runner.run("ALTER TABLE `default`.`orders` ADD COLUMN IF NOT EXISTS `note` Nullable(String)",
                        T, t -> t != null && t.columns().size() == 2, "auto.evolve of default.orders"));
        assertTrue(e.getMessage().contains("auto.evolve of default.orders failed") && e.getMessage().contains("497")
                && e.getMessage().contains("Statement: ALTER TABLE `default`.`orders`"), e.getMessage());
        assertEquals(1, statements.size(), "not retried");
    }
}
