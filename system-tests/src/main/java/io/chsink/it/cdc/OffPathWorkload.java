package io.chsink.it.cdc;

import io.chsink.it.stack.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * The CDC paths off the main road of {@link CdcWorkload}, one table (or two) per part, for CdcOffPathTest:
 * <ul>
 * <li>(a) {@code _toast}: 8-20 KB random text, bytea and jsonb stored out of line (TOAST), REPLICA IDENTITY DEFAULT;
 * most updates change only the small columns (pgoutput then marks the large ones unchanged and Debezium sends its
 * placeholder), some change a large value, some rows are deleted;</li>
 * <li>(b) {@code _defaults}: explicit NULLs, by INSERT and UPDATE, into columns with defaults (numeric, text, int,
 * timestamp), columns left out (their defaults), values; a few primary-key updates;</li>
 * <li>(c) {@code _floats}: double precision and real with NaN, Infinity, -Infinity, NULL and finite values;</li>
 * <li>(d) {@code _evolve}: mid-stream ALTER TABLE ADD COLUMN of NOT NULL columns with defaults (date, time,
 * timestamp, timestamptz, numeric(12,3), text, int, boolean), for a sink with auto.evolve;</li>
 * <li>(e) {@code _part_def} (REPLICA IDENTITY DEFAULT) and {@code _part_full} (FULL): primary key id, ClickHouse
 * ordered by (tenant_id, id) and partitioned by toYYYYMM(created), rows over six months and five tenants, updates
 * that keep tenant_id and created, deletes;</li>
 * <li>(f) {@code _unwrap}: inserts, updates, deletes and re-inserts, for a sink with ExtractNewRecordState at its
 * defaults (a delete reaches the sink as a tombstone only);</li>
 * <li>(g) {@code _late}: rows made before the source connector starts with snapshot.mode=no_data, then a delete
 * first, then every other row updated, then a random stream; its ClickHouse table is auto.create's.</li>
 * </ul>
 * Values are seeded ({@code seed}); every table compares row for row ({@link OffPathTable#compare}).
 */
public final class OffPathWorkload {
    public static final String PLACEHOLDER = "__debezium_unavailable_value";

    private final PostgresServer pg;
    private final String prefix;
    private final Random random;
    private final HexFormat hex = HexFormat.of();
    public final OffPathTable toast;
    public final OffPathTable defaults;
    public final OffPathTable floats;
    public final OffPathTable evolve;
    public final OffPathTable partDefault;
    public final OffPathTable partFull;
    public final OffPathTable unwrap;
    public final OffPathTable late;
    private final Map<OffPathTable, Keys> keys = new LinkedHashMap<>();
    private final AtomicLong changesDone = new AtomicLong();
    /** What the stream did, per part and kind of change ("a: small-column update" to its count). */
    private final Map<String, Long> stats = new TreeMap<>();
    private volatile boolean altered;
    private int nextId = 1;

    public OffPathWorkload(PostgresServer pg, String prefix, long seed) {
        this.pg = pg;
        this.prefix = prefix;
        this.random = new Random(seed);
        toast = new OffPathTable("a TOAST", prefix + "_toast", "id int PRIMARY KEY, small_n int NOT NULL, small_s text "
                + "NOT NULL, big_text text NOT NULL, big_bytes bytea NOT NULL, big_json jsonb NOT NULL, big_ints int[] "
                + "NOT NULL, big_words text[] NOT NULL", false, List.of("id"))
                .col(OffPathTable.integer("small_n")).col(OffPathTable.text("small_s"))
                .col(OffPathTable.md5("big_text", "text")).col(OffPathTable.md5("big_bytes", "bytea"))
                .col(OffPathTable.md5("big_json", "jsonb")).col(OffPathTable.md5Array("big_ints"))
                .col(OffPathTable.md5Array("big_words"))
                .ch("`id` Int32, `small_n` Int32, `small_s` String, `big_text` String, `big_bytes` String, "
                        + "`big_json` String, `big_ints` Array(Int32), `big_words` Array(String)", "`id`");
        defaults = new OffPathTable("b NULL into DEFAULT", prefix + "_defaults", "id int PRIMARY KEY, price "
                + "numeric(10,2) DEFAULT 0, status text DEFAULT 'new', qty int DEFAULT 7, seen timestamp(6) DEFAULT "
                + "'2020-01-01 00:00:00', note text", false, List.of("id"))
                .col(OffPathTable.numeric("price")).col(OffPathTable.text("status")).col(OffPathTable.integer("qty"))
                .col(OffPathTable.timestamp("seen")).col(OffPathTable.text("note"))
                .ch("`id` Int32, `price` Nullable(Decimal(10, 2)), `status` Nullable(String), `qty` Nullable(Int32), "
                        + "`seen` Nullable(DateTime64(6)), `note` Nullable(String)", "`id`");
        floats = new OffPathTable("c NaN/Infinity", prefix + "_floats", "id int PRIMARY KEY, d double precision, "
                + "r real", false, List.of("id"))
                .col(OffPathTable.floating("d")).col(OffPathTable.floating("r"))
                .ch("`id` Int32, `d` Nullable(Float64), `r` Nullable(Float32)", "`id`");
        evolve = new OffPathTable("d ADD COLUMN mid-stream", prefix + "_evolve", "id int PRIMARY KEY, v int NOT NULL, "
                + "note text", false, List.of("id"))
                .col(OffPathTable.integer("v")).col(OffPathTable.text("note"))
                .col(OffPathTable.date("c_date")).col(OffPathTable.time("c_time"))
                .col(OffPathTable.timestamp("c_ts")).col(OffPathTable.timestamptz("c_tstz"))
                .col(OffPathTable.numeric("c_num")).col(OffPathTable.text("c_text"))
                .col(OffPathTable.integer("c_int")).col(OffPathTable.bool("c_bool"))
                .ch("`id` Int32, `v` Int32, `note` Nullable(String)", "`id`");
        partDefault = partitioned(prefix + "_part_def", false);
        partFull = partitioned(prefix + "_part_full", true);
        unwrap = new OffPathTable("f ExtractNewRecordState tombstones", prefix + "_unwrap", "id int PRIMARY KEY, name "
                + "text NOT NULL, qty int", false, List.of("id"))
                .col(OffPathTable.text("name")).col(OffPathTable.integer("qty"))
                .ch("`id` Int32, `name` String, `qty` Nullable(Int32)", "`id`");
        late = new OffPathTable("g auto.create from a delete", prefix + "_late", "id int PRIMARY KEY, a text, "
                + "b numeric(10,2), c timestamptz, d boolean NOT NULL", false, List.of("id"))
                .col(OffPathTable.text("a")).col(OffPathTable.numeric("b")).col(OffPathTable.timestamptz("c"))
                .col(OffPathTable.bool("d"));
        for (OffPathTable t : tables()) {
            keys.put(t, new Keys());
        }
    }

    private OffPathTable partitioned(String name, boolean full) {
        OffPathTable t = new OffPathTable(full ? "e sorting key beyond the primary key, REPLICA IDENTITY FULL"
                : "e sorting key beyond the primary key, REPLICA IDENTITY DEFAULT", name, "id bigint PRIMARY KEY, "
                + "tenant_id int NOT NULL, created timestamp(6) NOT NULL, amount numeric(12,2) NOT NULL, label text",
                full, List.of("id"))
                .col(OffPathTable.integer("tenant_id")).col(OffPathTable.timestamp("created"))
                .col(OffPathTable.numeric("amount")).col(OffPathTable.text("label"))
                .ch("`id` Int64, `tenant_id` Int32, `created` DateTime64(6), `amount` Decimal(12, 2), "
                        + "`label` Nullable(String)", "`tenant_id`, `id`");
        t.chPartitionBy = "toYYYYMM(`created`)";
        t.chSettings = "allow_experimental_replacing_merge_with_cleanup = 1";
        t.finalSettings = "do_not_merge_across_partitions_select_final = 1";
        return t;
    }

    public List<OffPathTable> tables() {
        return List.of(toast, defaults, floats, evolve, partDefault, partFull, unwrap, late);
    }

    public String topic(OffPathTable t) {
        return prefix + ".public." + t.name;
    }

    public long changesDone() {
        return changesDone.get();
    }

    public Map<String, Long> stats() {
        return stats;
    }

    /** Creates the PostgreSQL tables (dropping old ones of the same names) with their replica identity. */
    public void createSourceTables() {
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            for (OffPathTable t : tables()) {
                st.execute("DROP TABLE IF EXISTS " + t.name);
                st.execute(t.pgCreate());
                st.execute("ALTER TABLE " + t.name + " REPLICA IDENTITY " + (t.replicaIdentityFull ? "FULL" : "DEFAULT"));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the source tables: " + e.getMessage(), e);
        }
    }

    /**
     * The Debezium PostgreSQL source for all tables: config/debezium-postgres-source.json (its
     * {@code value.converter.replace.null.with.default=false} keeps the NULLs in the topic) with its own slot and
     * publication, and snapshot.mode=no_data (only changes from its start).
     */
    public Map<String, String> debeziumConfig() {
        Map<String, String> c = DebeziumSource.postgres(pg, prefix, tables().stream().map(t -> "public." + t.name)
                .collect(Collectors.joining(",")));
        c.put("snapshot.mode", "no_data");
        return c;
    }

    /** Whether the source's replication slot exists (changes committed from then on reach its topics). */
    public boolean slotExists() {
        try (Connection c = pg.connect(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + prefix
                        + "_slot'")) {
            rs.next();
            return rs.getInt(1) == 1;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** (g): rows before the source connector starts (no_data: none of them is in its topic). */
    public void seedBeforeSource(int rows) {
        inTransaction(c -> {
            for (int i = 0; i < rows; i++) {
                insertLate(c, nextId++);
            }
        });
    }

    /** Bytes of the TOAST relation of a table: more than 0 when values are stored out of line. */
    public long toastBytes(OffPathTable t) {
        try (Connection c = pg.connect(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = '"
                        + t.name + "'")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * After the source runs: (g)'s delete first, then an update of every other pre-existing (g) row (so each has an
     * event), then the first rows of every other table.
     */
    public void fill(int toastRows, int rows) {
        inTransaction(c -> {
            Keys k = keys.get(late);
            List<Integer> seeded = new ArrayList<>(k.live);
            int first = seeded.get(random.nextInt(seeded.size()));
            exec(c, "DELETE FROM " + late.name + " WHERE id = ?", first);
            k.remove(first);
            count("g: the first event, a delete");
        });
        inTransaction(c -> {
            for (int id : new ArrayList<>(keys.get(late).live)) {
                updateLate(c, id);
            }
            count("g: update of each row made before the source");
        });
        inTransaction(c -> {
            for (int i = 0; i < toastRows; i++) {
                insertToast(c, nextId++);
            }
        });
        inTransaction(c -> {
            for (int i = 0; i < rows; i++) {
                insertDefaults(c, nextId++);
                insertFloats(c, nextId++);
                insertEvolve(c, nextId++);
                insertPart(c, partDefault, nextId++);
                insertPart(c, partFull, nextId++);
                insertUnwrap(c, nextId++);
            }
        });
    }

    /**
     * {@code changes} random changes over all parts in transactions of 1 to 5, at most {@code perSecond} a second;
     * (d)'s ALTER TABLE when 40% are done.
     */
    public void run(int changes, int perSecond) {
        PacedTransactions.run(pg::connect, random, changes, 5, perSecond, changesDone, (c, done) -> {
            if (!altered && done >= changes * 2 / 5) {
                alterEvolve(c);
                c.commit();
            }
        }, this::change);
    }

    private void change(Connection c) throws SQLException {
        int dice = random.nextInt(100);
        if (dice < 30) {
            changeToast(c);
        } else if (dice < 45) {
            changeDefaults(c);
        } else if (dice < 55) {
            changeFloats(c);
        } else if (dice < 70) {
            changeEvolve(c);
        } else if (dice < 85) {
            changePart(c, random.nextBoolean() ? partDefault : partFull);
        } else if (dice < 93) {
            changeUnwrap(c);
        } else {
            changeLate(c);
        }
    }

    // (a) TOAST

    private void insertToast(Connection c, int id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + toast.name + " (id, small_n, small_s, big_text, "
                + "big_bytes, big_json, big_ints, big_words) VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, ?)")) {
            ps.setInt(1, id);
            ps.setInt(2, random.nextInt(1_000_000));
            ps.setString(3, word());
            ps.setString(4, bigHex());
            ps.setBytes(5, bigBytes());
            ps.setString(6, bigJson());
            ps.setArray(7, c.createArrayOf("int4", bigInts()));
            ps.setArray(8, c.createArrayOf("text", bigWords()));
            ps.executeUpdate();
        }
        keys.get(toast).live.add(id);
    }

    private void changeToast(Connection c) throws SQLException {
        Keys k = keys.get(toast);
        int dice = random.nextInt(100);
        if (k.live.size() < 20 || dice < 8) {
            insertToast(c, nextId++);
            count("a: insert");
        } else if (dice < 78) {
            exec(c, "UPDATE " + toast.name + " SET small_n = ?, small_s = ? WHERE id = ?", random.nextInt(1_000_000),
                    word(), k.any(random));
            count("a: update of the small columns only");
        } else if (dice < 90) {
            int which = random.nextInt(5);
            String col = new String[] {"big_text", "big_bytes", "big_json", "big_ints", "big_words"}[which];
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + toast.name + " SET " + col + " = ?"
                    + (which == 2 ? "::jsonb" : "") + ", small_n = ? WHERE id = ?")) {
                if (which == 1) {
                    ps.setBytes(1, bigBytes());
                } else if (which == 3) {
                    ps.setArray(1, c.createArrayOf("int4", bigInts()));
                } else if (which == 4) {
                    ps.setArray(1, c.createArrayOf("text", bigWords()));
                } else {
                    ps.setString(1, which == 0 ? bigHex() : bigJson());
                }
                ps.setInt(2, random.nextInt(1_000_000));
                ps.setInt(3, k.any(random));
                ps.executeUpdate();
            }
            count("a: update of one large value (" + col + ")");
        } else if (dice < 95) {
            // A primary-key change leaving the large values alone: Debezium's create of the new key carries the
            // placeholder in each of them and the header __debezium.oldkey; the values are in the old key's row.
            int id = k.any(random);
            int moved = nextId++;
            exec(c, "UPDATE " + toast.name + " SET id = ?, small_n = small_n + 1 WHERE id = ?", moved, id);
            k.remove(id);
            k.live.add(moved);
            count("a: primary-key change leaving the large values alone");
        } else {
            int id = k.any(random);
            exec(c, "DELETE FROM " + toast.name + " WHERE id = ?", id);
            k.remove(id);
            count("a: delete");
        }
    }

    private String bigHex() {
        byte[] b = new byte[(8192 + random.nextInt(12_289)) / 2];
        random.nextBytes(b);
        return hex.formatHex(b);
    }

    private byte[] bigBytes() {
        byte[] b = new byte[8192 + random.nextInt(12_289)];
        random.nextBytes(b);
        return b;
    }

    /** 2,000-5,000 random ints: 8-20 KB that pglz cannot shrink below the TOAST threshold. */
    private Integer[] bigInts() {
        Integer[] a = new Integer[2000 + random.nextInt(3001)];
        for (int i = 0; i < a.length; i++) {
            a[i] = random.nextInt();
        }
        return a;
    }

    /** 400-1,000 random 16-hex-digit words. */
    private String[] bigWords() {
        String[] a = new String[400 + random.nextInt(601)];
        for (int i = 0; i < a.length; i++) {
            a[i] = String.format("%016x", random.nextLong());
        }
        return a;
    }

    private String bigJson() {
        return "{\"n\": " + random.nextInt(1000) + ", \"k\": \"" + bigHex() + "\"}";
    }

    // (b) NULLs into columns with defaults

    private static final String[] DEFAULTED = {"price", "status", "qty", "seen", "note"};
    private static final String[] DEFAULTED_TYPES = {"numeric", "text", "int", "timestamp", "text"};

    private String defaultedValue(int i) {
        switch (i) {
            case 0:
                return (random.nextInt(2_000_000) - 1_000_000) / 100.0 + "";
            case 1:
            case 4:
                return word();
            case 2:
                return String.valueOf(random.nextInt(100_000) - 50_000);
            default:
                return timestamp(1995);
        }
    }

    private void insertDefaults(Connection c, int id) throws SQLException {
        List<String> cols = new ArrayList<>(List.of("id"));
        List<String> marks = new ArrayList<>(List.of("?::int"));
        List<String> values = new ArrayList<>(List.of(String.valueOf(id)));
        for (int i = 0; i < DEFAULTED.length; i++) {
            int mode = random.nextInt(3); // 0: left out (its default), 1: explicit NULL, 2: a value
            if (mode > 0) {
                cols.add(DEFAULTED[i]);
                marks.add("?::" + DEFAULTED_TYPES[i]);
                values.add(mode == 1 ? null : defaultedValue(i));
            }
        }
        execStrings(c, "INSERT INTO " + defaults.name + " (" + String.join(", ", cols) + ") VALUES ("
                + String.join(", ", marks) + ")", values);
        keys.get(defaults).live.add(id);
    }

    private void changeDefaults(Connection c) throws SQLException {
        Keys k = keys.get(defaults);
        int dice = random.nextInt(100);
        if (k.live.size() < 20 || dice < 15) {
            insertDefaults(c, nextId++);
            count("b: insert (columns left out, explicit NULLs, values)");
        } else if (dice < 80) {
            List<String> set = new ArrayList<>();
            List<String> values = new ArrayList<>();
            for (int i = 0; i < DEFAULTED.length; i++) {
                if (set.isEmpty() || random.nextInt(3) == 0) {
                    set.add(DEFAULTED[i] + " = ?::" + DEFAULTED_TYPES[i]);
                    values.add(random.nextInt(5) < 2 ? null : defaultedValue(i));
                }
            }
            int id = k.any(random);
            values.add(String.valueOf(id));
            execStrings(c, "UPDATE " + defaults.name + " SET " + String.join(", ", set) + " WHERE id = ?::int", values);
            count("b: update (some columns to NULL)");
        } else if (dice < 88) {
            int id = k.any(random);
            int moved = nextId++;
            exec(c, "UPDATE " + defaults.name + " SET id = ? WHERE id = ?", moved, id);
            k.remove(id);
            k.live.add(moved);
            count("b: primary-key update");
        } else {
            int id = k.any(random);
            exec(c, "DELETE FROM " + defaults.name + " WHERE id = ?", id);
            k.remove(id);
            count("b: delete");
        }
    }

    // (c) NaN, Infinity

    private String floatValue() {
        int dice = random.nextInt(10);
        switch (dice) {
            case 0:
            case 1:
                return "NaN";
            case 2:
                return "Infinity";
            case 3:
                return "-Infinity";
            case 4:
                return null;
            default: // a quarter of an integer: exact in float4 and float8, printed alike by both sides
                int q = random.nextInt(80_000) - 40_000;
                return String.valueOf(q == 0 ? 1 : q / 4.0).replaceAll("\\.0$", "");
        }
    }

    private void insertFloats(Connection c, int id) throws SQLException {
        execStrings(c, "INSERT INTO " + floats.name + " (id, d, r) VALUES (?::int, ?::float8, ?::real)",
                java.util.Arrays.asList(String.valueOf(id), floatValue(), floatValue()));
        keys.get(floats).live.add(id);
    }

    private void changeFloats(Connection c) throws SQLException {
        Keys k = keys.get(floats);
        int dice = random.nextInt(100);
        if (k.live.size() < 20 || dice < 20) {
            insertFloats(c, nextId++);
            count("c: insert");
        } else if (dice < 85) {
            execStrings(c, "UPDATE " + floats.name + " SET d = ?::float8, r = ?::real WHERE id = ?::int",
                    java.util.Arrays.asList(floatValue(), floatValue(), String.valueOf(k.any(random))));
            count("c: update");
        } else {
            int id = k.any(random);
            exec(c, "DELETE FROM " + floats.name + " WHERE id = ?", id);
            k.remove(id);
            count("c: delete");
        }
    }

    // (d) ADD COLUMN mid-stream

    private static final String[] ADDED = {"c_date", "c_time", "c_ts", "c_tstz", "c_num", "c_text", "c_int", "c_bool"};
    private static final String[] ADDED_TYPES = {"date", "time(6)", "timestamp(6)", "timestamptz", "numeric(12,3)",
        "text", "int", "boolean"};
    private static final String[] ADDED_DEFAULTS = {"'2021-03-04'", "'12:34:56.789'", "'2022-01-02 03:04:05.678901'",
        "'2022-01-02 03:04:05.678901+00'", "123.456", "'dflt'", "42", "true"};

    private void alterEvolve(Connection c) throws SQLException {
        List<String> adds = new ArrayList<>();
        for (int i = 0; i < ADDED.length; i++) {
            adds.add("ADD COLUMN " + ADDED[i] + " " + ADDED_TYPES[i] + " NOT NULL DEFAULT " + ADDED_DEFAULTS[i]);
        }
        try (Statement st = c.createStatement()) {
            st.execute("ALTER TABLE " + evolve.name + " " + String.join(", ", adds));
        }
        altered = true;
        count("d: ALTER TABLE ADD COLUMN x8 (at 40% of the stream)");
    }

    private String addedValue(int i) {
        switch (i) {
            case 0:
                return LocalDate.of(1990, 1, 1).plusDays(random.nextInt(15_000)).toString();
            case 1:
                return String.format("%02d:%02d:%02d.%06d", random.nextInt(24), random.nextInt(60), random.nextInt(60),
                        random.nextInt(1_000_000));
            case 2:
                return timestamp(1990);
            case 3:
                return timestamp(1990) + "+00";
            case 4:
                return (random.nextBoolean() ? "-" : "") + random.nextInt(1_000_000_000) + "." + String.format("%03d",
                        random.nextInt(1000));
            case 5:
                return word();
            case 6:
                return String.valueOf(random.nextInt());
            default:
                return String.valueOf(random.nextBoolean());
        }
    }

    private void insertEvolve(Connection c, int id) throws SQLException {
        List<String> cols = new ArrayList<>(List.of("id", "v", "note"));
        List<String> marks = new ArrayList<>(List.of("?::int", "?::int", "?::text"));
        List<String> values = new ArrayList<>(List.of(String.valueOf(id), String.valueOf(random.nextInt(1000)),
                word()));
        if (altered) {
            for (int i = 0; i < ADDED.length; i++) {
                if (random.nextBoolean()) { // else its default
                    cols.add(ADDED[i]);
                    marks.add("?::" + ADDED_TYPES[i]);
                    values.add(addedValue(i));
                }
            }
        }
        execStrings(c, "INSERT INTO " + evolve.name + " (" + String.join(", ", cols) + ") VALUES ("
                + String.join(", ", marks) + ")", values);
        keys.get(evolve).live.add(id);
    }

    private void changeEvolve(Connection c) throws SQLException {
        Keys k = keys.get(evolve);
        int dice = random.nextInt(100);
        String after = altered ? " after the ALTER" : " before the ALTER";
        if (k.live.size() < 20 || dice < 20) {
            insertEvolve(c, nextId++);
            count("d: insert" + after);
        } else if (dice < 90) {
            List<String> set = new ArrayList<>(List.of("v = ?::int"));
            List<String> values = new ArrayList<>(List.of(String.valueOf(random.nextInt(1000))));
            if (altered && random.nextInt(3) == 0) {
                int i = random.nextInt(ADDED.length);
                set.add(ADDED[i] + " = ?::" + ADDED_TYPES[i]);
                values.add(addedValue(i));
            }
            values.add(String.valueOf(k.any(random)));
            execStrings(c, "UPDATE " + evolve.name + " SET " + String.join(", ", set) + " WHERE id = ?::int", values);
            count("d: update" + after);
        } else {
            int id = k.any(random);
            exec(c, "DELETE FROM " + evolve.name + " WHERE id = ?", id);
            k.remove(id);
            count("d: delete" + after);
        }
    }

    // (e) sorting key (tenant_id, id), partitions by month

    private void insertPart(Connection c, OffPathTable t, long id) throws SQLException {
        LocalDateTime created = LocalDateTime.of(2024, 1, 1, 0, 0).plusSeconds(random.nextInt(181 * 86_400))
                .plusNanos(random.nextInt(1_000_000) * 1000L);
        execStrings(c, "INSERT INTO " + t.name + " (id, tenant_id, created, amount, label) VALUES (?::bigint, ?::int, "
                + "?::timestamp, ?::numeric, ?)", java.util.Arrays.asList(String.valueOf(id),
                        String.valueOf(1 + random.nextInt(5)), created.toString().replace('T', ' '), amount(),
                        random.nextInt(6) == 0 ? null : word()));
        keys.get(t).live.add((int) id);
    }

    private String amount() {
        return String.valueOf((random.nextInt(20_000_000) - 10_000_000) / 100.0);
    }

    private void changePart(Connection c, OffPathTable t) throws SQLException {
        Keys k = keys.get(t);
        int dice = random.nextInt(100);
        String ri = t.replicaIdentityFull ? " (FULL)" : " (DEFAULT)";
        if (k.live.size() < 20 || dice < 25) {
            insertPart(c, t, nextId++);
            count("e: insert" + ri);
        } else if (dice < 70) {
            execStrings(c, "UPDATE " + t.name + " SET amount = ?::numeric, label = ? WHERE id = ?::bigint",
                    java.util.Arrays.asList(amount(), random.nextInt(6) == 0 ? null : word(),
                            String.valueOf(k.any(random))));
            count("e: update keeping tenant_id and created" + ri);
        } else {
            int id = k.any(random);
            exec(c, "DELETE FROM " + t.name + " WHERE id = ?", (long) id);
            k.remove(id);
            k.deleted.add(id);
            count("e: delete" + ri);
        }
    }

    // (f) tombstones only

    private void insertUnwrap(Connection c, int id) throws SQLException {
        execStrings(c, "INSERT INTO " + unwrap.name + " (id, name, qty) VALUES (?::int, ?, ?::int)",
                java.util.Arrays.asList(String.valueOf(id), word(), random.nextInt(5) == 0 ? null
                        : String.valueOf(random.nextInt(1000))));
        keys.get(unwrap).live.add(id);
    }

    private void changeUnwrap(Connection c) throws SQLException {
        Keys k = keys.get(unwrap);
        int dice = random.nextInt(100);
        if (k.live.size() < 20 || dice < 15) {
            insertUnwrap(c, nextId++);
            count("f: insert");
        } else if (dice < 60) {
            execStrings(c, "UPDATE " + unwrap.name + " SET name = ?, qty = ?::int WHERE id = ?::int",
                    java.util.Arrays.asList(word(), String.valueOf(random.nextInt(1000)), String.valueOf(k.any(random))));
            count("f: update");
        } else if (dice < 85 || k.deleted.isEmpty()) {
            int id = k.any(random);
            exec(c, "DELETE FROM " + unwrap.name + " WHERE id = ?", id);
            k.remove(id);
            k.deleted.add(id);
            count("f: delete");
        } else {
            int id = k.deleted.remove(random.nextInt(k.deleted.size()));
            insertUnwrap(c, id);
            count("f: re-insert of a deleted key");
        }
    }

    // (g) auto.create from a delete

    private void insertLate(Connection c, int id) throws SQLException {
        execStrings(c, "INSERT INTO " + late.name + " (id, a, b, c, d) VALUES (?::int, ?, ?::numeric, ?::timestamptz, "
                + "?::boolean)", java.util.Arrays.asList(String.valueOf(id), random.nextInt(5) == 0 ? null : word(),
                        String.valueOf((random.nextInt(2_000_000) - 1_000_000) / 100.0),
                        random.nextInt(5) == 0 ? null : timestamp(2000) + "+00", String.valueOf(random.nextBoolean())));
        keys.get(late).live.add(id);
    }

    private void updateLate(Connection c, int id) throws SQLException {
        execStrings(c, "UPDATE " + late.name + " SET a = ?, d = ?::boolean WHERE id = ?::int", java.util.Arrays.asList(
                random.nextInt(5) == 0 ? null : word(), String.valueOf(random.nextBoolean()), String.valueOf(id)));
    }

    private void changeLate(Connection c) throws SQLException {
        Keys k = keys.get(late);
        int dice = random.nextInt(100);
        if (k.live.size() < 20 || dice < 30) {
            insertLate(c, nextId++);
            count("g: insert");
        } else if (dice < 80) {
            updateLate(c, k.any(random));
            count("g: update");
        } else {
            int id = k.any(random);
            exec(c, "DELETE FROM " + late.name + " WHERE id = ?", id);
            k.remove(id);
            count("g: delete");
        }
    }

    // helpers

    private String word() {
        StringBuilder b = new StringBuilder();
        int n = 1 + random.nextInt(12);
        for (int i = 0; i < n; i++) {
            b.append((char) ('a' + random.nextInt(26)));
        }
        return random.nextInt(10) == 0 ? b + " äß漢" : b.toString();
    }

    private String timestamp(int fromYear) {
        return LocalDateTime.of(fromYear, 1, 1, 0, 0).plusSeconds(random.nextInt(900_000_000))
                .plusNanos((1 + random.nextInt(999_999)) * 1000L).toString().replace('T', ' ');
    }

    private synchronized void count(String what) {
        stats.merge(what, 1L, Long::sum);
    }

    private interface Work {
        void run(Connection c) throws SQLException;
    }

    private void inTransaction(Work w) {
        try (Connection c = pg.connect()) {
            c.setAutoCommit(false);
            w.run(c);
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("workload failed: " + e.getMessage(), e);
        }
    }

    private static void exec(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            int n = ps.executeUpdate();
            if (n != 1) {
                throw new IllegalStateException(sql + " changed " + n + " rows, expected 1");
            }
        }
    }

    private static void execStrings(Connection c, String sql, List<String> args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.size(); i++) {
                SqlParams.set(ps, i + 1, args.get(i));
            }
            int n = ps.executeUpdate();
            if (n != 1) {
                throw new IllegalStateException(sql + " changed " + n + " rows, expected 1");
            }
        }
    }

    /** Live (and deleted) keys of one table. */
    private static final class Keys {
        final List<Integer> live = new ArrayList<>();
        final List<Integer> deleted = new ArrayList<>();

        int any(Random r) {
            return live.get(r.nextInt(live.size()));
        }

        void remove(int id) {
            int i = live.indexOf(id);
            live.set(i, live.get(live.size() - 1));
            live.remove(live.size() - 1);
        }
    }
}
