package io.chsink.it.bench;

import io.chsink.it.bench.DebeziumEvents.Row;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The change stream of path V: what a PostgreSQL database with K tables and Debezium 3.6.1 on top of it would emit,
 * in WAL order, generated from a seed (the same seed gives the same stream), with the final state of every table
 * kept for the checks. First the initial snapshot (op {@code r}) of a fifth of the change events, table after table
 * (all at the snapshot's LSN and transaction, {@code source.snapshot} first / first_in_data_collection / true /
 * last_in_data_collection / last), then transactions of 1 to 4 changes drawn from a die of 100: below 72 an update
 * (op {@code u}, {@code before} null: REPLICA IDENTITY DEFAULT; {@code toastPercent} of the updates, by default one in
 * ten, leave the TOASTed {@code body} alone and carry Debezium's placeholder there), below 82 an insert of a new key (op {@code c}), below 92 a delete
 * (op {@code d}, followed by its tombstone), else a primary-key update (a delete of the old key with its tombstone,
 * then a create of a new key, as Debezium writes it). Each streamed change has its own LSN, above the snapshot's and
 * above the one before (the sink's version for {@code source.connector=postgresql} is {@code source.lsn}, so a later
 * change of a key always wins); the create of a primary-key change shares its delete's LSN (one WAL record), under
 * another key. A table with fewer than 10 live rows gets an insert. The same seed and {@code toastPercent} give the
 * same stream; a multiple of ten draws an update's placeholder from the same die as the 10 of earlier runs (so 10
 * gives their stream), any other percentage from a die of 100.
 *
 * <p>Limits of the model: a primary-key update's create carries the body in full (under REPLICA IDENTITY DEFAULT a
 * real one would carry the placeholder, which no sink can fill: docs/cdc.md, Limits); the body values are 150-320
 * characters, where PostgreSQL TOASTs only values of about 2 KB, so that rows stay at 300-600 bytes of JSON.
 */
final class ChangeStream {
    /**
     * One record of the stream: op {@code r}, {@code c}, {@code u}, {@code d}, or {@code t} for the tombstone after a
     * delete. {@code row}: the row after the change (null for d and t); {@code toast}: an update whose body is the
     * placeholder; {@code otherKey}: for the delete and create of a primary-key update the other key, else -1;
     * {@code snapshot}: source.snapshot of a snapshot record, null when streamed; {@code lastCommitLsn}: -1 for none.
     */
    record Change(int table, char op, long id, Row row, boolean toast, long otherKey, String snapshot, long lsn,
            long lastCommitLsn, long txId, long sourceMicros, long processedNanos) {
    }

    /** How many of each kind the stream held. */
    static final class Counts {
        long reads;
        long inserts;
        long updates;
        long toastUpdates;
        long deletes;
        long keyChanges;
        long transactions;
        long events;
        long tombstones;

        long records() {
            return events + tombstones;
        }

        @Override
        public String toString() {
            return String.format("%,d change events (%,d snapshot reads, %,d updates of which %,d with the TOAST"
                    + " placeholder, %,d inserts, %,d deletes, %,d primary-key updates as delete + create, in %,d"
                    + " transactions) and %,d tombstones = %,d records", events, reads, updates, toastUpdates, inserts,
                    deletes, keyChanges, transactions, tombstones, records());
        }
    }

    /** A table's rows as the generator left them: the live rows, and which of them took their body from a TOAST fill. */
    static final class TableState {
        final Map<Long, Row> rows = new HashMap<>();
        final Map<Long, Boolean> filled = new HashMap<>();
        private final List<Long> live = new ArrayList<>();
        private final Map<Long, Integer> index = new HashMap<>();
        long nextId = 1;

        void put(Row r, boolean bodyFilled) {
            if (rows.put(r.id(), r) == null) {
                index.put(r.id(), live.size());
                live.add(r.id());
            }
            if (bodyFilled) {
                filled.put(r.id(), true);
            } else {
                filled.remove(r.id());
            }
        }

        void remove(long id) {
            rows.remove(id);
            filled.remove(id);
            int i = index.remove(id);
            long last = live.remove(live.size() - 1);
            if (last != id) {
                live.set(i, last);
                index.put(last, i);
            }
        }

        long pick(Random r) {
            return live.get(r.nextInt(live.size()));
        }

        int size() {
            return live.size();
        }
    }

    private static final String[] STATUS = {"new", "paid", "packed", "shipped", "delivered", "returned"};
    private static final String[] WORDS = ("order invoice parcel customer shipment warehouse pallet courier address"
            + " street city region return refund payment card bank transfer priority standard express fragile"
            + " handle with care leave at door ring bell twice call on arrival gift wrap note from the store thank"
            + " you for your purchase please keep this receipt").split(" ");
    /** 2026-01-05 08:00:00 UTC: the snapshot starts here. */
    private static final long T0 = 1_767_600_000_000_000L;
    /** The slot's consistent point: the snapshot's LSN (0/16B3748, as a fresh cluster has it). */
    private static final long SNAPSHOT_LSN = 0x16B3748L;

