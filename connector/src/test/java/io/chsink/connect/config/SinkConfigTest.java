package io.chsink.connect.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.schema.TableId;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class SinkConfigTest {
    private static Map<String, String> base() {
        Map<String, String> p = new HashMap<>();
        p.put("clickhouse.url", "http://localhost:8123");
        return p;
    }

    @Test
    void defaultsAreThoseDocumented() {
        SinkConfig c = new SinkConfig(base());
        assertEquals("default", c.user());
        assertEquals("default", c.database());
        assertEquals("${topic}", c.tableNameFormat());
        assertEquals(DeliveryGuarantee.AT_LEAST_ONCE, c.deliveryGuarantee());
        assertFalse(c.tolerateErrors());
        assertTrue(c.insertSettings().isEmpty());
        assertEquals(32L * 1024 * 1024, c.cdcRowCacheBytes());
        Map<String, String> off = base();
        off.put("cdc.row.cache.bytes", "0");
        assertEquals(0, new SinkConfig(off).cdcRowCacheBytes());
    }

    @Test
    void cdcNullDefaultsIsRefuseUnlessAllowed() {
        assertEquals(CdcNullDefaults.REFUSE, new SinkConfig(base()).cdcNullDefaults());
        Map<String, String> p = base();
        p.put("cdc.null.defaults", "allow");
        assertEquals(CdcNullDefaults.ALLOW, new SinkConfig(p).cdcNullDefaults());
        p.put("cdc.null.defaults", "yes");
        ConfigException e = assertThrows(ConfigException.class, () -> new SinkConfig(p));
        assertTrue(e.getMessage().contains("cdc.null.defaults"), e.getMessage());
    }

    @Test
    void parsesSettingsAndRoutes() {
        Map<String, String> p = base();
        p.put("clickhouse.settings", "async_insert=0, insert_quorum=2");
        p.put("topic.to.table.map", "orders:sales.orders_v2,clicks:click_events");
        p.put("clickhouse.database", "analytics");
        p.put("table.name.format", "kafka_${topic}");
        p.put("errors.tolerance", "all");
        SinkConfig c = new SinkConfig(p);
        assertEquals("0", c.insertSettings().get("async_insert"));
        assertEquals("2", c.insertSettings().get("insert_quorum"));
        assertTrue(c.tolerateErrors());
        TableRouter r = new TableRouter(c);
        assertEquals(new TableId("sales", "orders_v2"), r.tableFor("orders"));
        assertEquals(new TableId("analytics", "click_events"), r.tableFor("clicks"));
        assertEquals(new TableId("analytics", "kafka_page.views"), r.tableFor("page.views"));
    }

    @Test
    void rejectsBadUrlsWithoutEchoingCredentials() {
        for (String url : new String[] {"localhost:8123", "ftp://h:1", "http://host", "http://u:s3cret@h:8123"}) {
            Map<String, String> p = base();
            p.put("clickhouse.url", url);
            ConfigException e = assertThrows(ConfigException.class, () -> new SinkConfig(p), url);
            assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
        }
        Map<String, String> p = base();
        p.put("clickhouse.settings", "novalue");
        assertThrows(ConfigException.class, () -> new SinkConfig(p));
        Map<String, String> q = base();
        q.put("delivery.guarantee", "maybe");
        assertThrows(ConfigException.class, () -> new SinkConfig(q));
    }

    @Test
    void thePasswordIsHiddenInTheConfigsStringForm() {
        Map<String, String> p = base();
        p.put("clickhouse.password", "s3cret");
        SinkConfig c = new SinkConfig(p);
        assertEquals("s3cret", c.password().value());
        assertFalse(c.password().toString().contains("s3cret"));
        assertFalse(c.values().toString().contains("s3cret"));
    }

    @Test
    void refusesABufferBoundThatOneBlockFills() {
        Map<String, String> p = base();
        p.put("flush.max.bytes", "1048576");
        p.put("buffer.max.bytes", "1048576");
        ConfigException e = assertThrows(ConfigException.class, () -> new SinkConfig(p));
        assertTrue(e.getMessage().contains("buffer.max.bytes (1048576) must be larger than flush.max.bytes (1048576)"),
                e.getMessage());
        assertTrue(e.getMessage().contains("Raise buffer.max.bytes to 3145728"), e.getMessage());
        assertTrue(e.getMessage().contains("lower flush.max.bytes to 349525"), e.getMessage());
        p.put("buffer.max.bytes", "1048577");
        assertEquals(1048577L, new SinkConfig(p).bufferMaxBytes());
        Map<String, String> q = base();
        q.put("flush.max.bytes", String.valueOf(200L << 20)); // above the default bound of 96 MiB
        assertThrows(ConfigException.class, () -> new SinkConfig(q));
    }

    @Test
    void bufferBoundProblemOnlyWhenFlushReachesTheBound() {
        assertEquals(null, SinkConfig.bufferBoundProblem(32L << 20, 96L << 20));
        assertEquals(null, SinkConfig.bufferBoundProblem(1024, 1025));
        assertTrue(SinkConfig.bufferBoundProblem(2048, 1024).contains("lower flush.max.bytes to 1024"));
        assertTrue(SinkConfig.bufferBoundProblem(Long.MAX_VALUE, 1024).contains("to " + Long.MAX_VALUE));
    }

    @Test
    void versionWidthAndEpochsDefaultTo64BitsEpochZero() {
        SinkConfig c = new SinkConfig(base());
        assertEquals(64, c.cdcVersionBits());
        assertEquals(0, c.cdcVersionEpoch());
        assertTrue(c.cdcVersionEpochs().isEmpty());
        Map<String, String> p = base();
        p.put("cdc.version.bits", "128");
        p.put("cdc.version.epoch", "15");
        p.put("cdc.version.epoch.map", "srv.app.orders:3, srv.app.items:0");
        SinkConfig w = new SinkConfig(p);
        assertEquals(128, w.cdcVersionBits());
        assertEquals(15, w.cdcVersionEpoch());
        assertEquals(Map.of("srv.app.orders", 3, "srv.app.items", 0), w.cdcVersionEpochs());
    }

    /** validate() (ConfigDef.validate) refuses each bad value on its key, with a message that says what is allowed. */
    @Test
    void validationRefusesVersionWidthsAndEpochsOutOfRange() {
        String[][] bad = {{"cdc.version.bits", "96", "must be 64 (a UInt64 version column) or 128"},
                {"cdc.version.bits", "64bit", "Not a number of type INT"},
                {"cdc.version.epoch", "16", "Value must be no more than 15"},
                {"cdc.version.epoch", "-1", "Value must be at least 0"},
                {"cdc.version.epoch.map", "orders:16", "the epoch of topic 'orders' is '16', not an integer from 0 to 15"},
                {"cdc.version.epoch.map", "orders:one", "the epoch of topic 'orders' is 'one'"},
                {"cdc.version.epoch.map", "orders", "expected comma-separated 'a:b' pairs"},
                {"cdc.row.cache.bytes", "-1", "Value must be at least 0"}};
        for (String[] b : bad) {
            Map<String, String> p = base();
            p.put(b[0], b[1]);
            String errors = SinkConfig.CONFIG_DEF.validate(p).stream().filter(v -> v.name().equals(b[0]))
                    .flatMap(v -> v.errorMessages().stream()).reduce("", String::concat);
            assertTrue(errors.contains(b[2]) && !errors.contains("value null"), b[0] + "=" + b[1] + ": " + errors);
            assertThrows(ConfigException.class, () -> new SinkConfig(p), b[0] + "=" + b[1]);
        }
    }
}
