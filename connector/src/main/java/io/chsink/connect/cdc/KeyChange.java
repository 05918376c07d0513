package io.chsink.connect.cdc;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A primary-key change as Debezium's relational connectors write it: a delete of the old key whose record carries the
 * header {@code __debezium.newkey}, then a create of the new key carrying {@code __debezium.oldkey}, both at the same
 * source position (RelationalChangeRecordEmitter). The header's value is the key as the source worker's header
 * converter wrote it: the JSON text {@code {"id":61}} (SimpleHeaderConverter, Connect's default; read here as bytes
 * with ByteArrayConverter, or as text), a map (SimpleHeaderConverter on the sink), a Struct, or JsonConverter's
 * {@code {"schema":...,"payload":{...}}}.
 */
final class KeyChange {
    static final String OLD_KEY = "__debezium.oldkey";
    static final String NEW_KEY = "__debezium.newkey";
    private static final ObjectMapper JSON = new ObjectMapper();

    private KeyChange() {
    }

    /** Whether the record is the delete of a primary-key change (its row's values are the new key's to take). */
    static boolean isOldKeyDelete(SinkRecord r) {
        return r.headers() != null && !r.headers().isEmpty() && r.headers().lastWithName(NEW_KEY) != null;
    }

    /** The header naming the old key of a create, or null when the record is no primary-key change's create. */
    static Header oldKeyHeader(SinkRecord r) {
        return r.headers() == null || r.headers().isEmpty() ? null : r.headers().lastWithName(OLD_KEY);
    }

    /**
     * The old key a create's header names, or null with the reason in {@code why}: a key of the columns of the
     * record's own key ({@code like}).
     */
    static RowKey oldKey(Header h, RowKey like, StringBuilder why) {
        Object v = h.value();
        Object key;
        if (v instanceof Struct || v instanceof Map) {
            key = v;
        } else if (v instanceof byte[] || v instanceof String) {
            byte[] text = v instanceof byte[] ? (byte[]) v : ((String) v).getBytes(StandardCharsets.UTF_8);
            try {
                key = JSON.readValue(text, Map.class);
            } catch (IOException | RuntimeException e) {
                why.append("its header ").append(OLD_KEY).append(" is no JSON object (").append(e.getMessage())
                        .append(')');
                return null;
            }
            Map<?, ?> m = (Map<?, ?>) key;
            if (m.size() == 2 && m.get("payload") instanceof Map && m.containsKey("schema")) {
                key = m.get("payload"); // JsonConverter with schemas
            }
        } else {
            why.append("its header ").append(OLD_KEY).append(" is ")
                    .append(v == null ? "null" : v.getClass().getSimpleName());
            return null;
        }
        RowKey k = RowKey.of(key, why);
        if (k != null && !k.columns.equals(like.columns)) {
            why.append("its header ").append(OLD_KEY).append(" names the columns ").append(k.columns)
                    .append(", not the record key's ").append(like.columns);
            return null;
        }
        return k;
    }
}
