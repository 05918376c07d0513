package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ConnectProxy;
import io.chsink.it.stack.ConnectWorker;
import io.chsink.it.stack.RowWatcher;
import io.chsink.it.stack.TestPki;
import io.chsink.it.stack.TlsProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The connector over TLS: a TLS-terminating proxy on loopback (server certificate from a test CA made with
 * keytool, client certificates required) in front of the test ClickHouse's HTTP port. With the CA in the trust
 * store and a client certificate in the key store, rows land; a trust store with another CA, or a certificate that
 * does not name the host, is refused with a message that says so, by validate() and by a running task.
 */
class TlsTest {
    private static Path dir;
    private static TestPki ca;
    private static TestPki otherCa;
    private static Path clientStore;
    private static TlsProxy proxy;
    private static TlsProxy wrongHostProxy;
    private final SinkHarness h = new SinkHarness();

    @BeforeAll
    static void pki() throws Exception {
        SinkHarness h = new SinkHarness();
        dir = Path.of(System.getProperty("chsink.work.dir", System.getProperty("java.io.tmpdir")), "tls",
                SinkHarness.unique("pki"));
        ca = TestPki.create(dir, "chsink-test-ca");
        otherCa = TestPki.create(dir, "other-ca");
        Path serverStore = ca.issue("server", "localhost", "dns:localhost,ip:127.0.0.1");
        Path elsewhere = ca.issue("elsewhere", "db.example.com", "dns:db.example.com");
        clientStore = ca.issue("client", "chsink-connector", null);
        int port = h.stack.clickhouse().httpPort();
        proxy = TlsProxy.start(serverStore, ca.truststore(), port);
        wrongHostProxy = TlsProxy.start(elsewhere, null, port);
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (wrongHostProxy != null) {
            wrongHostProxy.close();
        }
    }

    private Map<String, String> config(String topic, TlsProxy via, Path truststore) {
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("clickhouse.url", "https://127.0.0.1:" + via.port());
        o.put("clickhouse.ssl.truststore.location", truststore.toString());
        o.put("clickhouse.ssl.truststore.password", TestPki.PASSWORD);
        o.put("clickhouse.ssl.keystore.location", clientStore.toString());
        o.put("clickhouse.ssl.keystore.password", TestPki.PASSWORD);
        Map<String, String> c = ConnectorConfigs.load("clickhouse-sink.json", o);
        c.put("value.converter.schemas.enable", "false");
        c.remove("name");
        return c;
    }

