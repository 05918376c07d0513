package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.client.api.query.GenericRecord;
import com.clickhouse.data.ClickHouseFormat;
import io.chsink.it.stack.ClickHouseQueryException;
import io.chsink.it.stack.ClickHouseServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The embedded ClickHouse: a real 26.7 server process from libchdb, with users, client-v2 access and restarts. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClickHouseServerTest {
    private static final String PASSWORD = "s3cret <&> 'quoted'";
    private ClickHouseServer server;

    @BeforeAll
    void start() throws Exception {
        server = ClickHouseServer.builder(workDir(getClass())).withUser("alice", PASSWORD).start();
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
            assertFalse(Files.exists(server.dataDir()), "close() deletes the tmpfs data dir it created");
        }
    }

    static Path workDir(Class<?> testClass) throws Exception {
        String root = System.getProperty("chsink.work.dir");
        return root != null ? Path.of(root, testClass.getSimpleName()) : Files.createTempDirectory(testClass.getSimpleName());
    }

    @Test
    void isClickHouse26_7OnItsOwnPorts() {
        assertTrue(server.version().startsWith("26.7."), server.version());
        assertEquals("http://127.0.0.1:" + server.httpPort(), server.url());
        assertEquals("UTC", server.query("SELECT timezone()").trim().replace("Etc/", ""));
        assertTrue(server.isRunning());
        assertDoesNotThrow(() -> new Socket("127.0.0.1", server.tcpPort()).close(), "native TCP port listens");
    }

    @Test
    void passwordUserCanQueryAndWrongPasswordIsRefused() {
        assertEquals("alice", server.http("alice", PASSWORD).scalar("SELECT currentUser()"));
        ClickHouseQueryException refused = assertThrows(ClickHouseQueryException.class,
                () -> server.http("alice", "wrong").query("SELECT 1"));
        assertTrue(refused.getMessage().contains("AUTHENTICATION_FAILED"), refused.getMessage());
        assertTrue(refused.httpStatus() == 401 || refused.httpStatus() == 403, "status " + refused.httpStatus());
    }

    @Test
    void serverErrorsQuoteTheServerText() {
        ClickHouseQueryException e = assertThrows(ClickHouseQueryException.class, () -> server.query("SELECT nosuch()"));
        assertTrue(e.getMessage().contains("UNKNOWN_FUNCTION"), e.getMessage());
    }

    @Test
    void clientV2ConnectsAndQueries() throws Exception {
        try (Client client = server.newClient()) {
            assertTrue(client.ping());
            List<GenericRecord> rows = client.queryAll("SELECT number, toString(number) AS s FROM numbers(3)");
            assertEquals(3, rows.size());
            assertEquals("2", rows.get(2).getString("s"));
            assertEquals(2L, rows.get(2).getLong("number"));
        }
    }

    /** What the connector sends: an LZ4-compressed (ClickHouse framing) INSERT ... FORMAT Native through client-v2. */
    @Test
    void clientV2CompressedNativeInsert() throws Exception {
        server.exec("CREATE TABLE native_probe (id UInt64, s String, n Nullable(UInt32) DEFAULT 9) ENGINE = MergeTree ORDER BY id");
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.write(new byte[] {3, 3}); // 3 columns, 3 rows
        writeString(block, "id");
        writeString(block, "UInt64");
        block.write(ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN).putLong(1).putLong(2).putLong(3).array());
        writeString(block, "s");
        writeString(block, "String");
        for (String s : List.of("a", "", "héllo")) {
            writeString(block, s);
        }
        writeString(block, "n");
        writeString(block, "Nullable(UInt32)");
        block.write(new byte[] {0, 1, 0}); // null map: the second row is NULL
        block.write(ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(5).putInt(0).putInt(7).array());
        InsertSettings settings = new InsertSettings();
        settings.compressClientRequest(true);
        try (Client client = server.newClient();
             InsertResponse response = client.insert("native_probe", List.of("id", "s", "n"), out -> block.writeTo(out),
                     ClickHouseFormat.Native, settings).get()) {
            assertEquals(3, response.getWrittenRows());
        }
        assertEquals("1\ta\t5\n2\t\t\\N\n3\théllo\t7\n", server.query("SELECT * FROM native_probe ORDER BY id"));
        server.exec("DROP TABLE native_probe SYNC");
    }

    private static void writeString(ByteArrayOutputStream out, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.write(bytes.length); // varint: all strings here are shorter than 128 bytes
        out.writeBytes(bytes);
    }

    @Test
    void externalServerQueriesButIsNotManaged() {
        ClickHouseServer external = ClickHouseServer.external(server.url(), "alice", PASSWORD);
        assertEquals("alice", external.query("SELECT currentUser()").trim());
        assertThrows(IllegalStateException.class, external::stop);
        external.close(); // no-op
        assertTrue(server.isRunning());
    }

    @Test
    void mergeTreeRowsSurviveKillAndCleanStop() {
        server.exec("CREATE DATABASE IF NOT EXISTS survive");
        server.exec("CREATE TABLE survive.t (id UInt64, s String) ENGINE = MergeTree ORDER BY id");
        server.exec("INSERT INTO survive.t SELECT number, toString(number) FROM numbers(100000)");
        int port = server.httpPort();

        assertEquals(137, server.kill());
        assertFalse(server.isRunning());
        assertThrows(ClickHouseQueryException.class, () -> server.query("SELECT 1"));
        server.start();
        assertEquals(port, server.httpPort());
        assertEquals("100000\t4999950000", server.query("SELECT count(), sum(id) FROM survive.t").trim());

        server.exec("INSERT INTO survive.t SELECT number, 'x' FROM numbers(100000, 5)");
        assertEquals(0, server.stop());
        server.start();
        assertEquals("100005", server.query("SELECT count() FROM survive.t").trim());
        server.exec("DROP DATABASE survive SYNC");
    }
}
