package io.chsink.connect.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.clickhouse.client.api.ServerException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Narrowing against a table of our own that refuses the rows of a set, as ClickHouse does: a whole part is refused
 * when any of its rows is, naming the first (a CHECK constraint) or not (a value error).
 */
class NarrowingTest {
    /** A table refusing {@code bad} rows; it keeps what it took, and the parts it was sent. */
    private static class Table implements Narrowing.Attempt {
        final Set<Integer> bad;
        final boolean namesRow;
        final List<Integer> inserted = new ArrayList<>();
        final List<String> parts = new ArrayList<>();
        long rowsSent;

        Table(Set<Integer> bad, boolean namesRow) {
            this.bad = bad;
            this.namesRow = namesRow;
        }

        InsertFailure refusal(int from, int to) {
            for (int i = from; i < to; i++) {
                if (bad.contains(i)) {
                    String m = namesRow
                            ? "Code: 469. DB::Exception: Constraint `c` for table db.t (uuid) is violated at row "
                                    + (i - from + 1) + ". Expression: (revenue < 990). Column values: revenue = 995. "
                                    + "(VIOLATED_CONSTRAINT)"
                            : "Code: 321. DB::Exception: Value out of range. (VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE)";
                    return InsertFailure.classify(new ServerException(namesRow ? 469 : 321, m, 500, "q"));
                }
            }
            return null;
        }

        @Override
        public InsertFailure insert(int from, int to) {
            parts.add(from + "-" + to);
            rowsSent += to - from;
            InsertFailure f = refusal(from, to);
            if (f == null) {
                for (int i = from; i < to; i++) {
                    inserted.add(i);
                }
            }
            return f;
        }
    }

    private static Narrowing.Result narrow(Table t, int rows) throws InterruptedException {
        InsertFailure first = t.refusal(0, rows);
        assertNotNull(first, "the whole block must be refused");
        assertTrue(first.rowLevel());
        return Narrowing.run(rows, first, t);
    }

    private static void assertExact(Table t, Narrowing.Result r, int rows) {
        assertNull(r.failure);
        assertEquals(t.bad, r.refused.stream().map(x -> x.row).collect(Collectors.toCollection(TreeSet::new)));
        Set<Integer> in = new TreeSet<>(t.inserted);
        assertEquals(t.inserted.size(), in.size(), "a row inserted twice");
        assertEquals(rows - t.bad.size(), in.size());
        for (int b : t.bad) {
            assertTrue(!in.contains(b));
        }
        assertEquals(rows - t.bad.size(), r.insertedRows);
        assertEquals(t.parts.size(), r.inserts);
    }

    @Test
    void namedRowsCostAboutThreeInsertsEach() throws InterruptedException {
        Random rnd = new Random(7);
        Set<Integer> bad = new TreeSet<>();
        while (bad.size() < 50) {
            bad.add(rnd.nextInt(5000));
        }
        Table t = new Table(bad, true);
        Narrowing.Result r = narrow(t, 5000);
        assertExact(t, r, 5000);
        // 3 per refused row, and one more for each halving of a chain's rest
        assertTrue(r.inserts <= 3 * 50 + 1 + 2 * (50 / Narrowing.NAMED_CHAIN + 1), r.inserts + " inserts");
        // every refused row was tried alone before it was called refused
        for (int b : bad) {
            assertTrue(t.parts.contains(b + "-" + (b + 1)), "row " + b);
        }
    }

    /**
     * A constraint most rows break: the rows after each named row are not sent again whole for every refused row
     * (that would be about k·n/2 = 120 million rows here), only a few times before they are halved.
     */
    @Test
    void denseRefusalsSendEachRowAFewTimesPerHalving() throws InterruptedException {
        int n = Narrowing.NAMED_ROW_MAX_ROWS;
        Random rnd = new Random(11);
        Set<Integer> bad = new TreeSet<>();
        for (int i = 0; i < n; i++) {
            if (rnd.nextInt(10) != 0) {
                bad.add(i);
            }
        }
        Table t = new Table(bad, true);
        Narrowing.Result r = narrow(t, n);
        assertExact(t, r, n);
        long log2 = 32 - Integer.numberOfLeadingZeros(n - 1);
        assertTrue(t.rowsSent <= (Narrowing.NAMED_CHAIN + 1) * n * log2, t.rowsSent + " rows sent");
        assertTrue(r.inserts <= 3 * n, r.inserts + " inserts");
        System.out.printf("dense: %d refused of %d, %d inserts, %d rows sent%n", bad.size(), n, r.inserts, t.rowsSent);
    }

    @Test
    void unnamedRowsAreFoundByHalves() throws InterruptedException {
        Set<Integer> bad = Set.of(0, 1, 777, 4095);
        Table t = new Table(new TreeSet<>(bad), false);
        Narrowing.Result r = narrow(t, 4096);
        assertExact(t, r, 4096);
        assertTrue(r.inserts <= 2 * 4 * 12 + 1, r.inserts + " inserts");
    }

    @Test
    void theSameRowsGiveTheSameParts() throws InterruptedException {
        Set<Integer> bad = Set.of(3, 40, 41, 900);
        Table a = new Table(new TreeSet<>(bad), true);
        Table b = new Table(new TreeSet<>(bad), true);
        narrow(a, 1000);
        narrow(b, 1000);
        assertEquals(a.parts, b.parts, "a rebuilt block must be sent in the same parts (exactly_once tokens)");
    }

    @Test
    void aSingleRowBlockIsRefusedWithoutAnotherInsert() throws InterruptedException {
        Table t = new Table(new TreeSet<>(Set.of(0)), true);
        Narrowing.Result r = narrow(t, 1);
        assertEquals(0, r.inserts);
        assertEquals(1, r.refused.size());
    }

    @Test
    void aFailureThatIsNotARowsStopsTheNarrowing() throws InterruptedException {
        Table t = new Table(new TreeSet<>(Set.of(10)), true) {
            @Override
            public InsertFailure insert(int from, int to) {
                if (parts.size() == 1) {
                    parts.add(from + "-" + to);
                    return InsertFailure.classify(new ServerException(60, "Code: 60. Table gone", 404, "q"));
                }
                return super.insert(from, to);
            }
        };
        Narrowing.Result r = narrow(t, 100);
        assertNotNull(r.failure);
        assertEquals(60, r.failure.code());
        assertEquals(10, r.insertedRows, "the rows before the refused one went in before the table went");
    }

    @Test
    void onlyRowErrorsAreNarrowedAndConstraintMessagesNameTheirRow() {
        InsertFailure c = InsertFailure.classify(new ServerException(469, "Code: 469. DB::Exception: Constraint `c` "
                + "for table default.t (13630509) is violated at row 4. Expression: (revenue < 990). Column values: "
                + "revenue = 995. (VIOLATED_CONSTRAINT)", 500, "q"));
        assertTrue(c.rowLevel());
        assertEquals(3, c.refusedRow());
        assertEquals(-1, InsertFailure.classify(new ServerException(321, "at row 4.", 500, "q")).refusedRow());
        for (int code : new int[] {60, 53, 70, 241, 252, 395, 497}) {
            assertTrue(!InsertFailure.classify(new ServerException(code, "x", 500, "q")).rowLevel(), "code " + code);
        }
    }
}
