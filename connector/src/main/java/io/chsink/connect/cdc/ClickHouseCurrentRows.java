package io.chsink.connect.cdc;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import io.chsink.connect.schema.TableId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.RetriableException;

/**
 * Reads current rows from the target table: for a batch of keys, the latest version of each (deleted rows
 * included, so no FINAL: {@code ORDER BY version DESC LIMIT 1 BY key}), with the asked columns as text. String
 * columns travel as hex (their bytes exactly: a bytea value is no UTF-8), DateTime and DateTime64 as ISO-8601 in
 * UTC, everything else as ClickHouse's {@code toString}, which the table mapping reads back into the column.
 */
final class ClickHouseCurrentRows implements CurrentRowReader {
    /** Keys per query: a longer IN list only makes the statement bigger. */
    private static final int KEYS_PER_QUERY = 2000;

    private final Client client;
    private final String versionColumn;
    private final String deletedColumn;
    private final Map<TableId, TableLayout> layouts;
    private final int versionBits;

    ClickHouseCurrentRows(Client client, String versionColumn, String deletedColumn, int versionBits,
            Map<TableId, TableLayout> layouts) {
        this.versionBits = versionBits;
        this.client = client;
        this.versionColumn = versionColumn;
        this.deletedColumn = deletedColumn;
        this.layouts = layouts;
    }

    @Override
    public Map<RowKey, CurrentRow> read(TableId table, List<String> keyColumns, Collection<RowKey> keys,
            Collection<String> columns) {
        TableLayout layout = layouts.get(table);
        Map<RowKey, CurrentRow> out = new HashMap<>();
        Iterator<RowKey> it = keys.iterator();
        while (it.hasNext()) {
            List<RowKey> chunk = new ArrayList<>();
            while (it.hasNext() && chunk.size() < KEYS_PER_QUERY) {
                chunk.add(it.next());
            }
            String sql = statement(table, layout, keyColumns, chunk, columns);
            List<GenericRecord> rows;
            try {
                rows = client.queryAll(sql);
            } catch (RuntimeException e) {
                io.chsink.connect.writer.InsertFailure f = io.chsink.connect.writer.InsertFailure.classify(e);
                String m = "Could not read the current rows of " + chunk.size() + " keys from " + table
                        + " (cdc.mode=debezium reads them for unchanged TOAST values, deletes and tombstones; the "
                        + "connector's user needs SELECT on the table): " + f.message();
                if (!f.retriable()) {
                    throw new org.apache.kafka.connect.errors.ConnectException(m, e);
                }
                throw new RetriableException(m, e);
            }
            for (GenericRecord r : rows) {
                List<String> k = new ArrayList<>(keyColumns.size());
                for (int i = 0; i < keyColumns.size(); i++) {
                    k.add(r.getString("k" + i));
                }
                Map<String, Object> values = new HashMap<>();
                int i = 0;
                for (String c : columns) {
                    String text = r.getString("c" + i++);
                    values.put(c, text == null ? null : fromText(text, layout == null ? null : layout.types.get(c)));
                }
                RowVersion version = RowVersion.of(r.getString("v"), versionBits);
                boolean deleted = !"0".equals(r.getString("d"));
                out.put(RowKey.ofText(keyColumns, k), CurrentRow.fromTable(version, deleted, values));
            }
        }
        return out;
    }

    String statement(TableId table, TableLayout layout, List<String> keyColumns, List<RowKey> keys,
            Collection<String> columns) {
        StringBuilder b = new StringBuilder("SELECT ");
        StringBuilder by = new StringBuilder();
        for (int i = 0; i < keyColumns.size(); i++) {
            String q = TableId.quote(keyColumns.get(i));
            b.append("toString(").append(q).append(") AS k").append(i).append(", ");
            by.append(i == 0 ? "" : ", ").append(q);
        }
        int i = 0;
        for (String c : columns) {
            b.append(expression(TableId.quote(c), layout == null ? null : layout.types.get(c))).append(" AS c")
                    .append(i++).append(", ");
        }
        b.append("toString(").append(TableId.quote(versionColumn)).append(") AS v, toString(")
                .append(TableId.quote(deletedColumn)).append(") AS d FROM ").append(table.quoted()).append(" WHERE ");
        b.append(keyColumns.size() > 1 ? "(" + by + ")" : by).append(" IN (");
        for (int k = 0; k < keys.size(); k++) {
            b.append(k == 0 ? "" : ", ").append(keys.get(k).literal());
        }
        b.append(") ORDER BY ").append(TableId.quote(versionColumn)).append(" DESC LIMIT 1 BY ").append(by);
        return b.toString();
    }

