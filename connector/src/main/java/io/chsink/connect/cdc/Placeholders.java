package io.chsink.connect.cdc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.connect.data.Struct;

/**
 * Debezium's stand-in for an unchanged TOAST value it did not receive ({@code unavailable.value.placeholder},
 * default {@code __debezium_unavailable_value}), in each form Debezium's PostgreSQL connector writes it (its
 * UnchangedToastedPlaceholder): the text in a text or json column; its bytes in a bytea column (also as base64 or hex
 * text with {@code binary.handling.mode}); a one-element list of the text, of the bytes or of the UUID named by the
 * bytes for text[], bytea[] and uuid[] columns; the bytes' values as a list of integers for int[] and bigint[]; the
 * map {text: text} for hstore (or its JSON with {@code hstore.handling.mode=json}); fixed points and WKB for
 * PostGIS geometry, geography and point.
 */
final class Placeholders {
    /** WKB of Debezium's geometry placeholder, SRID=4326;POINT(-99999999 -99999999). */
    private static final byte[] GEOMETRY_WKB = Hex.parse("0101000020E6100000000000FC83D797C1000000FC83D797C1");
    /** WKB of Debezium's geography placeholder, SRID=4326;POINT(179.999999 89.999999). */
    private static final byte[] GEOGRAPHY_WKB = Hex.parse("0101000020E61000000C21E7FDFF7F66401842CEFBFF7F5640");
    private static final double POINT = -99999999;

    private final String text;
    private final String base64;
    private final String hex;
    private final byte[] bytes;
    private final List<Long> integers;
    private final String uuid;
    private final String hstoreJson;

    /**
     * Whether a field of this schema can hold a placeholder: text, bytes (not decimals), arrays, maps (hstore) and
     * PostGIS structs. Placeholders are looked for in these fields only.
     */
    static boolean canHold(org.apache.kafka.connect.data.Schema field) {
        org.apache.kafka.connect.data.Schema.Type t = field.type();
        String name = field.name();
        boolean decimal = "org.apache.kafka.connect.data.Decimal".equals(name);
        boolean geometry = name != null && name.startsWith("io.debezium.data.geometry.");
        return t == org.apache.kafka.connect.data.Schema.Type.STRING
                || t == org.apache.kafka.connect.data.Schema.Type.BYTES && !decimal
                || t == org.apache.kafka.connect.data.Schema.Type.ARRAY
                || t == org.apache.kafka.connect.data.Schema.Type.MAP
                || t == org.apache.kafka.connect.data.Schema.Type.STRUCT && geometry;
    }

    Placeholders(String text) {
        this.text = text;
        this.bytes = text.getBytes(StandardCharsets.UTF_8);
        this.base64 = Base64.getEncoder().encodeToString(bytes);
        this.hex = Hex.format(bytes);
        this.integers = new ArrayList<>(bytes.length);
        for (byte b : bytes) {
            integers.add((long) b);
        }
        this.uuid = UUID.nameUUIDFromBytes(bytes).toString();
        this.hstoreJson = "{\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\":\""
                + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
    }

    /** Whether a field value is the placeholder in one of its forms; a real value never is. */
    boolean is(Object v) {
        if (v instanceof String) {
            String s = (String) v;
            return s.length() == text.length() && s.equals(text) || s.length() == base64.length() && s.equals(base64)
                    || s.length() == hex.length() && s.equalsIgnoreCase(hex) || s.equals(hstoreJson);
        }
        if (v instanceof byte[]) {
            return Arrays.equals((byte[]) v, bytes);
        }
        if (v instanceof ByteBuffer) {
            return ((ByteBuffer) v).equals(ByteBuffer.wrap(bytes));
        }
        if (v instanceof List) {
            return isList((List<?>) v);
        }
        if (v instanceof Map) {
            Map<?, ?> m = (Map<?, ?>) v;
            return m.size() == 1 && text.equals(m.get(text));
        }
        if (v instanceof Struct) {
            return isGeometry((Struct) v);
        }
        return false;
    }

    private boolean isList(List<?> l) {
        if (l.size() == 1) {
            Object e = l.get(0);
            return text.equals(e) || uuid.equals(e) || e instanceof byte[] && Arrays.equals((byte[]) e, bytes)
                    || e instanceof ByteBuffer && e.equals(ByteBuffer.wrap(bytes));
        }
        if (l.size() != integers.size()) {
            return false;
        }
        for (int i = 0; i < l.size(); i++) {
            Object e = l.get(i);
            if (!(e instanceof Integer || e instanceof Long) || ((Number) e).longValue() != integers.get(i)) {
                return false;
            }
        }
        return true;
    }

    /** Debezium's io.debezium.data.geometry Geometry/Geography (wkb, srid) and Point (x, y, wkb) placeholders. */
    private static boolean isGeometry(Struct s) {
        String name = s.schema().name();
        if (name == null || !name.startsWith("io.debezium.data.geometry.")) {
            return false;
        }
        if (name.endsWith(".Point") && s.schema().field("x") != null && s.schema().field("y") != null) {
            Object x = s.get("x");
            Object y = s.get("y");
            return x instanceof Double && (Double) x == POINT && y instanceof Double && (Double) y == POINT;
        }
        Object wkb = s.schema().field("wkb") == null ? null : s.get("wkb");
        byte[] b = wkb instanceof byte[] ? (byte[]) wkb : wkb instanceof ByteBuffer ? bytesOf((ByteBuffer) wkb) : null;
        return b != null && (Arrays.equals(b, GEOMETRY_WKB) || Arrays.equals(b, GEOGRAPHY_WKB));
    }

    private static byte[] bytesOf(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    String text() {
        return text;
    }
}
