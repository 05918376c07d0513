package io.chsink.connect.convert.avro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What ConvertersFuzzTest found in AvroConverter, one case each: every one now ends as a DataException that says
 * why, where it was a NullPointerException, an AvroTypeException, an IndexOutOfBoundsException, a
 * StackOverflowError or billions of values. Each test failed on the code before its fix.
 */
class AvroConverterFuzzFindingsTest {
    private final Map<Integer, String> schemas = new ConcurrentHashMap<>();
    private HttpServer server;

    private AvroConverter converter() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        server.createContext("/", x -> {
            String path = x.getRequestURI().getPath();
            String schema = path.startsWith("/schemas/ids/") ? schemas.get(Integer.parseInt(path.substring(13))) : null;
            String body = schema == null ? "{\"error_code\":40403,\"message\":\"Schema not found\"}"
                    : "{\"schema\":\"" + schema.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(schema == null ? 404 : 200, b.length);
            try (OutputStream out = x.getResponseBody()) {
                out.write(b);
            }
        });
        server.start();
        Map<String, Object> config = new HashMap<>();
        config.put("schema.registry.url", "http://127.0.0.1:" + server.getAddress().getPort());
        config.put("retries.wait.ms", "1");
        AvroConverter c = new AvroConverter();
        c.configure(config, false);
        return c;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private static byte[] framed(int id, byte[] avro) {
        byte[] out = new byte[avro.length + 5];
        out[4] = (byte) id;
        System.arraycopy(avro, 0, out, 5, avro.length);
        return out;
    }

    private static String refused(AvroConverter c, byte[] record) {
        String m = assertThrows(DataException.class, () -> c.toConnectData("t", record)).getMessage();
        assertTrue(m.startsWith("AvroConverter cannot read the value of a record of topic t "), m);
        return m;
    }

    /** Avro's parser threw a NullPointerException ("Unknown schema: ...UnresolvedSchema_1") for an undefined name. */
    @Test
    void aSchemaNamingATypeItDoesNotDefineIsADataException() throws IOException {
        AvroConverter c = converter();
        schemas.put(1, "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"date\"}]}");
        schemas.put(2, "{\"type\":\"array\",\"items\":\"fixed\"}"); // an AvroTypeException: Undefined schema: fixed
        schemas.put(3, "\"int8\"");
        for (int id = 1; id <= 3; id++) {
            String m = refused(c, framed(id, new byte[] {0}));
            assertTrue(m.contains("its writer schema id " + id + " cannot be read: Avro's schema parser fails on it ("), m);
        }
    }

    /** A default on an empty union: Avro's Field.defaultVal() threw an IndexOutOfBoundsException out of the converter. */
    @Test
    void aDefaultOfAnEmptyUnionIsIgnored() throws IOException {
        AvroConverter c = converter();
        schemas.put(1, "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"i\",\"type\":[],\"default\":3}]}");
        // The schema translates; no value can be written with it (no branch to pick), so every record is bad.
        String m = refused(c, framed(1, new byte[] {0}));
        assertTrue(m.contains("its bytes do not decode with writer schema id 1: union branch index 0 (the writer schema "
                + "has 0)"), m);
    }

    /**
     * Schema id 0xFFFFFFFF (-1) as the first record of a converter met the "no id read yet" mark (-1) and read with
     * no writer schema: a NullPointerException.
     */
    @Test
    void idMinusOneFirstIsAnUnknownId() throws IOException {
        AvroConverter c = converter();
        byte[] record = {0, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 2, 0};
        assertTrue(refused(c, record).contains("its schema id -1 is unknown to the registry"));
    }

    /** A MapEntry array inside its own value was translated without end (StackOverflowError). */
    @Test
    void aMapEntryInsideItselfIsARecursiveSchema() throws IOException {
        AvroConverter c = converter();
        schemas.put(1, "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"MapEntry\",\"namespace\":"
                + "\"io.confluent.connect.avro\",\"fields\":[{\"name\":\"key\",\"type\":\"string\"},{\"name\":\"value\","
                + "\"type\":{\"type\":\"array\",\"items\":\"io.confluent.connect.avro.MapEntry\"}}]}}");
        schemas.put(2, "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"ME\",\"connect.internal.type\":"
                + "\"MapEntry\",\"fields\":[{\"name\":\"key\",\"type\":{\"type\":\"array\",\"items\":\"ME\"}},"
                + "{\"name\":\"value\",\"type\":\"int\"}]}}");
        assertTrue(refused(c, framed(1, new byte[] {0})).contains("The Avro schema is recursive: record "
                + "io.confluent.connect.avro.MapEntry contains itself"));
        assertTrue(refused(c, framed(2, new byte[] {0})).contains("The Avro schema is recursive: record ME contains itself"));
        // A MapEntry array whose value is another MapEntry array (not itself) is still a map of maps.
        schemas.put(3, "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"MapEntry\",\"namespace\":"
                + "\"io.confluent.connect.avro\",\"fields\":[{\"name\":\"key\",\"type\":\"int\"},{\"name\":\"value\","
                + "\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"E2\",\"connect.internal.type\":"
                + "\"MapEntry\",\"fields\":[{\"name\":\"key\",\"type\":\"string\"},{\"name\":\"value\",\"type\":\"long\"}]}}}]}}");
        // {7: {"k": 9}}: one block of one entry, key 7, value one block of one entry "k" -> 9
        SchemaAndValue v = c.toConnectData("t", framed(3, new byte[] {2, 14, 2, 2, 'k', 18, 0, 0}));
        assertEquals(Map.of(7, Map.of("k", 9L)), v.value());
    }

    /** A schema nested deeper than the thread's stack holds overflowed it in the translator (StackOverflowError). */
    @Test
    void aSchemaNestedTooDeepForTheStackIsADataException() throws Exception {
        AvroConverter c = converter();
        int depth = 900;
        schemas.put(1, "{\"type\":\"array\",\"items\":".repeat(depth) + "\"int\"" + "}".repeat(depth));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread small = new Thread(null, () -> {
            try {
                c.toConnectData("t", framed(1, new byte[] {0}));
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, "small-stack", 160 * 1024);
        small.start();
        small.join(30_000);
        assertTrue(thrown.get() instanceof DataException, String.valueOf(thrown.get()));
        assertTrue(thrown.get().getMessage().contains("nested too deep"), thrown.get().getMessage());
    }

    /** Many small blocks of empty records: 60 KB that declared 245 million values (minutes, then OutOfMemoryError). */
    @Test
    void blocksMayNotDeclareMoreThanEightItemsPerByteInAll() throws IOException {
        AvroConverter c = converter();
        schemas.put(1, "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"Empty\",\"fields\":[]}}");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < 30_000; i++) {
            out.write(0xFE); // zig-zag varint 8191
            out.write(0x7F);
        }
        out.write(0);
        byte[] record = framed(1, out.toByteArray());
        String m = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> refused(c, record));
        assertTrue(m.contains("blocks of more items in all than 8 per byte of the record"), m);
        // 1000 empty records in a 3-byte array are still read (the bound leaves 1024 items of slack, then 8 per byte).
        SchemaAndValue ok = c.toConnectData("t", framed(1, new byte[] {(byte) 0xD0, 0x0F, 0}));
        assertEquals(1000, ((List<?>) ok.value()).size());
    }
}
