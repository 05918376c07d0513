package io.chsink.it.cdc;

import io.chsink.it.stack.ClickHouseHttp;
import io.chsink.it.stack.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
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
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.zip.CRC32;

/**
 * The CDC workload and its proof, for the system tests, the demo ({@code --cdc}) and the benchmark: three PostgreSQL
 * tables with a broad set of column types (one with a composite primary key, one with REPLICA IDENTITY FULL, two with
 * the default, whose deletes carry the key only), their ReplacingMergeTree(_version, _is_deleted) twins in ClickHouse,
 * a seeded random stream of changes (inserts, updates, deletes, primary-key updates, re-inserts of deleted keys),
 * the Debezium source connector's configuration, and the comparison of both sides row for row: each side writes
 * every row as canonical text with its own SQL ({@link CdcTable}); ClickHouse's rows are read with FINAL, deleted
 * rows excluded.
 *
 * <p>API: {@link #createSourceTables}, {@link #createTargetTables}, {@link #seed} (rows before the connector
 * starts: the snapshot), {@link #run} (the change stream; {@link #changesDone} while it runs),
 * {@link #debeziumConfig}, {@link #topics}, {@link #topicToTableMap}, {@link #compare} and {@link #awaitEqual}.
 * {@link CdcDemo#main} runs it all on a local stack and prints the counts and checksums side by side.
 */
public final class CdcWorkload {
    public static final String VERSION_COLUMN = "_version";
    public static final String DELETED_COLUMN = "_is_deleted";

    private final PostgresServer pg;
    private final String prefix;
    private final Random random;
    private final List<CdcTable> tables;
    private final ChangeMix<CdcTable> mix;
    private final AtomicLong changesDone = new AtomicLong();
    private long nextId = 1;

    /** @param prefix names the tables ({@code <prefix>_orders}, ...), lower-case letters, digits and _ */
    public CdcWorkload(PostgresServer pg, String prefix, long seed) {
        this.pg = pg;
        this.prefix = prefix;
        this.random = new Random(seed);
        this.tables = List.of(
                new CdcTable(prefix + "_orders", List.of(CdcTable.bigint("id", false), CdcTable.integer("customer", false),
                        CdcTable.numeric("amount", 12, 2, false), CdcTable.text("note", "text", true),
                        CdcTable.text("status", "varchar(16)", false), CdcTable.bool("paid", false),
                        CdcTable.date("due", true), CdcTable.timestamp("created", false),
                        CdcTable.timestamptz("updated", true), CdcTable.uuid("ref", false), CdcTable.jsonb("attrs", true),
                        CdcTable.intArray("tags")), List.of("id"), false),
                new CdcTable(prefix + "_lines", List.of(CdcTable.bigint("order_id", false), CdcTable.integer("line", false),
                        CdcTable.text("sku", "varchar(32)", false), CdcTable.integer("qty", false),
                        CdcTable.numeric("price", 10, 3, false), CdcTable.bool("shipped", true),
                        CdcTable.timestamptz("shipped_at", true)), List.of("order_id", "line"), false),
                new CdcTable(prefix + "_people", List.of(CdcTable.integer("id", false), CdcTable.text("name", "text", false),
                        CdcTable.text("email", "varchar(64)", true), CdcTable.date("born", true),
                        CdcTable.numeric("score", 20, 5, true), CdcTable.bool("active", false),
                        CdcTable.jsonb("profile", false), CdcTable.uuid("token", true), CdcTable.timestamp("last_seen", true),
                        CdcTable.intArray("counts"), CdcTable.bigint("visits", true)), List.of("id"), true));
        this.mix = new ChangeMix<>(random, new Sql());
    }

    public List<CdcTable> tables() {
        return tables;
    }

    /** Changes committed so far by {@link #run} (a primary-key update counts once). */
    public long changesDone() {
        return changesDone.get();
    }

    /** Creates the PostgreSQL tables (dropping old ones of the same names) with their replica identity. */
    public void createSourceTables() {
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            for (CdcTable t : tables) {
                st.execute("DROP TABLE IF EXISTS " + t.name);
                st.execute(t.pgCreate());
                st.execute("ALTER TABLE " + t.name + " REPLICA IDENTITY " + (t.replicaIdentityFull ? "FULL" : "DEFAULT"));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the source tables: " + e.getMessage(), e);
        }
    }