    final int tables;
    final long events;
    final long seed;
    /** Percent of the updates that carry the TOAST placeholder (0 to 100). */
    final int toastPercent;
    final List<TableState> state = new ArrayList<>();
    final Counts counts = new Counts();

    ChangeStream(int tables, long events, long seed) {
        this(tables, events, seed, 10);
    }

    ChangeStream(int tables, long events, long seed, int toastPercent) {
        if (toastPercent < 0 || toastPercent > 100) {
            throw new IllegalArgumentException("toastPercent must be 0 to 100, got " + toastPercent);
        }
        this.tables = tables;
        this.events = events;
        this.seed = seed;
        this.toastPercent = toastPercent;
    }

    /** Generates the whole stream into {@code out}, in WAL order; fills {@link #state} and {@link #counts}. */
    void generate(Consumer<Change> out) {
        Random rnd = new Random(seed);
        state.clear();
        for (int t = 0; t < tables; t++) {
            state.add(new TableState());
        }
        long snapshotRows = Math.max(tables * 10L, events / 5);
        long clock = T0;
        long snapshotTx = 771;
        long emitted = 0;
        for (int t = 0; t < tables; t++) {
            long n = snapshotRows / tables + (t < snapshotRows % tables ? 1 : 0);
            TableState s = state.get(t);
            for (long i = 0; i < n; i++) {
                clock += 2 + rnd.nextInt(4);
                Row r = newRow(rnd, s.nextId++, clock - 86_400_000_000L * (1 + rnd.nextInt(700)), clock);
                s.put(r, false);
                emitted++;
                String marker = emitted == 1 ? "first" : emitted == snapshotRows ? "last"
                        : i == 0 ? "first_in_data_collection" : i == n - 1 ? "last_in_data_collection" : "true";
                out.accept(new Change(t, 'r', r.id(), r, false, -1, marker, SNAPSHOT_LSN, -1, snapshotTx, clock,
                        (clock + 1_000 + rnd.nextInt(3_000)) * 1000 + rnd.nextInt(1000)));
                counts.reads++;
            }
        }
        // WAL positions: a change's LSN is where its record starts; source.sequence is [the end of the previous
        // transaction's COMMIT record (pgoutput's COMMIT position), the change's LSN]. The first change of a
        // transaction mostly starts right where the previous COMMIT ended (as Debezium 3.6.1 on PostgreSQL 15 shows:
        // sequence ["22053376","22053376"]), sometimes after other WAL records.
        long wal = SNAPSHOT_LSN + 0x98;
        long lastCommit = -1;
        long tx = snapshotTx;
        while (emitted < events) {
            tx += rnd.nextInt(4) == 0 ? 2 : 1;
            if (rnd.nextInt(4) == 0) {
                wal += 8 * (1 + rnd.nextInt(64)); // other WAL in between
            }
            clock += 200 + rnd.nextInt(2_000);
            long commit = clock;
            int size = 1 + rnd.nextInt(4);
            counts.transactions++;
            for (int k = 0; k < size && emitted < events; k++) {
                int t = rnd.nextInt(tables);
                TableState s = state.get(t);
                long lsn = wal;
                wal += 8 * (7 + rnd.nextInt(50)); // this change's WAL record
                long processed = (commit + 2_000 + rnd.nextInt(30_000)) * 1000 + rnd.nextInt(1000);
                int dice = rnd.nextInt(100);
                if (s.size() < 10) {
                    dice = 75;
                }
                if (dice >= 92 && events - emitted < 2) {
                    dice = 0; // a primary-key update is two events: not as the very last one
                }
                if (dice < 72) {
                    Row old = s.rows.get(s.pick(rnd));
                    boolean toast = toastPercent % 10 == 0 ? rnd.nextInt(10) < toastPercent / 10
                            : rnd.nextInt(100) < toastPercent;
                    Row r = update(rnd, old, commit, toast);
                    s.put(r, toast); // a TOAST update's body is filled from the current row; any other sends it
                    out.accept(new Change(t, 'u', r.id(), r, toast, -1, null, lsn, lastCommit, tx, commit, processed));
                    counts.updates++;
                    if (toast) {
                        counts.toastUpdates++;
                    }
                    emitted++;
                } else if (dice < 82) {
                    Row r = newRow(rnd, s.nextId++, commit - rnd.nextInt(1_000_000), commit);
                    s.put(r, false);
                    out.accept(new Change(t, 'c', r.id(), r, false, -1, null, lsn, lastCommit, tx, commit, processed));
                    counts.inserts++;
                    emitted++;
                } else if (dice < 92) {
                    long id = s.pick(rnd);
                    s.remove(id);
                    out.accept(new Change(t, 'd', id, null, false, -1, null, lsn, lastCommit, tx, commit, processed));
                    out.accept(new Change(t, 't', id, null, false, -1, null, lsn, lastCommit, tx, commit, processed));
                    counts.deletes++;
                    counts.tombstones++;
                    emitted++;
                } else {
                    long oldId = s.pick(rnd);
                    Row old = s.rows.get(oldId);
                    long newId = s.nextId++;
                    Row r = update(rnd, old, commit, false).withId(newId);
                    s.remove(oldId);
                    s.put(r, false);
                    out.accept(new Change(t, 'd', oldId, null, false, newId, null, lsn, lastCommit, tx, commit,
                            processed));
                    out.accept(new Change(t, 't', oldId, null, false, newId, null, lsn, lastCommit, tx, commit,
                            processed));
                    out.accept(new Change(t, 'c', newId, r, false, oldId, null, lsn, lastCommit, tx, commit,
                            processed + 700_000 + rnd.nextInt(100_000)));
                    counts.keyChanges++;
                    counts.tombstones++;
                    emitted += 2;
                }
            }
            wal += 8 * (6 + rnd.nextInt(3)); // the COMMIT record
            lastCommit = wal;
        }
        counts.events = emitted;
    }

