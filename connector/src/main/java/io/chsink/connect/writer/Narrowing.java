package io.chsink.connect.writer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;

/**
 * Narrows a block that ClickHouse refused for the values of some of its rows ({@link InsertFailure#rowLevel}) down to
 * those rows, inserting all the others. A part that is refused is split and its pieces are tried in order, left to
 * right; a single row refused on its own is a refused row. The split is in halves, or, when ClickHouse names the row
 * it refused ("is violated at row N") in a part of at most {@value #NAMED_ROW_MAX_ROWS} rows, around that row: the
 * rows before it, the row alone, the rows after it. The rows after it are sent again whole at most
 * {@value #NAMED_CHAIN} times in a row; then they are halved (each half starting a chain of its own), so that dense
 * refusals cost O(n·log n) rows sent, never O(k·n). So a block of n rows with k refused rows costs about 3k + 1
 * inserts when ClickHouse names the rows (CHECK constraints), and at most 2k·log2(n) + 1 when it does not, each
 * successful insert of a part a part of the table.
 *
 * <p>The parts depend only on the block's rows and ClickHouse's answers, so a block rebuilt after a crash
 * (exactly_once) is narrowed into the same parts, each sent with the same token (the block's, with the part's rows:
 * {@link BlockInserter}), and a part that landed before the crash is deduplicated.
 */
public final class Narrowing {
    /** Above this a part is halved even when ClickHouse names the refused row, to bound what is sent again. */
    static final int NAMED_ROW_MAX_ROWS = 16_384;
    /** How many times in a row the rows after a named row are sent again whole before they are halved. */
    static final int NAMED_CHAIN = 8;

    /** Inserts rows [from, to) of the block, retrying what is retriable; returns null, or the failure that stays. */
    public interface Attempt {
        InsertFailure insert(int from, int to) throws InterruptedException;
    }

    /** A row ClickHouse refused on its own (from 0, in the block's order), and why. */
    public static final class Refused {
        public final int row;
        public final InsertFailure failure;

        Refused(int row, InsertFailure failure) {
            this.row = row;
            this.failure = failure;
        }
    }

    /** What narrowing came to: the refused rows, or the failure that stopped it (not a row's), and the work done. */
    public static final class Result {
        public final List<Refused> refused;
        public final InsertFailure failure;
        public final long insertedRows;
        public final int inserts;

        Result(List<Refused> refused, InsertFailure failure, long insertedRows, int inserts) {
            this.refused = Collections.unmodifiableList(refused);
            this.failure = failure;
            this.insertedRows = insertedRows;
            this.inserts = inserts;
        }
    }

    private Narrowing() {
    }

    /**
     * @param rows the block's rows
     * @param first why the whole block was refused ({@link InsertFailure#rowLevel})
     */
    public static Result run(int rows, InsertFailure first, Attempt attempt) throws InterruptedException {
        return run(rows, first, attempt, false);
    }

    /** @param firstOnly stop at the first refused row (errors.tolerance=none: the task fails with it) */
    public static Result run(int rows, InsertFailure first, Attempt attempt, boolean firstOnly)
            throws InterruptedException {
        List<Refused> refused = new ArrayList<>();
        Deque<int[]> todo = new ArrayDeque<>(); // {from, to, named splits left in its chain}, the next to try on top
        long inserted = 0;
        int inserts = 0;
        pushParts(todo, 0, rows, NAMED_CHAIN, first);
        if (rows == 1) {
            refused.add(new Refused(0, first));
            todo.clear();
        }
        while (!todo.isEmpty()) {
            int[] part = todo.pop();
            InsertFailure f = attempt.insert(part[0], part[1]);
            inserts++;
            if (f == null) {
                inserted += part[1] - part[0];
            } else if (!f.rowLevel()) {
                return new Result(refused, f, inserted, inserts);
            } else if (part[1] - part[0] == 1) {
                refused.add(new Refused(part[0], f));
                if (firstOnly) {
                    break;
                }
            } else {
                pushParts(todo, part[0], part[1], part[2], f);
            }
        }
        return new Result(refused, null, inserted, inserts);
    }

    /**
     * Pushes the pieces of the refused part [from, to) so that the leftmost is tried first; {@code chain}: how many
     * more times the rows after a named row may be sent whole.
     */
    private static void pushParts(Deque<int[]> todo, int from, int to, int chain, InsertFailure why) {
        int n = to - from;
        int named = why.refusedRow();
        List<int[]> parts = new ArrayList<>(3);
        if (named >= 0 && named < n && n <= NAMED_ROW_MAX_ROWS && chain > 0) {
            add(parts, from, from + named, NAMED_CHAIN);
            add(parts, from + named, from + named + 1, NAMED_CHAIN);
            add(parts, from + named + 1, to, chain - 1);
        } else {
            add(parts, from, from + n / 2, NAMED_CHAIN);
            add(parts, from + n / 2, to, NAMED_CHAIN);
        }
        for (int i = parts.size() - 1; i >= 0; i--) {
            todo.push(parts.get(i));
        }
    }

    private static void add(List<int[]> parts, int from, int to, int chain) {
        if (to > from) {
            parts.add(new int[] {from, to, chain});
        }
    }
}
