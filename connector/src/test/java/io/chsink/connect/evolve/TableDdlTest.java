package io.chsink.connect.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.chsink.connect.schema.TableId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The exact statements auto.create and auto.evolve send: identifiers quoted, ON CLUSTER, settings. */
class TableDdlTest {
    private static final TableId T = new TableId("analytics", "events");

    @Test
    void createTableWithOrderByAndSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("non_replicated_deduplication_window", "1000");
        settings.put("storage_policy", "hot cold");
        assertEquals("CREATE TABLE IF NOT EXISTS `analytics`.`events` (`id` Int64, `name` Nullable(String), "
                + "`region` String DEFAULT 'eu') ENGINE = MergeTree ORDER BY (`id`) SETTINGS "
                + "`non_replicated_deduplication_window` = 1000, `storage_policy` = 'hot cold'",
                TableDdl.createTable(T, "", List.of(new TableDdl.Column("id", "Int64", null),
                        new TableDdl.Column("name", "Nullable(String)", null),
                        new TableDdl.Column("region", "String", "'eu'")), "MergeTree", List.of("id"), settings));
    }

    @Test
    void createTableWithoutKeyIsOrderedByTuple() {
        assertEquals("CREATE TABLE IF NOT EXISTS `analytics`.`events` (`a` Int8) ENGINE = MergeTree ORDER BY tuple()",
                TableDdl.createTable(T, null, List.of(new TableDdl.Column("a", "Int8", null)), "MergeTree", List.of(),
                        Map.of()));
    }

    @Test
    void onCluster() {
        assertEquals("CREATE TABLE IF NOT EXISTS `analytics`.`events` ON CLUSTER `main` (`a` Int8) ENGINE = "
                + "ReplicatedMergeTree ORDER BY (`a`, `b c`)", TableDdl.createTable(T, " main ",
                        List.of(new TableDdl.Column("a", "Int8", null)), "ReplicatedMergeTree", List.of("a", "b c"),
                        Map.of()));
        assertEquals("ALTER TABLE `analytics`.`events` ON CLUSTER `main` ADD COLUMN IF NOT EXISTS `c` Nullable(Int32)",
                TableDdl.addColumns(T, "main", List.of(new TableDdl.Column("c", "Nullable(Int32)", null))));
    }

    @Test
    void addColumnsOneClauseEach() {
        assertEquals("ALTER TABLE `analytics`.`events` ADD COLUMN IF NOT EXISTS `c` Nullable(Int32), "
                + "ADD COLUMN IF NOT EXISTS `d` Float64 DEFAULT 1.5",
                TableDdl.addColumns(T, "", List.of(new TableDdl.Column("c", "Nullable(Int32)", null),
                        new TableDdl.Column("d", "Float64", "1.5"))));
        assertThrows(IllegalArgumentException.class, () -> TableDdl.addColumns(T, "", List.of()));
    }

    @Test
    void hostileIdentifiersStayIdentifiers() {
        TableId evil = new TableId("d`b", "t`; DROP TABLE x; --");
        assertEquals("ALTER TABLE `d\\`b`.`t\\`; DROP TABLE x; --` ON CLUSTER `c\\`x` ADD COLUMN IF NOT EXISTS "
                + "`a\\\\b\\`` String DEFAULT 'it\\'s'", TableDdl.addColumns(evil, "c`x",
                        List.of(new TableDdl.Column("a\\b`", "String", DefaultLiterals.quote("it's")))));
        assertEquals("ReplacingMergeTree(`_version`, `_is_deleted`)",
                TableDdl.replacingEngine("_version", "_is_deleted"));
    }
}