    private void produce(String topic, int from, int n) {
        List<String> values = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            values.add("{\"id\":" + i + ",\"level\":" + (i % 100) + "}");
        }
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, values);
    }

    private String table() {
        String t = SinkHarness.unique("tls");
        h.stack.clickhouse().exec("CREATE TABLE `" + t + "` (id UInt32, level UInt8) ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(t, 1);
        return t;
    }

    @Test
    void rowsLandOverTlsWithATrustedCaAndAClientCertificateAndAnUntrustedCaIsRefused() throws Exception {
        String topic = table();
        String connector = SinkHarness.unique("sink");
        // The task reads the trust store from this file when it starts: swapped later for another CA's.
        Path truststore = dir.resolve(connector + "-truststore.p12");
        Files.copy(ca.truststore(), truststore);
        produce(topic, 0, 1000);
        long handshakesBefore = proxy.handshakes();
        try {
            assertTrue(h.rest().validate(ConnectWorker.CONNECTOR_CLASS, config(topic, proxy, truststore)).isEmpty(),
                    "validate() over TLS");
            h.rest().putConnectorConfig(connector, config(topic, proxy, truststore));
            RowWatcher rows = new RowWatcher(h.ch(), "`" + topic + "`");
            rows.awaitRows(1000, Duration.ofMinutes(3), Duration.ofSeconds(90), new ConnectorFailure(h.rest(), connector), null);
            assertTrue(proxy.handshakes() > handshakesBefore, "no TLS handshake through the proxy");

            // validate(): another CA in the trust store
            Map<String, List<String>> wrongCa = h.rest().validate(ConnectWorker.CONNECTOR_CLASS,
                    config(topic, proxy, otherCa.truststore()));
            String message = String.valueOf(wrongCa.get("clickhouse.ssl.truststore.location"));
            assertTrue(message.contains("TLS handshake") && message.contains("not signed by a CA in the trust store"),
                    wrongCa.toString());

            // A running task whose trust store now holds another CA: restarted, it fails and says why.
            Files.copy(otherCa.truststore(), truststore, StandardCopyOption.REPLACE_EXISTING);
            h.rest().restartTask(connector, 0);
            produce(topic, 1000, 10);
            String trace = h.awaitFailure(connector, Duration.ofSeconds(120));
            String first = SinkHarness.causeLine(trace);
            assertTrue(first.contains("TLS handshake with ClickHouse failed")
                    && first.contains("not signed by a CA in the trust store"), first);
            assertEquals(1000, rows.count());
            assertFalse(trace.contains(TestPki.PASSWORD), "store password in the trace");
            String log = Files.readString(h.stack.connect().logFile());
            assertFalse(log.contains(TestPki.PASSWORD), "store password in the worker log");
            System.out.println("TlsTest: wrong CA, validate(): " + message + "\nTlsTest: wrong CA, task: " + first);
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void aCertificateForAnotherHostIsRefusedUnlessHostnameVerificationIsOff() {
        String topic = SinkHarness.unique("tls_host");
        Map<String, String> c = config(topic, wrongHostProxy, ca.truststore());
        Map<String, List<String>> refused = h.rest().validate(ConnectWorker.CONNECTOR_CLASS, c);
        String message = String.valueOf(refused.get("clickhouse.ssl.truststore.location"));
        assertTrue(message.contains("does not name the host"), refused.toString());
        c.put("clickhouse.ssl.hostname.verification", "false");
        Map<String, List<String>> accepted = h.rest().validate(ConnectWorker.CONNECTOR_CLASS, c);
        // The TLS connection is accepted; only the table is missing.
        assertEquals(List.of("table.name.format"), new ArrayList<>(accepted.keySet()), accepted.toString());
        System.out.println("TlsTest: wrong host: " + message);
    }

    /**
     * Through an HTTP proxy the TLS connection is tunnelled with CONNECT. A proxy that requires authentication for
     * CONNECT is refused with a clear message: client-v2 0.10.0 sends the proxy credentials as a header of each
     * request, which travels inside the tunnel, not with the CONNECT (see docs/operations.md).
     */
    @Test
    void throughAnHttpProxyTheTlsConnectionIsTunnelled() throws Exception {
        String topic = table();
        String connector = SinkHarness.unique("sink");
        String proxySecret = "Pr0xy-Secret-5f1e";
        produce(topic, 0, 500);
        try (ConnectProxy open = ConnectProxy.start(null, null);
                ConnectProxy authenticating = ConnectProxy.start("chsink", proxySecret)) {
            Map<String, String> c = config(topic, proxy, ca.truststore());
            c.put("clickhouse.proxy.host", "127.0.0.1");
            c.put("clickhouse.proxy.port", String.valueOf(open.port()));
            Map<String, List<String>> validated = h.rest().validate(ConnectWorker.CONNECTOR_CLASS, c);
            assertTrue(validated.isEmpty(), validated.toString());
            h.rest().putConnectorConfig(connector, c);
            new RowWatcher(h.ch(), "`" + topic + "`").awaitRows(500, Duration.ofMinutes(3), Duration.ofSeconds(90),
                    new ConnectorFailure(h.rest(), connector), null);
            assertTrue(open.tunnels().contains("127.0.0.1:" + proxy.port()), "tunnels: " + open.tunnels());

            c.put("clickhouse.proxy.port", String.valueOf(authenticating.port()));
            c.put("clickhouse.proxy.user", "chsink");
            c.put("clickhouse.proxy.password", proxySecret);
            Map<String, List<String>> refused = h.rest().validate(ConnectWorker.CONNECTOR_CLASS, c);
            assertTrue(String.valueOf(refused.get("clickhouse.url")).contains("Proxy authentication required"),
                    refused.toString());
            assertFalse(refused.toString().contains(proxySecret), "proxy password in validate()'s answer");
            assertFalse(Files.readString(h.stack.connect().logFile()).contains(proxySecret), "proxy password in the log");
            System.out.println("TlsTest: through the proxy: tunnels " + open.tunnels().size()
                    + "; authenticating proxy: " + refused);
        } finally {
            h.deleteQuietly(connector);
        }
    }
}
