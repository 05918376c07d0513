package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.avro.AvroWire;
import io.chsink.it.avro.TestRegistry;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.TestPki;
import io.chsink.it.stack.TlsProxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * AvroConverter against a registry that requires basic authentication, goes away, or is given bad records: wrong
 * credentials fail the task with a message naming the registry and no secret; an outage after the schema was cached
 * does not stop the records; an outage before fails the task after the retries, naming the registry; with
 * errors.tolerance=all each bad record (wrong magic byte, unknown id, a PROTOBUF id, bytes that do not decode,
 * too short) goes alone to the dead-letter queue with its reason, and every good record lands.
 */
class AvroRegistryTest {
    private static final String USER = "reader";
    private static final String PASSWORD = "s3cret-registry-pw";
    private static final String WRONG = "wr0ng-registry-pw";
    private static final Schema ROW = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Row\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"name\",\"type\":\"string\"}]}");
    private final SinkHarness h = new SinkHarness();

    private String table() {
        String t = SinkHarness.unique("avro_reg");
        h.stack.clickhouse().exec("CREATE TABLE `" + t + "` (id UInt32, name String) ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(t, 1);
        return t;
    }

    private static byte[] row(AvroWire w, int id) {
        GenericRecord r = new GenericData.Record(ROW);
        r.put("id", id);
        r.put("name", "n" + id);
        return w.write(r);
    }

    private void produce(String topic, AvroWire w, int from, int to) {
        List<byte[]> v = new ArrayList<>();
        for (int id = from; id <= to; id++) {
            v.add(row(w, id));
        }
        new EventProducer(h.stack.kafka().bootstrapServers()).produceBytes(topic, 0, v);
    }

    private Map<String, String> overrides(String topic, String registryUrl) {
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("value.converter.schema.registry.url", registryUrl);
        o.put("value.converter.max.retries", "2");
        o.put("value.converter.retries.wait.ms", "200");
        return o;
    }

    private static String read(Path file, long from) throws java.io.IOException {
        byte[] all = Files.readAllBytes(file);
        int start = (int) Math.min(from, all.length);
        return new String(all, start, all.length - start, StandardCharsets.UTF_8);
    }

    @Test
    void basicAuthWrongCredentialsFailClearlyWithoutTheSecretRightOnesLand() throws Exception {
        Path workerLog = h.stack.connect().logFile();
        long logStart = Files.size(workerLog);
        try (TestRegistry registry = new TestRegistry(USER, PASSWORD)) {
            String wrongTopic = table();
            String rightTopic = table();
            AvroWire w = new AvroWire(ROW, registry.register("row-value", ROW.toString()));
            produce(wrongTopic, w, 1, 5);
            produce(rightTopic, w, 1, 5);
            String wrong = SinkHarness.unique("sink_avro");
            String right = SinkHarness.unique("sink_avro");
            Map<String, String> o = overrides(wrongTopic, registry.url());
            o.put("value.converter.basic.auth.credentials.source", "USER_INFO");
            o.put("value.converter.basic.auth.user.info", USER + ":" + WRONG);
            // the right credentials, given in the URL (basic.auth.credentials.source=URL, the default)
            Map<String, String> ok = overrides(rightTopic, registry.url().replace("http://", "http://" + USER + ":" + PASSWORD + "@"));
            try {
                h.createConnector(wrong, AvroTypesTest.EXAMPLE, o);
                h.createConnector(right, AvroTypesTest.EXAMPLE, ok);
                String trace = h.awaitFailure(wrong, Duration.ofSeconds(90));
                assertTrue(trace.contains("the schema registry at " + registry.url() + " answered 401"), trace);
                assertTrue(trace.contains("of topic " + wrongTopic), trace);
                h.awaitRows(rightTopic, 5, right);
                assertEquals(0, h.scalar("SELECT count() FROM `" + wrongTopic + "`"));
                String log = read(workerLog, logStart);
                String status = h.rest().connectorStatus(wrong).toString();
                for (String secret : List.of(PASSWORD, WRONG)) {
                    assertFalse(log.contains(secret), "a registry password is in the worker log");
                    assertFalse(status.contains(secret), "a registry password is in the status");
                }
                assertTrue(log.contains("schema registry [" + registry.url() + "] (authentication: basic)"),
                        "the converter logs the registry without user information");
                System.out.println("AvroRegistryTest: wrong credentials: " + SinkHarness.causeLine(trace));
            } finally {
                h.deleteQuietly(wrong);
                h.deleteQuietly(right);
            }
        }
    }

    @Test
    void overTlsWithAClientCertificateRecordsLandAnUntrustedCaOrAMissingKeyStoreFailsClearly() throws Exception {
        Path dir = Path.of(System.getProperty("chsink.work.dir", System.getProperty("java.io.tmpdir")), "avro-tls",
                SinkHarness.unique("pki"));
        TestPki ca = TestPki.create(dir, "registry-ca");
        TestPki otherCa = TestPki.create(dir, "other-ca");
        Path serverStore = ca.issue("registry", "localhost", "dns:localhost,ip:127.0.0.1");
        Path clientStore = ca.issue("converter", "chsink-converter", null);
        Path missing = dir.resolve("no-such-keystore.p12");
        try (TestRegistry registry = new TestRegistry();
                TlsProxy tls = TlsProxy.start(serverStore, ca.truststore(), URI.create(registry.url()).getPort())) {
            String url = "https://localhost:" + tls.port();
            String okTopic = table();
            String untrustedTopic = table();
            String noKeysTopic = table();
            AvroWire w = new AvroWire(ROW, registry.register("row-value", ROW.toString()));
            produce(okTopic, w, 1, 5);
            produce(untrustedTopic, w, 1, 5);
            produce(noKeysTopic, w, 1, 5);
            String ok = SinkHarness.unique("sink_avro_tls");
            String untrusted = SinkHarness.unique("sink_avro_tls");
            String noKeys = SinkHarness.unique("sink_avro_tls");
            try {
                h.createConnector(ok, AvroTypesTest.EXAMPLE, tlsOverrides(okTopic, url, ca.truststore(), clientStore));
                h.createConnector(untrusted, AvroTypesTest.EXAMPLE,
                        tlsOverrides(untrustedTopic, url, otherCa.truststore(), clientStore));
                h.createConnector(noKeys, AvroTypesTest.EXAMPLE, tlsOverrides(noKeysTopic, url, ca.truststore(), missing));
                h.awaitRows(okTopic, 5, ok);
                assertTrue(tls.handshakes() > 0, "the records' schema came through the TLS proxy");

                String refused = h.awaitFailure(untrusted, Duration.ofSeconds(90));
                assertTrue(refused.contains("the schema registry at " + url + " cannot be reached")
                        && refused.contains("SSLHandshakeException"), refused);
                String noStore = h.awaitFailure(noKeys, Duration.ofSeconds(90));
                assertTrue(noStore.contains("Cannot read " + missing + " (schema.registry.ssl.keystore.location, "
                        + "PKCS12): NoSuchFileException"), noStore);
                for (String trace : List.of(refused, noStore)) {
                    assertFalse(trace.contains(TestPki.PASSWORD), "a store password is in the failure");
                }
                assertEquals(0, h.scalar("SELECT count() FROM `" + untrustedTopic + "`"));
                assertEquals(0, h.scalar("SELECT count() FROM `" + noKeysTopic + "`"));
                System.out.println("AvroRegistryTest: TLS: " + tls.handshakes() + " handshakes; untrusted CA: "
                        + SinkHarness.causeLine(refused) + "; missing key store: " + SinkHarness.causeLine(noStore));
            } finally {
                h.deleteQuietly(ok);
                h.deleteQuietly(untrusted);
                h.deleteQuietly(noKeys);
            }
        }
    }

    private Map<String, String> tlsOverrides(String topic, String url, Path truststore, Path keystore) {
        Map<String, String> o = overrides(topic, url);
        o.put("value.converter.schema.registry.ssl.truststore.location", truststore.toString());
        o.put("value.converter.schema.registry.ssl.truststore.password", TestPki.PASSWORD);
        o.put("value.converter.schema.registry.ssl.truststore.type", "PKCS12");
        o.put("value.converter.schema.registry.ssl.keystore.location", keystore.toString());
        o.put("value.converter.schema.registry.ssl.keystore.password", TestPki.PASSWORD);
        o.put("value.converter.schema.registry.ssl.keystore.type", "PKCS12");
        return o;
    }

    @Test
    void anOutageAfterCachingStopsNothingAnOutageBeforeFailsTheTaskAfterRetries() throws Exception {
        try (TestRegistry registry = new TestRegistry()) {
            String cachedTopic = table();
            String uncachedTopic = table();
            AvroWire w = new AvroWire(ROW, registry.register("row-value", ROW.toString()));
            produce(cachedTopic, w, 1, 10);
            String cached = SinkHarness.unique("sink_avro");
            String uncached = SinkHarness.unique("sink_avro");
            try {
                h.createConnector(cached, AvroTypesTest.EXAMPLE, overrides(cachedTopic, registry.url()));
                h.awaitRows(cachedTopic, 10, cached);
                long requests = registry.requests();
                registry.stop();
                produce(cachedTopic, w, 11, 20);
                h.awaitRows(cachedTopic, 20, cached);
                assertEquals("20\t20", h.ch().query("SELECT count(), uniqExact(id) FROM `" + cachedTopic + "`").trim());
                assertEquals(1, requests, "one registry request for the one schema id, then the cache");

                // Before caching: a new task finds no registry; it retries (max.retries=2) and fails by name.
                produce(uncachedTopic, w, 1, 3);
                long start = System.nanoTime();
                h.createConnector(uncached, AvroTypesTest.EXAMPLE, overrides(uncachedTopic, registry.url()));
                String trace = h.awaitFailure(uncached, Duration.ofSeconds(90));
                String cause = SinkHarness.causeLine(trace);
                assertTrue(trace.contains("its writer schema id " + w.id() + " could not be fetched: the schema registry at "
                        + registry.url() + " cannot be reached"), trace);
                assertTrue(trace.contains("3 attempts over 1 URL(s), max.retries=2"), trace);
                assertEquals(0, h.scalar("SELECT count() FROM `" + uncachedTopic + "`"));
                System.out.printf("AvroRegistryTest: registry down before caching: FAILED after %d ms: %s%n",
                        (System.nanoTime() - start) / 1_000_000, cause);
            } finally {
                registry.start();
                h.deleteQuietly(cached);
                h.deleteQuietly(uncached);
            }
        }
    }

    @Test
    void badRecordsGoAloneToTheDeadLetterQueueAndEveryGoodOneLands() throws Exception {
        Path workerLog = h.stack.connect().logFile();
        long logStart = Files.size(workerLog);
        try (TestRegistry registry = new TestRegistry()) {
            String topic = table();
            String dlq = topic + "_dlq";
            AvroWire w = new AvroWire(ROW, registry.register("row-value", ROW.toString()));
            int protobuf = registry.register("other-value", "syntax = \"proto3\"; message M { int32 id = 1; }", "PROTOBUF");
            byte[] good = row(w, 0);
            byte[] magic = good.clone();
            magic[0] = 2; // 1 is the magic byte of a schema GUID prefix
            byte[] unknown = good.clone();
            unknown[4] = 99;
            byte[] notAvro = good.clone();
            notAvro[4] = (byte) protobuf;
            byte[] truncated = Arrays.copyOf(good, good.length - 1);
            byte[] trailing = Arrays.copyOf(good, good.length + 1);
            byte[][] bad = {magic, unknown, notAvro, truncated, trailing, {0, 0, 1}};
            String[] reasons = {"its first byte is 2, not the magic byte 0", "its schema id 99 is unknown to the registry",
                "its schema id " + protobuf + " is a PROTOBUF schema, not Avro", "do not decode with writer schema id "
                + w.id() + ": a string of 2 bytes with 1 bytes left", "1 bytes are left after the value", "it has 3 bytes, fewer than the 5"};
            List<byte[]> records = new ArrayList<>();
            int id = 1;
            for (byte[] b : bad) {
                records.add(row(w, id++));
                records.add(b);
            }
            records.add(row(w, id));
            new EventProducer(h.stack.kafka().bootstrapServers()).produceBytes(topic, 0, records);
            String connector = SinkHarness.unique("sink_avro");
            Map<String, String> o = overrides(topic, registry.url());
            o.put("errors.tolerance", "all");
            o.put("errors.deadletterqueue.topic.name", dlq);
            o.put("errors.deadletterqueue.topic.replication.factor", "1");
            o.put("errors.deadletterqueue.context.headers.enable", "true");
            try {
                h.createConnector(connector, AvroTypesTest.EXAMPLE, o);
                h.awaitRows(topic, bad.length + 1, connector);
                List<ConsumerRecord<byte[], byte[]>> dead = DeadLetterReader.readAll(h.stack.kafka().bootstrapServers(), dlq,
                        bad.length);
                assertEquals(bad.length, dead.size(), "exactly the bad records are dead letters");
                for (int i = 0; i < bad.length; i++) {
                    ConsumerRecord<byte[], byte[]> r = dead.get(i);
                    assertTrue(Arrays.equals(bad[i], r.value()), "dead letter " + i + " is the bad record as it was");
                    assertEquals(topic, DeadLetterReader.header(r, "__connect.errors.topic"));
                    assertEquals("0", DeadLetterReader.header(r, "__connect.errors.partition"));
                    assertEquals(String.valueOf(2 * i + 1), DeadLetterReader.header(r, "__connect.errors.offset"));
                    String message = DeadLetterReader.header(r, "__connect.errors.exception.message");
                    assertTrue(message.contains("of topic " + topic) && message.contains(reasons[i]), message);
                }
                assertEquals((bad.length + 1) + "\t" + (bad.length + 1), h.ch().query("SELECT count(), uniqExact(id) FROM `"
                        + topic + "`").trim());
                assertEquals(0, h.scalar("SELECT count() FROM `" + topic + "` WHERE name != concat('n', toString(id))"));
                // errors.log.enable=true (config/clickhouse-sink-avro.json): the worker log names each one's offset
                String log = read(workerLog, logStart);
                for (int i = 0; i < bad.length; i++) {
                    String at = "AvroConverter', where consumed record is {topic='" + topic + "', partition=0, offset="
                            + (2 * i + 1) + ",";
                    assertTrue(log.contains(at), "the worker log names " + at);
                }
            } finally {
                h.deleteQuietly(connector);
            }
        }
    }
}
