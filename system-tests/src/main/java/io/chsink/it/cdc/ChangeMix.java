package io.chsink.it.cdc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The random mix of changes of {@link CdcWorkload} and {@link BinlogWorkload} and its bookkeeping: per table the live
 * and deleted keys, and the counts by kind of change. Each change draws a die of 100 from the workload's own
 * {@link Random}: below 30 (or fewer than 20 live rows) an insert of a new key, then (optionally) the workload's own
 * extra kind, below 62 an update, below 80 a delete, below 90 a primary-key update, else a re-insert of a deleted key
 * (an insert when none is deleted). The SQL of each kind is the workload's ({@link Ops}).
 *
 * @param <T> the workload's table type
 */
public final class ChangeMix<T> {
    /** The per-database statements of each kind of change; each draws its values from the workload's Random. */
    interface Ops<T> {
        /** A key not used before. */
        Object[] newKey(T t);

        void insert(Connection c, T t, Object[] key) throws SQLException;

        void update(Connection c, T t, Object[] key) throws SQLException;

        void delete(Connection c, T t, Object[] key) throws SQLException;

        void updateKey(Connection c, T t, Object[] old, Object[] moved) throws SQLException;

        /**
         * A kind of change of the workload's own, asked after the insert's share: true when it took this die
         * (and counted itself in {@code s}). None by default.
         */
        default boolean extra(Connection c, T t, int dice, Stats s) throws SQLException {
            return false;
        }
    }

    /** What a run did, by kind of change. */
    public static class Stats {
        public long inserts;
        public long updates;
        public long deletes;
        public long keyUpdates;
        public long reinserts;
        public long transactions;

        public long total() {
            return inserts + updates + deletes + keyUpdates + reinserts;
        }

        @Override
        public String toString() {
            return total() + " changes in " + transactions + " transactions: " + inserts + " inserts, " + updates
                    + " updates, " + deletes + " deletes, " + keyUpdates + " primary-key updates, " + reinserts
                    + " re-inserts of deleted keys";
        }
    }

    private final Random random;
    private final Ops<T> ops;
    private final Map<T, Keys> keys = new HashMap<>();

    ChangeMix(Random random, Ops<T> ops) {
        this.random = random;
        this.ops = ops;
    }

    /** Records a key that exists in the source (e.g. bulk-loaded). */
    void addLive(T t, Object[] key) {
        keys(t).live.add(key);
    }

    /** Inserts a row with a new key. */
    void insertNew(Connection c, T t) throws SQLException {
        Object[] key = ops.newKey(t);
        ops.insert(c, t, key);
        keys(t).live.add(key);
    }

    /** One random change of table {@code t}, counted in {@code s}. */
    void change(Connection c, T t, Stats s) throws SQLException {
        Keys k = keys(t);
        int dice = random.nextInt(100);
        if (k.live.size() < 20 || dice < 30) {
            insertNew(c, t);
            s.inserts++;
        } else if (ops.extra(c, t, dice, s)) {
            return;
        } else if (dice < 62) {
            ops.update(c, t, k.live.get(random.nextInt(k.live.size())));
            s.updates++;
        } else if (dice < 80) {
            Object[] key = k.removeLive(random.nextInt(k.live.size()));
            ops.delete(c, t, key);
            k.deleted.add(key);
            s.deletes++;
        } else if (dice < 90) {
            int i = random.nextInt(k.live.size());
            Object[] old = k.live.get(i);
            Object[] moved = ops.newKey(t);
            ops.updateKey(c, t, old, moved);
            k.live.set(i, moved);
            k.deleted.add(old);
            s.keyUpdates++;
        } else if (!k.deleted.isEmpty()) {
            Object[] key = k.deleted.remove(random.nextInt(k.deleted.size()));
            ops.insert(c, t, key);
            k.live.add(key);
            s.reinserts++;
        } else {
            insertNew(c, t);
            s.inserts++;
        }
    }

    private Keys keys(T t) {
        return keys.computeIfAbsent(t, x -> new Keys());
    }

    /** Live and deleted keys of one table, as the workload knows them. */
    private static final class Keys {
        final List<Object[]> live = new ArrayList<>();
        final List<Object[]> deleted = new ArrayList<>();

        Object[] removeLive(int i) {
            Object[] k = live.get(i);
            Object[] last = live.remove(live.size() - 1);
            if (i < live.size()) {
                live.set(i, last);
            }
            return k;
        }
    }
}
