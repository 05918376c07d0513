package io.chsink.it.events;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * A one-line fingerprint of an events table, {@code groups=20 totalRows=N totalCents=C checksum=XXXXXXXX}: the
 * per-country row counts and revenue (in cents), sorted by country, as lines {@code country|count|cents\n};
 * the checksum is the CRC32 of those lines, as 8 uppercase hex digits. Computed from a table's check query
 * ({@link EventsTable#checkSql}) or from the events themselves; equal lines mean equal per-country totals.
 */
public final class CheckLine {
    private final int groups;
    private final long totalRows;
    private final long totalCents;
    private final String checksum;

    private CheckLine(int groups, long totalRows, long totalCents, String checksum) {
        this.groups = groups;
        this.totalRows = totalRows;
        this.totalCents = totalCents;
        this.checksum = checksum;
    }

    /** From the TabSeparated answer of the check query: lines {@code country<TAB>count<TAB>cents}. */
    public static CheckLine fromCheckResult(String tsv) {
        Totals totals = new Totals();
        for (String line : tsv.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            String[] cells = line.split("\t", -1);
            if (cells.length != 3) {
                throw new IllegalArgumentException("check query line is not country, count, cents: " + line);
            }
            totals.add(cells[0], Long.parseLong(cells[1]), Long.parseLong(cells[2]));
        }
        return totals.toCheckLine();
    }

    /** The same fingerprint computed in Java, without any database. */
    public static CheckLine fromEvents(Iterable<Event> events) {
        Map<String, long[]> byCountry = new TreeMap<>();
        for (Event e : events) {
            long[] sums = byCountry.computeIfAbsent(e.country(), c -> new long[2]);
            sums[0]++;
            sums[1] += e.revenueCents();
        }
        Totals totals = new Totals();
        byCountry.forEach((country, sums) -> totals.add(country, sums[0], sums[1]));
        return totals.toCheckLine();
    }

    public int groups() {
        return groups;
    }

    public long totalRows() {
        return totalRows;
    }

    public long totalCents() {
        return totalCents;
    }

    public String checksum() {
        return checksum;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CheckLine c && groups == c.groups && totalRows == c.totalRows
                && totalCents == c.totalCents && checksum.equals(c.checksum);
    }

    @Override
    public int hashCode() {
        return checksum.hashCode();
    }

    @Override
    public String toString() {
        return "groups=" + groups + " totalRows=" + totalRows + " totalCents=" + totalCents + " checksum=" + checksum;
    }

    /** Accumulates country lines in the order given (which must be sorted by country). */
    private static final class Totals {
        private final CRC32 crc = new CRC32();
        private int groups;
        private long rows;
        private long cents;

        void add(String country, long count, long countryCents) {
            crc.update((country + "|" + count + "|" + countryCents + "\n").getBytes(StandardCharsets.UTF_8));
            groups++;
            rows += count;
            cents += countryCents;
        }

        CheckLine toCheckLine() {
            return new CheckLine(groups, rows, cents, String.format("%08X", crc.getValue()));
        }
    }
}