    /** Creates the ClickHouse ReplacingMergeTree tables (with a deduplication window for exactly_once). */
    public void createTargetTables(ClickHouseHttp ch, String database, boolean dedupWindow) {
        for (CdcTable t : tables) {
            ch.exec("DROP TABLE IF EXISTS `" + database + "`.`" + t.name + "`");
            ch.exec(t.chCreate(database, VERSION_COLUMN, DELETED_COLUMN, dedupWindow));
        }
    }

    /** Debezium's topic of each table: {@code <topicPrefix>.public.<table>}. */
    public List<String> topics(String topicPrefix) {
        return tables.stream().map(t -> topicPrefix + ".public." + t.name).collect(Collectors.toList());
    }

    /** The sink's topic.to.table.map for these topics. */
    public String topicToTableMap(String topicPrefix, String database) {
        return tables.stream().map(t -> topicPrefix + ".public." + t.name + ":" + database + "." + t.name)
                .collect(Collectors.joining(","));
    }

    /**
     * The Debezium PostgreSQL source connector's configuration for these tables: config/debezium-postgres-source.json
     * (pgoutput, a filtered publication, an initial snapshot, truncate events included, JSON with schemas) with this
     * stack's server, its own slot, publication and topic prefix, and topics created with {@code partitions}
     * partitions.
     */
    public Map<String, String> debeziumConfig(String topicPrefix, int partitions) {
        return DebeziumSource.partitions(DebeziumSource.postgres(pg, topicPrefix, tables.stream()
                .map(t -> "public." + t.name).collect(Collectors.joining(","))), partitions);
    }

    /** Inserts {@code rowsPerTable} rows into each table (before the connector starts: its snapshot). */
    public void seed(int rowsPerTable) {
        try (Connection c = pg.connect()) {
            c.setAutoCommit(false);
            for (CdcTable t : tables) {
                for (int i = 0; i < rowsPerTable; i++) {
                    mix.insertNew(c, t);
                }
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("seeding failed: " + e.getMessage(), e);
        }
    }

    /**
     * Bulk-loads {@code rows} generated rows into the orders table with one INSERT ... SELECT generate_series (the
     * snapshot of the benchmark); the keys become the workload's. Values are functions of the key.
     */
    public void bulkSeed(long rows) {
        CdcTable t = tables.get(0);
        long from = nextId;
        nextId += rows;
        String sql = "INSERT INTO " + t.name + " SELECT g, (g % 100000)::int, ((g * 7919) % 10000000) / 100.0, "
                + "CASE WHEN g % 5 = 0 THEN NULL ELSE 'note ' || md5(g::text) END, 'status' || (g % 7), g % 2 = 0, "
                + "DATE '2000-01-01' + (g % 9000)::int, TIMESTAMP '2020-01-01' + g * INTERVAL '1.000001 second', "
                + "CASE WHEN g % 3 = 0 THEN NULL ELSE TIMESTAMPTZ '2021-01-01 00:00:00+00' + g * INTERVAL '1 minute' END, "
                + "md5(g::text)::uuid, jsonb_build_object('n', g % 1000, 's', md5(g::text)), ARRAY[(g % 10)::int, "
                + "(g % 100)::int] FROM generate_series(" + from + "::bigint, " + (from + rows - 1) + "::bigint) g";
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("bulk load failed: " + e.getMessage(), e);
        }
        for (long id = from; id < from + rows; id++) {
            mix.addLive(t, new Object[] {id});
        }
    }

    /** What {@link #run} did, by kind of change. */
    public static final class Stats extends ChangeMix.Stats {
    }

    /**
     * Runs {@code changes} random changes over the three tables, in transactions of 1 to {@code maxPerTransaction}
     * changes, as fast as PostgreSQL takes them (optionally {@code perSecond} at most; 0: no limit).
     */
    public Stats run(int changes, int maxPerTransaction, int perSecond) {
        Stats s = new Stats();
        s.transactions = PacedTransactions.run(pg::connect, random, changes, maxPerTransaction, perSecond, changesDone,
                (c, done) -> { }, c -> mix.change(c, tables.get(random.nextInt(tables.size())), s));
        return s;
    }

