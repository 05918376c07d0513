package io.chsink.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

/** validate() on keys that need no server: a bad pair of keys is reported without connecting. */
class ConnectorValidateTest {
    @Test
    void flushMaxBytesAtOrAboveTheBufferBoundIsAnErrorOnBufferMaxBytes() {
        Map<String, String> p = new HashMap<>();
        p.put("clickhouse.url", "http://127.0.0.1:1"); // nothing listens: the check must not get that far
        p.put("flush.max.bytes", "67108864");
        p.put("buffer.max.bytes", "33554432");
        Map<String, List<String>> errors = errors(p);
        List<String> onBound = errors.get("buffer.max.bytes");
        assertEquals(1, onBound.size(), errors.toString());
        assertTrue(onBound.get(0).contains("buffer.max.bytes (33554432) must be larger than flush.max.bytes (67108864)"),
                onBound.get(0));
        assertTrue(errors.get("flush.max.bytes").isEmpty(), errors.toString());
        assertTrue(errors.get("clickhouse.url").isEmpty(), "no connection attempted: " + errors);
    }

    private static Map<String, List<String>> errors(Map<String, String> props) {
        Map<String, List<String>> out = new HashMap<>();
        for (ConfigValue v : new ClickHouseSinkConnector().validate(props).configValues()) {
            out.put(v.name(), v.errorMessages());
        }
        return out;
    }
}
