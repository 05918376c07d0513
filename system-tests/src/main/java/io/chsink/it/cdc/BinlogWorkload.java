package io.chsink.it.cdc;

import io.chsink.it.stack.ClickHouseHttp;
import io.chsink.it.stack.MariaDbServer;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The CDC workload of a binlog source (MariaDB through Debezium's MySQL connector) and its proof: three tables
 * (BIGINT, INT, DECIMAL, VARCHAR, TEXT, DATETIME(6), TIMESTAMP(6), DATE and JSON columns; one with a composite primary
 * key), their ReplacingMergeTree(_version, _is_deleted) twins in ClickHouse, a seeded random stream of changes
 * (inserts, updates, deletes, primary-key updates, re-inserts of deleted keys, and UPDATEs of several rows in one
 * statement, so that one binlog event carries several rows), the Debezium configuration, and the comparison of both
 * sides row for row: each side writes every row as canonical text with its own SQL (no value passes through the other
 * side's code), joined with '|', NULL as {@code \N}; ClickHouse's rows are read with FINAL, deleted rows excluded.
 */
public final class BinlogWorkload {
    public static final String VERSION_COLUMN = "_version";
    public static final String DELETED_COLUMN = "_is_deleted";
    /** The composite key's first part takes few values, so that one UPDATE ... WHERE order_id = ? changes many rows. */
    private static final int ORDER_GROUPS = 40;

    /** The kinds of column, each with its MariaDB and ClickHouse types and canonical-text expressions. */
    enum Kind { BIGINT, INT, DECIMAL, VARCHAR, TEXT, DATETIME6, TIMESTAMP6, DATE, JSON }

    /** One column: {@code %s} in the text expressions is the (quoted) column. */
    public static final class Column {
        final String name;
        final Kind kind;
        final int precision;
        final int scale;
        final boolean nullable;

        Column(String name, Kind kind, int precision, int scale, boolean nullable) {
            this.name = name;
            this.kind = kind;
            this.precision = precision;
            this.scale = scale;
            this.nullable = nullable;
        }

        String mariaType() {
            String t = switch (kind) {
                case BIGINT -> "BIGINT";
                case INT -> "INT";
                case DECIMAL -> "DECIMAL(" + precision + "," + scale + ")";
                case VARCHAR -> "VARCHAR(" + precision + ")";
                case TEXT -> "TEXT";
                case DATETIME6 -> "DATETIME(6)";
                case TIMESTAMP6 -> "TIMESTAMP(6)";
                case DATE -> "DATE";
                case JSON -> "JSON";
            };
            return t + (nullable ? " NULL DEFAULT NULL" : " NOT NULL");
        }

        String chType() {
            String t = switch (kind) {
                case BIGINT -> "Int64";
                case INT -> "Int32";
                case DECIMAL -> "Decimal(" + precision + ", " + scale + ")";
                case VARCHAR, TEXT, JSON -> "String";
                case DATETIME6 -> "DateTime64(6)";
                case TIMESTAMP6 -> "DateTime64(6, 'UTC')";
                case DATE -> "Date32";
            };
            return nullable ? "Nullable(" + t + ")" : t;
        }

        String mariaText() {
            String c = "`" + name + "`";
            return switch (kind) {
                case BIGINT, INT -> "CAST(" + c + " AS CHAR)";
                // ClickHouse's toString of a Decimal drops trailing zeros (and a bare point): the same here.
                case DECIMAL -> "TRIM(TRAILING '.' FROM TRIM(TRAILING '0' FROM CAST(" + c + " AS CHAR)))";
                case VARCHAR, TEXT, JSON -> c;
                case DATETIME6, TIMESTAMP6 -> "DATE_FORMAT(" + c + ", '%Y-%m-%d %H:%i:%s.%f')";
                case DATE -> "DATE_FORMAT(" + c + ", '%Y-%m-%d')";
            };
        }

        String chText() {
            String c = "`" + name + "`";
            return switch (kind) {
                case BIGINT, INT, DECIMAL, DATE -> "toString(" + c + ")";
                case VARCHAR, TEXT, JSON -> c;
                case DATETIME6, TIMESTAMP6 -> "formatDateTime(" + c + ", '%Y-%m-%d %H:%i:%S.%f')";
            };
        }
    }

    /** One table, as both sides define it. */
    public static final class Table {
        public final String name;
        final List<Column> columns;
        final List<String> primaryKey;

        Table(String name, List<Column> columns, List<String> primaryKey) {
            this.name = name;
            this.columns = columns;
            this.primaryKey = primaryKey;
        }

        Column column(String n) {
            return columns.stream().filter(c -> c.name.equals(n)).findFirst().orElseThrow();
        }

        String mariaCreate() {
            return "CREATE TABLE `" + name + "` (" + columns.stream().map(c -> "`" + c.name + "` " + c.mariaType())
                    .collect(Collectors.joining(", ")) + ", PRIMARY KEY (" + quoted(primaryKey) + ")) ENGINE=InnoDB "
                    + "DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";
        }

        String chCreate(String database, boolean dedupWindow) {
            return "CREATE TABLE `" + database + "`.`" + name + "` (" + columns.stream()
                    .map(c -> "`" + c.name + "` " + c.chType()).collect(Collectors.joining(", ")) + ", `"
                    + VERSION_COLUMN + "` UInt64, `" + DELETED_COLUMN + "` UInt8) ENGINE = ReplacingMergeTree(`"
                    + VERSION_COLUMN + "`, `" + DELETED_COLUMN + "`) ORDER BY (" + quoted(primaryKey) + ")"
                    + (dedupWindow ? " SETTINGS non_replicated_deduplication_window = 1000" : "");
        }

        /** MariaDB: key text, row text (tabs and newlines written as \t and \n, as ClickHouse's side does). */
        String mariaCanonicalQuery() {
            return "SELECT " + joined(primaryKey.stream().map(this::column).toList(), true) + ", REPLACE(REPLACE("
                    + joined(columns, true) + ", '\\t', '\\\\t'), '\\n', '\\\\n') FROM `" + name + "`";
        }

        String chCanonicalQuery(String database) {
            return "SELECT " + joined(primaryKey.stream().map(this::column).toList(), false) + ", replaceAll(replaceAll("
                    + joined(columns, false) + ", '\\t', '\\\\t'), '\\n', '\\\\n') FROM `" + database + "`.`" + name
                    + "` FINAL WHERE `" + DELETED_COLUMN + "` = 0 FORMAT TSVRaw";
        }

        private static String joined(List<Column> cols, boolean maria) {
            return "CONCAT_WS('|', " + cols.stream().map(c -> maria ? "COALESCE(" + c.mariaText() + ", '\\\\N')"
                    : "ifNull(" + c.chText() + ", '\\\\N')").collect(Collectors.joining(", ")) + ")";
        }

        private static String quoted(List<String> names) {
            return names.stream().map(n -> "`" + n + "`").collect(Collectors.joining(", "));
        }
    }

    private final MariaDbServer db;
    private final Random random;
    private final List<Table> tables;
    private final ChangeMix<Table> mix;
    private final AtomicLong changesDone = new AtomicLong();
    private long nextId = 1;

    /** @param prefix names the tables ({@code <prefix>_orders}, ...), lower-case letters, digits and _ */
    public BinlogWorkload(MariaDbServer db, String prefix, long seed) {
        this.db = db;
        this.random = new Random(seed);
        this.tables = List.of(
                new Table(prefix + "_orders", List.of(col("id", Kind.BIGINT, false), col("customer", Kind.INT, false),
                        dec("amount", 12, 2, false), col("note", Kind.TEXT, true), varchar("status", 16, false),
                        col("due", Kind.DATE, true), col("created", Kind.DATETIME6, false),
                        col("updated", Kind.TIMESTAMP6, true), col("attrs", Kind.JSON, true)), List.of("id")),
                new Table(prefix + "_lines", List.of(col("order_id", Kind.BIGINT, false), col("line", Kind.INT, false),
                        varchar("sku", 32, false), col("qty", Kind.INT, false), dec("price", 10, 3, false),
                        col("shipped_at", Kind.DATETIME6, true)), List.of("order_id", "line")),
                new Table(prefix + "_people", List.of(col("id", Kind.INT, false), varchar("name", 64, false),
                        varchar("email", 64, true), col("born", Kind.DATE, true), dec("score", 20, 5, true),
                        col("profile", Kind.JSON, false), col("last_seen", Kind.DATETIME6, true),
                        col("visits", Kind.BIGINT, true)), List.of("id")));
        this.mix = new ChangeMix<>(random, new Sql());
    }

    private static Column col(String n, Kind k, boolean nullable) {
        return new Column(n, k, 0, 0, nullable);
    }

    private static Column dec(String n, int p, int s, boolean nullable) {
        return new Column(n, Kind.DECIMAL, p, s, nullable);
    }

    private static Column varchar(String n, int len, boolean nullable) {
        return new Column(n, Kind.VARCHAR, len, 0, nullable);
    }

    public List<Table> tables() {
        return tables;
    }

    public long changesDone() {
        return changesDone.get();
    }

    public void createSourceTables() {
        for (Table t : tables) {
            db.exec("DROP TABLE IF EXISTS `" + t.name + "`");
            db.exec(t.mariaCreate());
        }
    }

    public void createTargetTables(ClickHouseHttp ch, String database, boolean dedupWindow) {
        for (Table t : tables) {
            ch.exec("DROP TABLE IF EXISTS `" + database + "`.`" + t.name + "`");
            ch.exec(t.chCreate(database, dedupWindow));
        }
    }

    /** Debezium's topic of each table: {@code <topicPrefix>.<database>.<table>}. */
    public List<String> topics(String topicPrefix) {
        return tables.stream().map(t -> topicPrefix + "." + MariaDbServer.DATABASE + "." + t.name).toList();
    }

    public String topicToTableMap(String topicPrefix, String database) {
        return tables.stream().map(t -> topicPrefix + "." + MariaDbServer.DATABASE + "." + t.name + ":" + database + "."
                + t.name).collect(Collectors.joining(","));
    }

    /**
     * The binlog source connector for these tables: config/debezium-mariadb-source.json (an initial snapshot, then the
     * binlog from the snapshot's position; decimals precise; JSON with schemas) run as Debezium's MySQL connector, with
     * this stack's server, replica {@code serverId}, its own topic prefix and schema history topic, and topics created
     * with {@code partitions} partitions.
     */
    public Map<String, String> debeziumConfig(String topicPrefix, String bootstrapServers, int serverId, int partitions) {
        return DebeziumSource.partitions(DebeziumSource.mariadb(db, topicPrefix, tables.stream()
                .map(t -> MariaDbServer.DATABASE + "." + t.name).collect(Collectors.joining(",")), bootstrapServers,
                serverId), partitions);
    }

    /** Inserts {@code rowsPerTable} rows into each table, in one transaction (before the connector starts). */
    public void seed(int rowsPerTable) {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            for (Table t : tables) {
                for (int i = 0; i < rowsPerTable; i++) {
                    mix.insertNew(c, t);
                }
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("seeding failed: " + e.getMessage(), e);
        }
    }

    /** What {@link #run} did, by kind of change. */
    public static final class Stats extends ChangeMix.Stats {
        /** UPDATEs of all lines of one order (one statement, one binlog event of several rows). */
        public long groupUpdates;
        public long groupUpdatedRows;

        @Override
        public long total() {
            return super.total() + groupUpdates;
        }

        @Override
        public String toString() {
            return super.toString() + ", " + groupUpdates + " multi-row updates (" + groupUpdatedRows + " rows)";
        }
    }

    /** {@code changes} random changes in transactions of 1 to {@code maxPerTransaction}, {@code perSecond} at most. */
    public Stats run(int changes, int maxPerTransaction, int perSecond) {
        Stats s = new Stats();
        s.transactions = PacedTransactions.run(db::connect, random, changes, maxPerTransaction, perSecond, changesDone,
                (c, done) -> { }, c -> mix.change(c, tables.get(random.nextInt(tables.size())), s));
        return s;
    }

    /** The MariaDB statements of each kind of change, and the UPDATE of all lines of one order. */
    private final class Sql implements ChangeMix.Ops<Table> {
        @Override
        public boolean extra(Connection c, Table t, int dice, ChangeMix.Stats stats) throws SQLException {
            if (t.primaryKey.size() != 2 || dice >= 34) {
                return false;
            }
            Stats s = (Stats) stats;
            s.groupUpdatedRows += groupUpdate(c, t, 1 + random.nextInt(ORDER_GROUPS));
            s.groupUpdates++;
            return true;
        }

        @Override
        public Object[] newKey(Table t) {
            return t.primaryKey.size() == 2 ? new Object[] {1L + random.nextInt(ORDER_GROUPS), nextId++}
                    : new Object[] {nextId++};
        }

        @Override
        public void insert(Connection c, Table t, Object[] key) throws SQLException {
            String cols = t.columns.stream().map(col -> "`" + col.name + "`").collect(Collectors.joining(", "));
            String marks = t.columns.stream().map(col -> "?").collect(Collectors.joining(", "));
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO `" + t.name + "` (" + cols + ") VALUES (" + marks
                    + ")")) {
                int i = 1;
                for (Column col : t.columns) {
                    int ki = t.primaryKey.indexOf(col.name);
                    SqlParams.set(ps, i++, ki >= 0 ? String.valueOf(key[ki]) : value(col));
                }
                ps.executeUpdate();
            }
        }

        @Override
        public void update(Connection c, Table t, Object[] key) throws SQLException {
            List<Column> cols = new ArrayList<>();
            for (Column col : t.columns) {
                if (!t.primaryKey.contains(col.name) && (cols.isEmpty() || random.nextInt(3) == 0)) {
                    cols.add(col);
                }
            }
            String set = cols.stream().map(col -> "`" + col.name + "` = ?").collect(Collectors.joining(", "));
            try (PreparedStatement ps = c.prepareStatement("UPDATE `" + t.name + "` SET " + set + " WHERE " + where(t))) {
                int i = 1;
                for (Column col : cols) {
                    SqlParams.set(ps, i++, value(col));
                }
                SqlParams.bindKey(ps, i, key);
                SqlParams.expectOne(ps.executeUpdate(), "update", t.name);
            }
        }

        /** All lines of one order in one statement (MariaDB logs them as one rows event of several rows). */
        private int groupUpdate(Connection c, Table t, long orderId) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("UPDATE `" + t.name + "` SET `qty` = `qty` + 1, `price` = ? "
                    + "WHERE `order_id` = ?")) {
                ps.setString(1, value(t.column("price")));
                ps.setLong(2, orderId);
                return ps.executeUpdate();
            }
        }

        @Override
        public void delete(Connection c, Table t, Object[] key) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM `" + t.name + "` WHERE " + where(t))) {
                SqlParams.bindKey(ps, 1, key);
                SqlParams.expectOne(ps.executeUpdate(), "delete", t.name);
            }
        }

        @Override
        public void updateKey(Connection c, Table t, Object[] old, Object[] moved) throws SQLException {
            String set = t.primaryKey.stream().map(k -> "`" + k + "` = ?").collect(Collectors.joining(", "));
            try (PreparedStatement ps = c.prepareStatement("UPDATE `" + t.name + "` SET " + set + " WHERE " + where(t))) {
                int i = SqlParams.bindKey(ps, 1, moved);
                SqlParams.bindKey(ps, i, old);
                SqlParams.expectOne(ps.executeUpdate(), "primary-key update", t.name);
            }
        }
    }

    private static String where(Table t) {
        return t.primaryKey.stream().map(k -> "`" + k + "` = ?").collect(Collectors.joining(" AND "));
    }

    /** A random value of the column's type as MariaDB takes it in a string parameter, or null now and then. */
    private String value(Column col) {
        if (col.nullable && random.nextInt(7) == 0) {
            return null;
        }
        switch (col.kind) {
            case BIGINT:
                return String.valueOf(random.nextLong() % 1_000_000_000_000L);
            case INT:
                return String.valueOf(random.nextInt(2_000_001) - 1_000_000);
            case DECIMAL: {
                long bound = 1;
                for (int i = 0; i < Math.min(col.precision, 18); i++) {
                    bound *= 10;
                }
                long unscaled = (random.nextLong() & Long.MAX_VALUE) % bound * (random.nextBoolean() ? 1 : -1);
                return BigDecimal.valueOf(unscaled, col.scale).toPlainString();
            }
            case VARCHAR:
                return RandomText.text(random, random.nextInt(col.precision + 1), false);
            case TEXT:
                return RandomText.text(random, random.nextInt(61), true);
            case DATETIME6:
                return LocalDateTime.of(1995, 1, 1, 0, 0).plusSeconds(random.nextInt(1_000_000_000))
                        .plusNanos(random.nextInt(1_000_000) * 1000L).toString().replace('T', ' ');
            case TIMESTAMP6: // TIMESTAMP's range: 1970 to 2038 (UTC, the server's and session's time zone)
                return LocalDateTime.of(1971, 1, 1, 0, 0).plusSeconds(random.nextInt(2_000_000_000))
                        .plusNanos(random.nextInt(1_000_000) * 1000L).toString().replace('T', ' ');
            case DATE:
                return LocalDate.of(1990, 1, 1).plusDays(random.nextInt(15_000)).toString();
            case JSON:
                return RandomText.json(random);
            default:
                throw new IllegalArgumentException("no generator for " + col.kind);
        }
    }

    /** One table on both sides: row counts and the first differences (key: MariaDB text | ClickHouse text). */
    public record TableComparison(String table, long sourceRows, long targetRows, long differing,
            List<String> differences) {
        public boolean equal() {
            return differing == 0 && sourceRows == targetRows;
        }

        @Override
        public String toString() {
            return String.format("%-28s MariaDB %,7d rows | ClickHouse FINAL %,7d rows%s", table, sourceRows,
                    targetRows, equal() ? "  equal" : "  DIFFERENT (" + differing + " keys, first: " + differences + ")");
        }
    }

    /** Every table's MariaDB rows against ClickHouse's current state (FINAL, deleted rows excluded). */
    public List<TableComparison> compare(ClickHouseHttp ch, String database) {
        List<TableComparison> out = new ArrayList<>();
        for (Table t : tables) {
            TreeMap<String, String> source = new TreeMap<>();
            try (Connection c = db.connect(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery(t.mariaCanonicalQuery())) {
                while (rs.next()) {
                    source.put(rs.getString(1), rs.getString(2));
                }
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read " + t.name + " from MariaDB: " + e.getMessage(), e);
            }
            TreeMap<String, String> target = new TreeMap<>();
            List<String> shown = new ArrayList<>();
            long[] differing = {0};
            ch.queryLines(t.chCanonicalQuery(database), Duration.ofMinutes(2), line -> {
                if (!line.isEmpty()) {
                    int tab = line.indexOf('\t');
                    if (target.put(line.substring(0, tab), line.substring(tab + 1)) != null) {
                        differing[0]++;
                        shown.add("key " + line.substring(0, tab) + ": more than one current row in ClickHouse");
                    }
                }
            });
            for (Map.Entry<String, String> e : source.entrySet()) {
                String other = target.get(e.getKey());
                if (!e.getValue().equals(other)) {
                    differing[0]++;
                    if (shown.size() < 5) {
                        shown.add("key " + e.getKey() + ": MariaDB " + e.getValue() + " | ClickHouse "
                                + (other == null ? "(missing)" : other));
                    }
                }
            }
            for (String k : target.keySet()) {
                if (!source.containsKey(k)) {
                    differing[0]++;
                    if (shown.size() < 5) {
                        shown.add("key " + k + ": only in ClickHouse: " + target.get(k));
                    }
                }
            }
            out.add(new TableComparison(t.name, source.size(), target.size(), differing[0], shown));
        }
        return out;
    }

    /** Compares until equal or {@code timeout}; {@code failure} (may be null) ends the wait with its message. */
    public List<TableComparison> awaitEqual(ClickHouseHttp ch, String database, Duration timeout,
            Supplier<String> failure) throws InterruptedException {
        return UntilEqual.await(() -> compare(ch, database), TableComparison::equal, timeout, failure, false);
    }
}