    /** The SQL giving a column's value as text (NULL stays NULL). */
    static String expression(String quoted, String type) {
        String base = type == null ? "" : unwrap(type);
        if (base.startsWith("String") || base.startsWith("FixedString")) {
            return "hex(" + quoted + ")";
        }
        if (base.startsWith("DateTime")) {
            return "concat(replaceOne(toString(toTimeZone(" + quoted + ", 'UTC')), ' ', 'T'), 'Z')";
        }
        if (base.startsWith("Array(")) {
            return "toJSONString(" + quoted + ")";
        }
        return "toString(" + quoted + ")";
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    /**
     * An array column's JSON ({@code toJSONString}) as the list a field of element schema {@code element} holds:
     * integers, floats, booleans and text, with nulls; anything else, or a value that does not fit, throws.
     */
    static java.util.List<Object> array(String json, org.apache.kafka.connect.data.Schema element) {
        com.fasterxml.jackson.databind.JsonNode n;
        try {
            n = JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("its JSON does not parse");
        }
        if (n == null || !n.isArray()) {
            throw new IllegalArgumentException("it is no array");
        }
        if (element.name() != null) {
            throw new IllegalArgumentException("elements of " + element.name() + " are not read back");
        }
        java.util.List<Object> out = new ArrayList<>(n.size());
        for (com.fasterxml.jackson.databind.JsonNode e : n) {
            out.add(e.isNull() ? null : element(e, element.type()));
        }
        return out;
    }

    private static Object element(com.fasterxml.jackson.databind.JsonNode e, org.apache.kafka.connect.data.Schema.Type t) {
        switch (t) {
            case INT8:
            case INT16:
            case INT32:
            case INT64: {
                // ClickHouse writes 64-bit integers as JSON strings by default.
                long v;
                try {
                    v = e.isTextual() ? Long.parseLong(e.asText()) : e.isIntegralNumber() && e.canConvertToLong()
                            ? e.longValue() : bad("an element is not an integer");
                } catch (NumberFormatException x) {
                    v = bad("an element is not an integer");
                }
                switch (t) {
                    case INT8:
                        return fits(v, Byte.MIN_VALUE, Byte.MAX_VALUE) ? (Object) (byte) v : bad("an element is out of range");
                    case INT16:
                        return fits(v, Short.MIN_VALUE, Short.MAX_VALUE) ? (Object) (short) v : bad("an element is out of range");
                    case INT32:
                        return fits(v, Integer.MIN_VALUE, Integer.MAX_VALUE) ? (Object) (int) v
                                : bad("an element is out of range");
                    default:
                        return v;
                }
            }
            case FLOAT32:
            case FLOAT64: {
                double d;
                if (e.isNumber()) {
                    d = e.doubleValue();
                } else if (e.isTextual()) {
                    switch (e.asText()) {
                        case "nan":
                            d = Double.NaN;
                            break;
                        case "inf":
                            d = Double.POSITIVE_INFINITY;
                            break;
                        case "-inf":
                            d = Double.NEGATIVE_INFINITY;
                            break;
                        default:
                            return bad("an element is not a number");
                    }
                } else {
                    return bad("an element is not a number");
                }
                return t == org.apache.kafka.connect.data.Schema.Type.FLOAT32 ? (Object) (float) d : (Object) d;
            }
            case BOOLEAN:
                return e.isBoolean() ? e.booleanValue() : e.isIntegralNumber() ? e.longValue() != 0
                        : bad("an element is not a boolean");
            case STRING:
                return e.isTextual() ? e.asText() : bad("an element is not text");
            default:
                return bad("elements of " + t + " are not read back");
        }
    }

    private static boolean fits(long v, long min, long max) {
        return v >= min && v <= max;
    }

    private static <T> T bad(String why) {
        throw new IllegalArgumentException(why);
    }

    /** A column's text back into a value: String columns' hex as their bytes (a {@code byte[]}), else the text. */
    static Object fromText(String text, String type) {
        String base = type == null ? "" : unwrap(type);
        if (base.startsWith("String") || base.startsWith("FixedString")) {
            return Hex.parse(text);
        }
        return text;
    }

    /** The type inside Nullable(...) and LowCardinality(...). */
    static String unwrap(String type) {
        String t = type.trim();
        boolean again = true;
        while (again) {
            again = false;
            for (String w : new String[] {"Nullable(", "LowCardinality("}) {
                if (t.startsWith(w) && t.endsWith(")")) {
                    t = t.substring(w.length(), t.length() - 1).trim();
                    again = true;
                }
            }
        }
        return t;
    }

    /** A value read as bytes (a String column), as the text it holds. */
    static String text(Object v) {
        return v instanceof byte[] ? new String((byte[]) v, StandardCharsets.UTF_8) : (String) v;
    }
}
