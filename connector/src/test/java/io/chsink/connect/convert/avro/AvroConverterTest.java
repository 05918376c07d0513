package io.chsink.connect.convert.avro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.chsink.connect.Version;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The converter's own logic against a scripted HTTP endpoint (not a registry: it answers what each test says, counts
 * requests and records their Authorization headers): wire format checks, caching by id, retries and URL failover,
 * the three ways of authenticating, and that no secret reaches a message. The real path (worker, stand-in registry,
 * ClickHouse) is in system-tests (AvroTypesTest, AvroRegistryTest).
 */
class AvroConverterTest {
    private static final String ROW = "{\"type\":\"record\",\"name\":\"Row\",\"namespace\":\"t\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"name\",\"type\":\"string\"}]}";

    /** id → the JSON body to answer for /schemas/ids/{id}. */
    private final Map<Integer, String> bodies = new ConcurrentHashMap<>();
    private final List<String> authorizations = new ArrayList<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger failFirst = new AtomicInteger();
    private volatile int failStatus = 503;
    private HttpServer server;

    private String start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        server.createContext("/", x -> {
            requests.incrementAndGet();
            synchronized (authorizations) {
                authorizations.add(String.valueOf(x.getRequestHeaders().getFirst("Authorization")));
            }
            String path = x.getRequestURI().getPath();
            int status;
            String body;
            if (failFirst.getAndDecrement() > 0) {
                status = failStatus;
                body = "{\"error_code\":" + failStatus + ",\"message\":\"scripted failure\"}";
            } else if (path.startsWith("/schemas/ids/") && bodies.containsKey(Integer.parseInt(path.substring(13)))) {
                status = 200;
                body = bodies.get(Integer.parseInt(path.substring(13)));
            } else {
                status = 404;
                body = "{\"error_code\":40403,\"message\":\"Schema not found\"}";
            }
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(status, b.length);
            try (OutputStream out = x.getResponseBody()) {
                out.write(b);
            }
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private static String schemaBody(String schema) {
        return "{\"schema\":\"" + schema.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
    }

    private static AvroConverter converter(Map<String, Object> config, boolean isKey) {
        AvroConverter c = new AvroConverter();
        c.configure(config, isKey);
        return c;
    }

    private static Map<String, Object> config(String url) {
        Map<String, Object> m = new HashMap<>();
        m.put("schema.registry.url", url);
        m.put("retries.wait.ms", "10");
        return m;
    }

    static byte[] framed(int id, String schema, Object datum) {
        byte[] avro = AvroTranslatorTest.write(AvroTranslatorTest.avro(schema), datum);
        byte[] out = new byte[avro.length + 5];
        out[1] = (byte) (id >>> 24);
        out[2] = (byte) (id >>> 16);
        out[3] = (byte) (id >>> 8);
        out[4] = (byte) id;
        System.arraycopy(avro, 0, out, 5, avro.length);
        return out;
    }

    private static byte[] row(int id, int value) {
        GenericRecord r = new GenericData.Record(AvroTranslatorTest.avro(ROW));
        r.put("id", value);
        r.put("name", "n" + value);
        return framed(id, ROW, r);
    }

    @Test
    void readsFramedRecordsAndCachesEachIdSoAnOutageStopsOnlyUncachedOnes() throws IOException {
        String url = start();
        bodies.put(7, schemaBody(ROW));
        bodies.put(8, schemaBody("{\"type\":\"record\",\"name\":\"Row\",\"namespace\":\"t\",\"fields\":["
                + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"name\",\"type\":\"string\"},"
                + "{\"name\":\"added\",\"type\":\"long\",\"default\":0}]}"));
        AvroConverter c = converter(config(url), false);
        SchemaAndValue a = c.toConnectData("t", row(7, 1));
        SchemaAndValue b = c.toConnectData("t", row(7, 2));
        assertEquals(new Struct(a.schema()).put("id", 1).put("name", "n1"), a.value());
        assertEquals(2, ((Struct) b.value()).get("id"));
        assertSame(a.schema(), b.schema(), "one Connect schema per id");
        assertEquals(1, requests.get(), "the id was fetched once");
        assertEquals(SchemaAndValue.NULL, c.toConnectData("t", null), "a tombstone is null");
        server.stop(0);
        server = null;
        assertEquals(3, ((Struct) c.toConnectData("t", row(7, 3)).value()).get("id"), "cached: read while the registry is down");
        DataException down = assertThrows(DataException.class, () -> c.toConnectData("t", row(8, 4)));
        assertTrue(down.getMessage().contains("its writer schema id 8 could not be fetched: the schema registry at " + url
                + " cannot be reached") && down.getMessage().contains("4 attempts over 1 URL(s), max.retries=3"),
                down.getMessage());
        assertEquals(1, c.cachedSchemas());
        assertEquals(Version.get(), c.version());
        assertThrows(DataException.class, () -> c.fromConnectData("t", a.schema(), a.value()));
    }

    @Test
    void retriesServerErrorsAndTriesTheNextUrl() throws IOException {
        String url = start();
        bodies.put(1, schemaBody(ROW));
        failFirst.set(2);
        AvroConverter c = converter(config(url), false);
        assertEquals(5, ((Struct) c.toConnectData("t", row(1, 5)).value()).get("id"));
        assertEquals(3, requests.get(), "two 503s, then the schema");

        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort(); // closed again: connections are refused
        }
        requests.set(0);
        Map<String, Object> two = config("http://127.0.0.1:" + dead + "," + url);
        two.put("max.retries", "0");
        assertEquals(6, ((Struct) converter(two, false).toConnectData("t", row(1, 6)).value()).get("id"));
        assertEquals(1, requests.get(), "the second URL answered after the first refused");

        failStatus = 400;
        failFirst.set(1);
        requests.set(0);
        assertThrows(DataException.class, () -> converter(config(url), false).toConnectData("t", row(1, 7)));
        assertEquals(1, requests.get(), "a 400 is not retried");
    }

    @Test
    void authenticatesByUserInfoUrlOrBearerAndNeverShowsTheSecret() throws IOException {
        String url = start();
        bodies.put(1, schemaBody(ROW));
        String basic = "Basic " + Base64.getEncoder().encodeToString("u:p4ss-word".getBytes(StandardCharsets.UTF_8));

        Map<String, Object> userInfo = config(url);
        userInfo.put("basic.auth.credentials.source", "USER_INFO");
        userInfo.put("basic.auth.user.info", "u:p4ss-word");
        converter(userInfo, false).toConnectData("t", row(1, 1));

        String withUser = url.replace("http://", "http://u:p4ss-word@");
        converter(config(withUser), false).toConnectData("t", row(1, 1));

        Map<String, Object> bearer = config(url);
        bearer.put("bearer.auth.token", "t0ken-value");
        converter(bearer, false).toConnectData("t", row(1, 1));
        assertEquals(List.of(basic, basic, "Bearer t0ken-value"), authorizations);

        failStatus = 401;
        failFirst.set(100);
        DataException e = assertThrows(DataException.class, () -> converter(config(withUser), false).toConnectData("t", row(1, 1)));
        assertTrue(e.getMessage().contains("the schema registry at " + url + " answered 401"), e.getMessage());
        assertFalse(e.getMessage().contains("p4ss-word"), e.getMessage());
        assertEquals(1, requests.get() - 3, "a 401 is not retried");

        Map<String, Object> missing = config(url);
        missing.put("basic.auth.credentials.source", "USER_INFO");
        assertThrows(ConfigException.class, () -> converter(missing, false));
        Map<String, Object> unsupported = config(url);
        unsupported.put("generalized.sum.type.support", "true");
        assertThrows(ConfigException.class, () -> converter(unsupported, false));
        ConfigException badUrl = assertThrows(ConfigException.class,
                () -> converter(config("ftp://u:p4ss-word@host/"), false));
        assertFalse(badUrl.getMessage().contains("p4ss-word"), badUrl.getMessage());
    }

    @Test
    void badInputIsADataExceptionNamingTopicAndCause() throws IOException {
        String url = start();
        bodies.put(1, schemaBody(ROW));
        bodies.put(2, "{\"schemaType\":\"PROTOBUF\",\"schema\":\"syntax = \\\"proto3\\\";\"}");
        bodies.put(3, schemaBody("{\"type\":\"record\",\"name\":\"N\",\"fields\":[{\"name\":\"n\",\"type\":[\"null\",\"N\"]}]}"));
        AvroConverter c = converter(config(url), false);
        byte[] good = row(1, 1);
        byte[] magic = good.clone();
        magic[0] = 2; // 1 is the magic byte of a GUID prefix (AvroSchemaIdHeaderTest)
        byte[] protobuf = good.clone();
        protobuf[4] = 2;
        byte[] recursive = good.clone();
        recursive[4] = 3;
        byte[] unknown = good.clone();
        unknown[4] = 9;
        byte[] trailing = java.util.Arrays.copyOf(good, good.length + 2);
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 2);
        Object[][] cases = {
            {new byte[] {0, 0}, "it has 2 bytes, fewer than the 5"},
            {magic, "its first byte is 2, not the magic byte 0"},
            {protobuf, "its schema id 2 is a PROTOBUF schema, not Avro"},
            {recursive, "its writer schema id 3 cannot be read: The Avro schema is recursive: record N contains itself"},
            {unknown, "its schema id 9 is unknown to the registry (the schema registry at " + url + " answered 404 for "
                + "schema id 9: Schema not found (error_code 40403))"},
            {trailing, "its bytes do not decode with writer schema id 1: 2 bytes are left after the value"},
            {truncated, "its bytes do not decode with writer schema id 1: a string of 2 bytes with 0 bytes left"},
        };
        for (Object[] k : cases) {
            DataException e = assertThrows(DataException.class, () -> c.toConnectData("orders", (byte[]) k[0]));
            assertTrue(e.getMessage().startsWith("AvroConverter cannot read the value of a record of topic orders"),
                    e.getMessage());
            assertTrue(e.getMessage().contains((String) k[1]), e.getMessage());
        }
        assertEquals(1, ((Struct) c.toConnectData("orders", good).value()).get("id"), "good records still read");
    }

    @Test
    void worksAsKeyConverterWithPrimitiveSchemas() throws IOException {
        String url = start();
        bodies.put(4, schemaBody("\"string\""));
        bodies.put(5, schemaBody("\"long\""));
        AvroConverter keys = converter(config(url), true);
        SchemaAndValue s = keys.toConnectData("t", framed(4, "\"string\"", "k-1"));
        assertEquals(Schema.STRING_SCHEMA, s.schema());
        assertEquals("k-1", s.value());
        assertEquals(-9L, keys.toConnectData("t", framed(5, "\"long\"", -9L)).value());
        DataException e = assertThrows(DataException.class, () -> keys.toConnectData("t", new byte[] {7, 0, 0, 0, 4}));
        assertTrue(e.getMessage().startsWith("AvroConverter cannot read the key of a record of topic t"), e.getMessage());
    }
}