    private static Row newRow(Random rnd, long id, long createdMicros, long now) {
        return new Row(id, 1 + rnd.nextInt(50_000), 1 + rnd.nextInt(500), rnd.nextInt(1_000_000_000),
                STATUS[rnd.nextInt(STATUS.length)], BigDecimal.valueOf(rnd.nextInt(100_000_000), 2), createdMicros, now,
                rnd.nextBoolean(), rnd.nextInt(10) < 3 ? null : text(rnd, 20, 60), text(rnd, 150, 320));
    }

    /**
     * An update of some columns; {@code toast}: the body stays (the event carries the placeholder), else one update
     * in three writes a new body and the rest send the body unchanged, in full.
     */
    private static Row update(Random rnd, Row o, long now, boolean toast) {
        int quantity = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(500) : o.quantity();
        long views = o.views() + rnd.nextInt(1_000);
        String status = rnd.nextInt(3) == 0 ? STATUS[rnd.nextInt(STATUS.length)] : o.status();
        BigDecimal amount = rnd.nextInt(3) == 0 ? BigDecimal.valueOf(rnd.nextInt(100_000_000), 2) : o.amount();
        boolean active = rnd.nextInt(8) == 0 ? !o.active() : o.active();
        String note = rnd.nextInt(5) == 0 ? (rnd.nextInt(10) < 3 ? null : text(rnd, 20, 60)) : o.note();
        String body = !toast && rnd.nextInt(3) == 0 ? text(rnd, 150, 320) : o.body();
        return new Row(o.id(), o.accountId(), quantity, views, status, amount, o.createdMicros(), now, active, note,
                body);
    }

    private static String text(Random rnd, int min, int max) {
        int target = min + rnd.nextInt(max - min + 1);
        StringBuilder sb = new StringBuilder(target + 16);
        while (sb.length() < target) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(WORDS[rnd.nextInt(WORDS.length)]);
        }
        sb.setLength(target);
        return sb.toString().trim();
    }

    // ---------------------------------------------------------------- the checks

    /** A count and an order-independent hash of rows: the sum (mod 2^64) of the first 8 bytes of each line's MD5. */
    record Fingerprint(long rows, long hash) {
        @Override
        public String toString() {
            return "rows=" + rows + " hash=" + Long.toUnsignedString(hash, 16);
        }
    }

    /** What a table holds after the stream, as {@link #rowLine} lines: every live row. */
    Fingerprint expectedRows(int table) {
        long sum = 0;
        for (Row r : state.get(table).rows.values()) {
            sum += md5Prefix(rowLine(r));
        }
        return new Fingerprint(state.get(table).rows.size(), sum);
    }

    /** The live rows whose body came last from a TOAST fill: id and body. */
    Fingerprint expectedFilled(int table) {
        long sum = 0;
        TableState s = state.get(table);
        for (Long id : s.filled.keySet()) {
            sum += md5Prefix(id + "|" + s.rows.get(id).body());
        }
        return new Fingerprint(s.filled.size(), sum);
    }

    /** The ClickHouse expression of {@link #rowLine}. */
    static final String ROW_LINE_SQL = "concat(toString(`id`), '|', toString(`account_id`), '|', toString(`quantity`),"
            + " '|', toString(`views`), '|', `status`, '|', toString(toInt64(`amount` * 100)), '|',"
            + " toString(toUnixTimestamp64Micro(`created`)), '|', toString(toUnixTimestamp64Micro(`updated`)), '|',"
            + " toString(toUInt8(`active`)), '|', ifNull(`note`, '~null~'), '|', `body`)";

    /** A row as canonical text: the columns joined with '|', amount in cents, timestamps in µs, NULL as ~null~. */
    static String rowLine(Row r) {
        return r.id() + "|" + r.accountId() + "|" + r.quantity() + "|" + r.views() + "|" + r.status() + "|"
                + r.amount().movePointRight(2).longValueExact() + "|" + r.createdMicros() + "|" + r.updatedMicros()
                + "|" + (r.active() ? 1 : 0) + "|" + (r.note() == null ? "~null~" : r.note()) + "|" + r.body();
    }

    /** ClickHouse's {@code reinterpretAsUInt64(MD5(s))}: the digest's first 8 bytes, little-endian. */
    static long md5Prefix(String s) {
        try {
            byte[] d = MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
