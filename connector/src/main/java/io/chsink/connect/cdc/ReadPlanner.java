package io.chsink.connect.cdc;

import io.chsink.connect.config.TableRouter;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Plans the current-row reads of a batch: reads each record's change event once, finds the keys whose current row
 * its changes need (an upsert's TOAST placeholders, a delete's keyed and carried columns, a tombstone's version) that
 * no pending row, recent row or earlier change of the batch brings, and reads them with one query per table
 * ({@link CurrentRows#read}), or lets the batch wait for the next poll's records so that one read serves both.
 */
final class ReadPlanner {
    private final TableRouter router;
    private final Function<TableId, TableLayout> layouts;
    private final ChangeVersion rule;
    /** tombstones.behavior=delete: a tombstone needs its key's current row. */
    private final boolean deleteTombstones;
    private final ChangeColumns changeColumns;
    private final PendingRows pending;
    private final RecentRows recent;
    private final CurrentRows currentRows;
    private final RowKeys keys;
    /** This batch: the change event (or {@link ChangeEvent.Malformed}) read for each record by {@link #prepare}. */
    private final Map<SinkRecord, Object> events = new IdentityHashMap<>();
    /**
     * The records the last prepare let wait, in order, and what it found they need: the batch they come again with
     * starts with them, so only the records after them are looked at.
     */
    private final List<SinkRecord> waiting = new ArrayList<>();
    private Map<TableId, Need> waitingNeeds = new HashMap<>();
    private List<SinkRecord> waitingWhole = new ArrayList<>();
    /** The keys of waitingWhole's first waitingBroughtUpTo records, by table, each with its first index there. */
    private Map<TableId, Map<RowKey, Integer>> waitingBrought = new HashMap<>();
    private int waitingBroughtUpTo;
    /**
     * The keys the cache answered for when their records were looked at: this prepare's, and those of the records
     * let wait. Blocks inserted while polls wait put rows into the cache and push the least recently used out, so
     * before the read the waiting records' ones are looked up again: a key gone from the cache is read with the
     * others, not alone when its record becomes a row.
     */
    private List<CachedNeed> seenCached = new ArrayList<>();
    private List<CachedNeed> waitingCached = new ArrayList<>();

    /** @param layouts the target table's layout, or null while unknown */
    ReadPlanner(TableRouter router, Function<TableId, TableLayout> layouts, ChangeVersion rule,
            boolean deleteTombstones, ChangeColumns changeColumns, PendingRows pending, RecentRows recent,
            CurrentRows currentRows, RowKeys keys) {
        this.keys = keys;
        this.router = router;
        this.layouts = layouts;
        this.rule = rule;
        this.deleteTombstones = deleteTombstones;
        this.changeColumns = changeColumns;
        this.pending = pending;
        this.recent = recent;
        this.currentRows = currentRows;
    }

    /**
     * The record's change event as prepare read it (the map is emptied by the next batch's prepare), else read now;
     * throws {@link ChangeEvent.Malformed} for one that cannot be read.
     */
    ChangeEvent event(SinkRecord record) {
        Object read = events.get(record);
        if (read == null) {
            return ChangeEvent.read(record, rule);
        }
        if (read instanceof ChangeEvent.Malformed) {
            throw (ChangeEvent.Malformed) read;
        }
        return (ChangeEvent) read;
    }

    /** A key whose current row the cache held when its record was looked at, and what the record needs of it. */
    private static final class CachedNeed {
        final TableId table;
        final RowKey key;
        final String topic;
        final int partition;
        final List<String> columns;
        /** How many whole records of the batch came before its record. */
        final int after;

        CachedNeed(TableId table, RowKey key, String topic, int partition, List<String> columns, int after) {
            this.table = table;
            this.key = key;
            this.topic = topic;
            this.partition = partition;
            this.columns = columns;
            this.after = after;
        }
    }

    /** One table's keys whose current row this batch needs, and the columns it needs of them. */
    private static final class Need {
        List<String> keyColumns;
        final Set<RowKey> keys = new LinkedHashSet<>();
        /** Per key, how many whole records of the batch came before the first record that needs it. */
        final Map<RowKey, Integer> after = new HashMap<>();
        final Set<String> columns = new LinkedHashSet<>();
    }

    /**
     * Reads what the batch's rows need from the tables at once, and returns true; or, when rows must be read and
     * {@code mayWait}, reads nothing and returns false: the batch comes again with the next poll's records after it
     * ({@link RowSource#prepare}).
     */
    boolean prepare(Collection<SinkRecord> records, boolean mayWait) {
        currentRows.newBatch();
        keys.newBatch();
        Map<TableId, Need> needs;
        List<SinkRecord> whole;
        Iterator<SinkRecord> it = records.iterator();
        List<CachedNeed> recheck = List.of();
        if (startsWithWaiting(it)) {
            needs = waitingNeeds; // the records held: looked at already
            whole = waitingWhole;
            recheck = waitingCached;
        } else {
            events.clear();
            needs = new HashMap<>();
            whole = new ArrayList<>();
            it = records.iterator();
            forgetWaiting();
        }
        waiting.clear();
        seenCached = new ArrayList<>();
        String lastTopic = null;
        TableId table = null;
        while (it.hasNext()) {
            SinkRecord r = it.next();
            if (!r.topic().equals(lastTopic)) {
                lastTopic = r.topic();
                table = router.tableFor(lastTopic);
            }
            TableLayout layout = layouts.apply(table);
            if (r.value() == null) {
                if (deleteTombstones && layout != null) {
                    need(needs, table, r, layout.keyedBeyond(changeColumns.keyFieldsOrEmpty(r.key())), whole.size());
                }
                continue;
            }
            Object read = events.get(r);
            if (read == null) {
                try {
                    read = ChangeEvent.read(r, rule);
                } catch (ChangeEvent.Malformed m) {
                    read = m;
                }
                events.put(r, read);
            }
            if (!(read instanceof ChangeEvent)) {
                continue;
            }
            ChangeEvent e = (ChangeEvent) read;
            if (e.kind == ChangeEvent.Kind.UPSERT) {
                List<String> toast = changeColumns.placeholderFields(e);
                if (!toast.isEmpty()) {
                    if (!currentRows.resting(r)) { // else it waits on without a read (toRow)
                        need(needs, table, r, toast, whole.size());
                    }
                } else {
                    whole.add(r);
                }
            } else if (e.kind == ChangeEvent.Kind.DELETE && layout != null) {
                List<String> keyFields = changeColumns.keyFieldsOrEmpty(r.key());
                List<String> beyond = layout.keyedBeyond(keyFields);
                List<String> columns = ChangeColumns.union(beyond,
                        changeColumns.carried(r, layout, e.image.value(), keyFields, beyond));
                if (!columns.isEmpty()) {
                    need(needs, table, r, columns, whole.size());
                }
                whole.add(r); // the tombstone after it (same batch, mostly) finds this delete pending
            }
        }
        Map<TableId, List<RowKey>> unknowns = needs.isEmpty() ? Map.of() : unknowns(needs, whole);
        if (mayWait && !unknowns.isEmpty()) {
            waiting.addAll(records);
            waitingNeeds = needs;
            waitingWhole = whole;
            waitingCached.addAll(seenCached); // after the held ones' (recheck is this list, or forgetWaiting's new one)
            return false;
        }
        // Going on now: a key the cache answered for when a held record was looked at may have left it since.
        boolean gone = false;
        for (CachedNeed c : recheck) {
            if (recent.find(c.table, c.key, c.topic, c.partition, c.columns) == null) {
                addNeed(needs, c.table, c.key, c.columns, c.after);
                gone = true;
            }
        }
        if (gone) {
            unknowns = unknowns(needs, whole);
        }
        if (unknowns.isEmpty()) {
            forgetWaiting();
            return true;
        }
        for (Map.Entry<TableId, Need> n : needs.entrySet()) {
            Need need = n.getValue();
            List<RowKey> unknown = unknowns.get(n.getKey());
            if (unknown != null) {
                Set<String> columns = new LinkedHashSet<>();
                TableLayout layout = layouts.apply(n.getKey());
                for (String c : need.columns) {
                    if (layout == null || layout.types.containsKey(c)) {
                        columns.add(c);
                    }
                }
                currentRows.read(n.getKey(), need.keyColumns, unknown, columns);
            }
        }
        forgetWaiting();
        return true;
    }

    /**
     * The needed keys that are neither pending nor brought by a whole row or delete of the batch before the first
     * change that needs them (mostly just before): those are pending by the time that change becomes a row. One
     * brought only after it is read with the others, not alone then. (Should the record bringing a key turn out a bad
     * record, toRow reads the key alone.) The keys of the records let wait are kept for the batch they come again with.
     */
    private Map<TableId, List<RowKey>> unknowns(Map<TableId, Need> needs, List<SinkRecord> whole) {
        Map<TableId, Map<RowKey, Integer>> brought = waitingBrought;
        for (int i = waitingBroughtUpTo; i < whole.size(); i++) {
            SinkRecord r = whole.get(i);
            RowKey k = keys.of(r.key());
            if (k != null) {
                brought.computeIfAbsent(router.tableFor(r.topic()), x -> new HashMap<>()).putIfAbsent(k, i);
            }
        }
        waitingBroughtUpTo = whole.size();
        Map<TableId, List<RowKey>> unknowns = new HashMap<>();
        for (Map.Entry<TableId, Need> n : needs.entrySet()) {
            Map<RowKey, Integer> b = brought.getOrDefault(n.getKey(), Map.of());
            Need need = n.getValue();
            for (RowKey k : need.keys) {
                Integer at = b.get(k);
                if (!pending.has(n.getKey(), k) && (at == null || at >= need.after.get(k))) {
                    unknowns.computeIfAbsent(n.getKey(), t -> new ArrayList<>()).add(k);
                }
            }
        }
        return unknowns;
    }

    private void forgetWaiting() {
        waitingNeeds = new HashMap<>();
        waitingWhole = new ArrayList<>();
        waitingBrought = new HashMap<>();
        waitingBroughtUpTo = 0;
        waitingCached = new ArrayList<>();
    }

    /**
     * Whether the batch starts with the records the last prepare let wait (the same objects, in order), leaving the
     * iterator after them; the held records of a partition revoked or rewound meanwhile are gone from it, and then
     * the whole batch is looked at again.
     */
    private boolean startsWithWaiting(Iterator<SinkRecord> it) {
        if (waiting.isEmpty()) {
            return false;
        }
        for (SinkRecord w : waiting) {
            if (!it.hasNext() || it.next() != w) {
                return false;
            }
        }
        return true;
    }

    /** @param after how many whole records of the batch came before {@code r} */
    private void need(Map<TableId, Need> needs, TableId table, SinkRecord r, List<String> columns, int after) {
        RowKey k = keys.of(r.key());
        TableLayout layout = layouts.apply(table);
        if (k == null || layout != null && !layout.types.keySet().containsAll(k.columns)) {
            return; // toRow reports why, where the current row is needed
        }
        if (recent.find(table, k, Origin.topic(r), Origin.partition(r), columns) != null) {
            // Cached: rows enter the cache between batches; a held record's key is looked up again before the read
            // (should it have left even so, toRow reads the key).
            seenCached.add(new CachedNeed(table, k, Origin.topic(r), Origin.partition(r), columns, after));
            return;
        }
        addNeed(needs, table, k, columns, after);
    }

    private static void addNeed(Map<TableId, Need> needs, TableId table, RowKey k, List<String> columns, int after) {
        Need n = needs.computeIfAbsent(table, t -> new Need());
        if (n.keyColumns == null) {
            n.keyColumns = k.columns;
        } else if (!n.keyColumns.equals(k.columns)) {
            return; // a key of another shape (the table's key changed): toRow reports it if it matters
        }
        n.keys.add(k);
        n.after.merge(k, after, Math::min);
        n.columns.addAll(columns);
    }
}