    /** The PostgreSQL statements of each kind of change. */
    private final class Sql implements ChangeMix.Ops<CdcTable> {
        /** A key not used before. */
        @Override
        public Object[] newKey(CdcTable t) {
            return t.primaryKey.size() == 2 ? new Object[] {1L + random.nextInt(5000), (int) nextId++}
                    : new Object[] {t.columns.get(0).pgBase.equals("bigint") ? (Object) nextId++ : (Object) (int) nextId++};
        }

        @Override
        public void insert(Connection c, CdcTable t, Object[] key) throws SQLException {
            StringBuilder cols = new StringBuilder();
            StringBuilder marks = new StringBuilder();
            for (CdcTable.Column col : t.columns) {
                cols.append(cols.length() == 0 ? "" : ", ").append(col.name);
                marks.append(marks.length() == 0 ? "" : ", ").append("?::").append(col.pgBase);
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t.name + " (" + cols + ") VALUES (" + marks + ")")) {
                int i = 1;
                for (CdcTable.Column col : t.columns) {
                    int ki = t.primaryKey.indexOf(col.name);
                    SqlParams.set(ps, i++, ki >= 0 ? String.valueOf(key[ki]) : value(col));
                }
                ps.executeUpdate();
            }
        }

        @Override
        public void update(Connection c, CdcTable t, Object[] key) throws SQLException {
            List<CdcTable.Column> cols = new ArrayList<>();
            for (CdcTable.Column col : t.columns) {
                if (!t.primaryKey.contains(col.name) && (cols.isEmpty() || random.nextInt(3) == 0)) {
                    cols.add(col);
                }
            }
            String set = cols.stream().map(col -> col.name + " = ?::" + col.pgBase).collect(Collectors.joining(", "));
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.name + " SET " + set + " WHERE " + where(t))) {
                int i = 1;
                for (CdcTable.Column col : cols) {
                    SqlParams.set(ps, i++, value(col));
                }
                SqlParams.bindKey(ps, i, key);
                SqlParams.expectOne(ps.executeUpdate(), "update", t.name);
            }
        }

        @Override
        public void delete(Connection c, CdcTable t, Object[] key) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + t.name + " WHERE " + where(t))) {
                SqlParams.bindKey(ps, 1, key);
                SqlParams.expectOne(ps.executeUpdate(), "delete", t.name);
            }
        }

        @Override
        public void updateKey(Connection c, CdcTable t, Object[] old, Object[] moved) throws SQLException {
            String set = t.primaryKey.stream().map(k -> k + " = ?::" + type(t, k)).collect(Collectors.joining(", "));
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.name + " SET " + set + " WHERE " + where(t))) {
                int i = SqlParams.bindKey(ps, 1, moved);
                SqlParams.bindKey(ps, i, old);
                SqlParams.expectOne(ps.executeUpdate(), "primary-key update", t.name);
            }
        }
    }

    private static String type(CdcTable t, String column) {
        return t.columns.stream().filter(c -> c.name.equals(column)).findFirst().orElseThrow().pgBase;
    }

    private static String where(CdcTable t) {
        return t.primaryKey.stream().map(k -> k + " = ?::" + type(t, k)).collect(Collectors.joining(" AND "));
    }

    /** A random value of the column's type as PostgreSQL text, or null (nullable columns, now and then). */
    private String value(CdcTable.Column col) {
        if (!col.pgType.contains("NOT NULL") && random.nextInt(7) == 0) {
            return null;
        }
        String type = col.pgBase;
        if (type.equals("bigint")) {
            return String.valueOf(random.nextLong() % 1_000_000_000_000L);
        }
        if (type.equals("int")) {
            return String.valueOf(random.nextInt(2_000_001) - 1_000_000);
        }
        if (type.startsWith("numeric(")) {
            String[] ps = type.substring(8, type.length() - 1).split(",");
            int p = Integer.parseInt(ps[0]);
            int sc = Integer.parseInt(ps[1]);
            StringBuilder b = new StringBuilder(random.nextBoolean() ? "-" : "");
            int intDigits = 1 + random.nextInt(p - sc);
            for (int i = 0; i < intDigits; i++) {
                b.append((char) ('0' + random.nextInt(10)));
            }
            b.append('.');
            for (int i = 0; i < sc; i++) {
                b.append((char) ('0' + random.nextInt(10)));
            }
            return b.toString();
        }
        if (type.equals("text") || type.startsWith("varchar")) {
            int max = type.startsWith("varchar") ? Integer.parseInt(type.substring(8, type.length() - 1)) : 60;
            return RandomText.text(random, random.nextInt(max + 1), !type.startsWith("varchar"));
        }
        if (type.equals("boolean")) {
            return String.valueOf(random.nextBoolean());
        }
        if (type.equals("date")) {
            return LocalDate.of(1990, 1, 1).plusDays(random.nextInt(15_000)).toString();
        }
        if (type.startsWith("timestamp")) {
            LocalDateTime t = LocalDateTime.of(1995, 1, 1, 0, 0).plusSeconds(random.nextInt(1_000_000_000))
                    .plusNanos(random.nextInt(1_000_000) * 1000L);
            return t.toString().replace('T', ' ') + (type.equals("timestamptz") ? "+00" : "");
        }
        if (type.equals("uuid")) {
            return new UUID(random.nextLong(), random.nextLong()).toString();
        }
        if (type.equals("jsonb")) {
            return RandomText.json(random);
        }
        if (type.equals("int[]")) {
            int n = random.nextInt(5);
            List<String> e = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                e.add(random.nextInt(9) == 0 ? "NULL" : String.valueOf(random.nextInt(2000) - 1000));
            }
            return "{" + String.join(",", e) + "}";
        }
        throw new IllegalArgumentException("no generator for " + type);
    }

    /**
     * Both sides of one table: rows and a checksum each, and the first differences. Each side's canonical row text
     * is reduced to a 64-bit hash per key (SHA-256's first 8 bytes) as it streams in, so a table of millions of
     * rows compares in a few hundred MB; the texts of the first differing keys are read again for the message.
     */
    public static final class TableComparison {
        private static final int SHOWN = 5;
        public final String table;
        public final long sourceRows;
        public final long targetRows;
        public final String sourceChecksum;
        public final String targetChecksum;
        /** The number of keys that differ (missing on one side or with other text). */
        public final long differing;
        /** The first {@value #SHOWN} of them, with both sides' texts. */
        public final List<String> differences;

        TableComparison(String table, long sourceRows, long targetRows, String sourceChecksum, String targetChecksum,
                long differing, List<String> differences) {
            this.table = table;
            this.sourceRows = sourceRows;
            this.targetRows = targetRows;
            this.sourceChecksum = sourceChecksum;
            this.targetChecksum = targetChecksum;
            this.differing = differing;
            this.differences = differences;
        }

        public boolean equal() {
            return differing == 0 && sourceRows == targetRows;
        }

        @Override
        public String toString() {
            return String.format("%-22s PostgreSQL %,9d rows checksum %s | ClickHouse FINAL %,9d rows checksum %s%s",
                    table, sourceRows, sourceChecksum, targetRows, targetChecksum, equal() ? "  equal"
                            : "  DIFFERENT (" + differing + " keys, first: " + differences.get(0) + ")");
        }
    }

    /** Key text to row-text hash, sorted by key; a key seen twice on one side is a difference of its own. */
    private static final class HashedRows {
        final TreeMap<String, Long> rows = new TreeMap<>();
        final List<String> repeated = new ArrayList<>();
        private final MessageDigest sha;

        HashedRows() {
            try {
                sha = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        void add(String key, String row) {
            byte[] d = sha.digest(row.getBytes(StandardCharsets.UTF_8));
            long h = 0;
            for (int i = 0; i < 8; i++) {
                h = (h << 8) | (d[i] & 0xFF);
            }
            if (rows.put(key, h) != null) {
                repeated.add(key);
            }
        }

        String checksum() {
            CRC32 crc = new CRC32();
            for (Map.Entry<String, Long> e : rows.entrySet()) {
                crc.update((e.getKey() + "\t" + Long.toHexString(e.getValue()) + "\n").getBytes(StandardCharsets.UTF_8));
            }
            return String.format("%08X", crc.getValue());
        }
    }

    /** Compares every table's PostgreSQL rows with ClickHouse's current state (FINAL, deleted rows excluded). */
    public List<TableComparison> compare(ClickHouseHttp ch, String database) {
        List<TableComparison> out = new ArrayList<>();
        for (CdcTable t : tables) {
            HashedRows source = new HashedRows();
            pgRows(t, null, source::add);
            HashedRows target = new HashedRows();
            chRows(ch, database, t, null, target::add);
            List<String> keys = new ArrayList<>();
            long differing = 0;
            for (Map.Entry<String, Long> e : source.rows.entrySet()) {
                Long other = target.rows.get(e.getKey());
                if (other == null || !other.equals(e.getValue())) {
                    differing++;
                    if (keys.size() < TableComparison.SHOWN) {
                        keys.add(e.getKey());
                    }
                }
            }
            for (String k : target.rows.keySet()) {
                if (!source.rows.containsKey(k)) {
                    differing++;
                    if (keys.size() < TableComparison.SHOWN) {
                        keys.add(k);
                    }
                }
            }
            List<String> shown = new ArrayList<>();
            for (String k : target.repeated) {
                differing++;
                if (shown.size() < TableComparison.SHOWN) {
                    shown.add("key " + k + ": more than one current row in ClickHouse");
                }
            }
            for (String k : keys) {
                shown.add(describe(ch, database, t, k));
            }
            out.add(new TableComparison(t.name, source.rows.size(), target.rows.size(), source.checksum(),
                    target.checksum(), differing, shown));
        }
        return out;
    }

    private String describe(ClickHouseHttp ch, String database, CdcTable t, String key) {
        List<String> pgText = new ArrayList<>();
        pgRows(t, key, (k, row) -> pgText.add(row));
        List<String> chText = new ArrayList<>();
        chRows(ch, database, t, key, (k, row) -> chText.add(row));
        if (chText.isEmpty()) {
            return "key " + key + ": missing in ClickHouse";
        }
        if (pgText.isEmpty()) {
            return "key " + key + ": only in ClickHouse";
        }
        return "key " + key + ": PostgreSQL " + pgText.get(0) + " | ClickHouse " + chText.get(0);
    }

    private void pgRows(CdcTable t, String key, java.util.function.BiConsumer<String, String> rows) {
        try (Connection c = pg.connect()) {
            c.setAutoCommit(false); // lets the driver stream with a fetch size instead of reading the whole result
            try (Statement st = c.createStatement()) {
                st.setFetchSize(10_000);
                try (ResultSet rs = st.executeQuery(t.pgCanonicalQuery(key))) {
                    while (rs.next()) {
                        rows.accept(rs.getString(1), rs.getString(2));
                    }
                }
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read " + t.name + " from PostgreSQL: " + e.getMessage(), e);
        }
    }

    private static void chRows(ClickHouseHttp ch, String database, CdcTable t, String key,
            java.util.function.BiConsumer<String, String> rows) {
        ch.queryLines(t.chCanonicalQuery(database, DELETED_COLUMN, key), Duration.ofMinutes(5), line -> {
            if (!line.isEmpty()) {
                int tab = line.indexOf('\t');
                rows.accept(line.substring(0, tab), line.substring(tab + 1));
            }
        });
    }

    /**
     * Compares until both sides are equal or {@code timeout} passes; {@code failure} (may be null) is asked between
     * rounds and ends the wait with its message. A ClickHouse table that does not exist yet (HTTP 404: one the sink
     * creates with auto.create from its first record) counts as not equal yet. Returns the last comparison.
     */
    public List<TableComparison> awaitEqual(ClickHouseHttp ch, String database, Duration timeout,
            Supplier<String> failure) throws InterruptedException {
        return UntilEqual.await(() -> compare(ch, database), TableComparison::equal, timeout, failure, true);
    }

    String prefix() {
        return prefix;
    }
}
