package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;

import com.clickhouse.client.api.Client;
import io.chsink.it.events.CheckLine;
import io.chsink.it.events.DirectLoader;
import io.chsink.it.events.Event;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.stack.ClickHouseServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The events dataset: generator properties, and the direct client-v2 load whose CheckLine equals the Java one. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EventsDatasetTest {
    private static final long SEED = 42;
    private static final int N = 200_000;
    private ClickHouseServer server;

    @BeforeAll
    void start() throws Exception {
        server = ClickHouseServer.embedded(ClickHouseServerTest.workDir(getClass()));
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void directLoadMatchesTheJavaCheckLine() {
        String db = "events_it";
        String table = "events `200k`";
        server.exec("CREATE DATABASE " + EventsTable.quote(db));
        server.exec(EventsTable.createSql(db, table));
        try (Client client = server.newClient()) {
            assertEquals(N, new DirectLoader(client, 50_000).load(db, table, new EventGenerator(SEED), N));
        }
        String t = EventsTable.qualified(db, table);
        assertEquals(N + "\t" + N, server.query("SELECT count(), uniqExact(*) FROM " + t).trim());
        assertEquals("3", server.query("SELECT uniqExact(toYYYYMM(event_time)) FROM " + t).trim());

        CheckLine fromTable = EventsTable.check(server.http(), db, table);
        CheckLine fromJava = EventsTable.expected(SEED, N);
        assertEquals(fromJava, fromTable);
        assertEquals(fromJava.toString(), fromTable.toString());
        assertEquals(20, fromTable.groups());
        assertEquals(N, fromTable.totalRows());
        assertTrue(fromTable.toString().matches("groups=20 totalRows=200000 totalCents=\\d+ checksum=[0-9A-F]{8}"), fromTable.toString());
        System.out.println("events " + t + ": " + fromTable);

        // The first row comes back exactly as generated (time, decimal and strings round-trip).
        Event first = new EventGenerator(SEED).next();
        assertEquals(first.eventTime() + "\t" + first.userId() + "\t" + first.url() + "\t" + first.revenueCents(),
                server.query("SELECT toUnixTimestamp(event_time), user_id, url, toInt64(revenue * 100) FROM " + t
                        + " WHERE event_time = toDateTime(" + first.eventTime() + ") AND user_id = " + first.userId()
                        + " AND url = '" + first.url() + "'").trim());
    }

    @Test
    void sameSeedSameCheckLineOtherSeedDiffers() {
        assertEquals(EventsTable.expected(7, 5_000), EventsTable.expected(7, 5_000));
        assertNotEquals(EventsTable.expected(7, 5_000), EventsTable.expected(8, 5_000));
        assertEquals(new EventGenerator(7).take(100).toList(), new EventGenerator(7).take(100).toList());
    }

    @Test
    void generatorShape() {
        Set<String> countries = new HashSet<>();
        Set<String> types = new HashSet<>();
        Set<String> urls = new HashSet<>();
        for (Event e : EventGenerator.events(SEED, 20_000)) {
            countries.add(e.country());
            types.add(e.eventType());
            urls.add(e.url());
            assertTrue(e.url().length() >= 40 && e.url().length() <= 80, e.url());
            assertTrue(e.eventTime() >= EventGenerator.START_EPOCH_SECOND && e.eventTime() < EventGenerator.END_EPOCH_SECOND);
            assertTrue(e.revenueCents() == 0 || e.eventType().equals("purchase"), e.toString());
        }
        assertEquals(20, countries.size());
        assertEquals(8, types.size());
        assertTrue(urls.size() < 20_000 / 2, "urls repeat: " + urls.size() + " distinct");
        assertEquals(20, EventsTable.expected(123, 1_000).groups());
    }

    @Test
    void identifiersAreQuoted() {
        assertEquals("`a\\`b\\\\c`", EventsTable.quote("a`b\\c"));
    }
}
