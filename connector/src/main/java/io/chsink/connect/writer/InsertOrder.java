package io.chsink.connect.writer;

import io.chsink.connect.cdc.ReplacingTableCheck;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Whether a table's engine makes the order of inserts part of the data: when two rows of a key meet in a merge
 * (or under FINAL), engines that keep the later-inserted row, value or sign pair need a partition's blocks to
 * commit in the order they were written. Two inserts of one table in flight can commit the other way round, so
 * such tables get one insert in flight at a time. From the ClickHouse documentation of the engines:
 * <ul>
 * <li>ReplacingMergeTree without a {@code ver} parameter keeps the last inserted row of a key; with one (and
 * optionally {@code is_deleted}) the highest version wins whatever the order.</li>
 * <li>CollapsingMergeTree needs a key's state and cancel rows strictly in the order they were written;
 * VersionedCollapsingMergeTree pairs them by version and takes any order.</li>
 * <li>CoalescingMergeTree keeps the latest non-NULL value of each column.</li>
 * <li>AggregatingMergeTree and SummingMergeTree when a column is a {@code SimpleAggregateFunction} of a function
 * that keeps the first or last value seen ({@code any}, {@code anyLast}, {@code first_value}, {@code last_value}
 * and their {@code _respect_nulls} forms); {@code min}, {@code max}, {@code sum} and the others give the same
 * result in any order. (AggregateFunction columns are not written by the connector: their states are the
 * column's default in every row.)</li>
 * </ul>
 * The Replicated and Shared forms of each engine behave as the engine. Pure logic: the task side is
 * {@link InsertLimits}.
 */
public final class InsertOrder {
    /** SimpleAggregateFunction functions whose result depends on the order of the rows merged (lower case). */
    private static final Set<String> ORDER_DEPENDENT = Set.of("any", "anylast", "any_value", "first_value",
            "last_value", "any_respect_nulls", "anylast_respect_nulls", "any_value_respect_nulls",
            "first_value_respect_nulls", "last_value_respect_nulls");
    private static final String SIMPLE_AGGREGATE = "SimpleAggregateFunction(";

    private InsertOrder() {
    }

    /**
     * Why the table's blocks must land in order, for the log line; null when the order of inserts does not change
     * what the table keeps.
     *
     * @param engine {@code system.tables.engine}, e.g. {@code ReplicatedCollapsingMergeTree}
     * @param engineFull {@code system.tables.engine_full}
     * @param columnTypes column name to type ({@code system.columns}); only read for the aggregating engines, may be
     *     empty otherwise
     */
    public static String reason(String engine, String engineFull, Map<String, String> columnTypes) {
        String base = baseEngine(engine);
        switch (base) {
            case "ReplacingMergeTree":
                return ReplacingTableCheck.columnParameters(engineFull).isEmpty()
                        ? "without a version column the row inserted last wins among the rows of a sorting key"
                        : null;
            case "CollapsingMergeTree":
                return "a key's state and cancel rows collapse correctly only in the order they were written";
            case "CoalescingMergeTree":
                return "the value inserted last wins in each column (the latest non-NULL one)";
            case "AggregatingMergeTree":
            case "SummingMergeTree":
                for (Map.Entry<String, String> c : columnTypes.entrySet()) {
                    String f = simpleAggregateFunction(c.getValue());
                    if (f != null && ORDER_DEPENDENT.contains(f.toLowerCase(Locale.ROOT))) {
                        return "column " + c.getKey() + " is " + c.getValue() + ": which value it keeps depends on "
                                + "the order of inserts";
                    }
                }
                return null;
            default:
                return null;
        }
    }

    /** Whether the decision needs the table's column types (so that they are read only for these engines). */
    public static boolean needsColumns(String engine) {
        String base = baseEngine(engine);
        return base.equals("AggregatingMergeTree") || base.equals("SummingMergeTree");
    }

    /** The engine without its Replicated or Shared prefix. */
    static String baseEngine(String engine) {
        if (engine == null) {
            return "";
        }
        for (String prefix : new String[] {"Replicated", "Shared"}) {
            if (engine.startsWith(prefix) && engine.length() > prefix.length()) {
                return engine.substring(prefix.length());
            }
        }
        return engine;
    }

    /** The function of a {@code SimpleAggregateFunction(f, T)} type, or null for any other type. */
    static String simpleAggregateFunction(String type) {
        if (type == null || !type.startsWith(SIMPLE_AGGREGATE)) {
            return null;
        }
        int end = type.indexOf(',', SIMPLE_AGGREGATE.length());
        if (end < 0) {
            return null;
        }
        String f = type.substring(SIMPLE_AGGREGATE.length(), end).trim();
        int params = f.indexOf('(');
        return params < 0 ? f : f.substring(0, params).trim();
    }

    /** The engine clause of {@code engine_full} (up to ORDER BY, PARTITION BY, SETTINGS...), for messages. */
    public static String clause(String engine, String engineFull) {
        if (engineFull == null || engineFull.isBlank()) {
            return engine;
        }
        String s = engineFull;
        for (String stop : new String[] {" PARTITION BY ", " PRIMARY KEY ", " ORDER BY ", " SAMPLE BY ", " TTL ",
                " SETTINGS "}) {
            int i = s.indexOf(stop);
            if (i > 0) {
                s = s.substring(0, i);
            }
        }
        return s.trim();
    }
}
