package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.client.api.query.QuerySettings;
import com.clickhouse.data.ClickHouseFormat;
import io.chsink.it.stack.ClickHouseServer;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The server behaviour exactly_once rebuilds rely on (docs/exactly-once.md, "Missing records in a rebuild"), on the
 * embedded ClickHouse 26.7 (insert_deduplication_version = new_unified_hash, its default): an insert with {@code insert_deduplication_token} into a partitioned MergeTree
 * (PARTITION BY p, non_replicated_deduplication_window = 1000) gives each partition's part the block ID
 * {@code <partition_id>_<hash of the token and the insert's source block number>}, the same hash for every
 * partition of a one-block insert. So a rebuild of a recorded block (one Native block, as the connector sends it,
 * with the recorded token) that lacks some of the original rows, whole partitions of them or not, is dropped where
 * the original landed and lands where it had not: never a duplicate. A ClickHouse upgrade that changes this fails
 * here.
 *
 * <p>Also pinned: a row format split into several source blocks ({@code max_insert_block_size}) shifts the IDs
 * (the reason the connector sends one Native block per insert), and {@code deduplicate_insert = disable} beats
 * {@code insert_deduplicate = 1} (the reason the connector overrides it in exactly_once).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DedupTokenPartitionsTest {
    /** A token as the connector makes them: connector/topic/partition/first-last/first timestamp. */
    private static final String TOKEN = "chsink/sink/events/0/100-108/1764547200000";
    private final AtomicInteger tables = new AtomicInteger();
    private ClickHouseServer server;

    @BeforeAll
    void start() throws Exception {
        server = ClickHouseServer.builder(ClickHouseServerTest.workDir(getClass())).start();
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void serverIs26_7WithUnifiedDeduplicationIds() {
        assertTrue(server.version().startsWith("26.7."), server.version());
        // The server setting (from 26.2: old_separate_hashes, compatible_double_hashes, new_unified_hash) that
        // chooses how block IDs are derived; RebuildCheck reads it too.
        assertEquals("new_unified_hash", server.query("SELECT value FROM system.server_settings "
                + "WHERE name = 'insert_deduplication_version'").trim());
    }

    @Test
    void theSameInsertAgainIsDropped() throws Exception {
        assertEquals("1:3 2:3 3:3", twoInserts(rows(1, 2, 3), rows(1, 2, 3)));
    }

    @Test
    void rebuildLackingAWholePartitionIsDropped() throws Exception {
        assertEquals("1:3 2:3 3:3", twoInserts(rows(1, 2, 3), rows(2, 3)), "first partition missing");
        assertEquals("1:3 2:3 3:3", twoInserts(rows(1, 2, 3), rows(1, 3)), "middle partition missing");
        assertEquals("1:3 2:3 3:3", twoInserts(rows(1, 2, 3), rows(1, 2)), "last partition missing");
        assertEquals("1:3 2:3 3:3", twoInserts(rows(1, 2, 3), rows(2)), "only the middle one left");
    }

    @Test
    void rebuildLackingRowsInsideAPartitionIsDropped() throws Exception {
        assertEquals("1:3 2:3 3:3", twoInserts(rows(1, 2, 3), "SELECT * FROM (" + rows(1, 2, 3) + ") WHERE id != 20"));
        assertEquals("1:3 2:3 3:3", twoInserts(rows(1, 2, 3), "SELECT * FROM (" + rows(1, 2, 3) + ") WHERE id % 10 != 0"));
    }

    @Test
    void partlyLandedOriginalGetsExactlyItsMissingPartitions() throws Exception {
        // The original's first part committed, the others not (a crash between parts): the rebuild fills the gaps.
        assertEquals("1:3 2:3 3:3", twoInserts(rows(1), rows(1, 2, 3)), "p=1 had landed");
        assertEquals("1:3 2:3 3:3", twoInserts(rows(2), rows(1, 2, 3)), "p=2 had landed");
        assertEquals("1:3 2:3 3:3", twoInserts(rows(1, 3), rows(1, 2, 3)), "p=1 and p=3 had landed");
        // ... and lacks records too: what is still there lands once, the lost records stay lost.
        assertEquals("1:3 2:3 3:3", twoInserts(rows(1), rows(2, 3)), "p=1 landed, its records gone");
        assertEquals("1:3 3:3", twoInserts(rows(1), rows(1, 3)), "p=1 landed, p=2's records gone");
        assertEquals("1:3 2:2 3:3", twoInserts(rows(1), "SELECT * FROM (" + rows(1, 2, 3) + ") WHERE id != 20"));
    }

    @Test
    void blockIdIsPartitionIdAndOneHashOfTheToken() throws Exception {
        String t = table();
        insertNative(t, TOKEN, rows(1, 2, 3));
        insertNative(t, TOKEN, rows(3));
        insertNative(t, TOKEN + "/other", rows(2));
        List<String> ids = blockIds(t);
        assertEquals(4, ids.size(), ids.toString());
        String hash = ids.get(0).substring(ids.get(0).indexOf('_'));
        assertEquals(List.of("1" + hash, "2" + hash, "3" + hash), ids.subList(0, 3), "one hash, the partition in front");
        assertTrue(ids.get(3).startsWith("2_") && !ids.get(3).endsWith(hash), "another token, another hash: " + ids);
    }

    @Test
    void oneNativeBlockIsOneSourceBlockWhateverMaxInsertBlockSize() throws Exception {
        // 8 rows in one Native block, max_insert_block_size = 4: not split, so one hash for both partitions.
        String t = table();
        String all = "SELECT toUInt8(if(number < 4, 1, 2)) AS p, toUInt32(number) AS id FROM numbers(8)";
        String[] small = {"max_insert_block_size", "4", "min_insert_block_size_rows", "0", "min_insert_block_size_bytes", "0"};
        insertNative(t, TOKEN, all, small);
        insertNative(t, TOKEN, all + " WHERE number > 0", small);
        assertEquals("1:4 2:4", counts(t));
        List<String> ids = blockIds(t);
        assertEquals(2, ids.size(), ids.toString());
        assertEquals(ids.get(0).substring(2), ids.get(1).substring(2), ids.toString());

        // More rows than max_insert_block_size's default (1048449) in one Native block, default settings: the same.
        String big = table();
        String many = "SELECT toUInt8(if(number < 1048000, 1, 2)) AS p, toUInt32(number) AS id FROM numbers(1200000)";
        insertNative(big, TOKEN, many);
        insertNative(big, TOKEN, many + " WHERE number >= 1000");
        assertEquals("1:1048000 2:152000", counts(big));
        assertEquals(2, blockIds(big).size());
    }

    @Test
    void aRowFormatSplitIntoSourceBlocksShiftsTheIds() throws Exception {
        // VALUES cut every 4 rows: p=1 x4 | p=2 x4 are source blocks 0 and 1, two hashes. Without the first row
        // the cut moves (2,5) into source block 0: a new ID, so that row lands a second time.
        String t = table();
        String settings = " SETTINGS insert_deduplication_token = '" + TOKEN + "', max_insert_block_size = 4, "
                + "min_insert_block_size_rows = 0, min_insert_block_size_bytes = 0 VALUES ";
        server.exec("INSERT INTO " + t + settings + "(1,1),(1,2),(1,3),(1,4),(2,5),(2,6),(2,7),(2,8)");
        List<String> ids = blockIds(t);
        assertTrue(!ids.get(0).substring(2).equals(ids.get(1).substring(2)), "two source blocks, two hashes: " + ids);
        server.exec("INSERT INTO " + t + settings + "(1,2),(1,3),(1,4),(2,5),(2,6),(2,7),(2,8)");
        assertEquals("1:4 2:5", counts(t));
        assertEquals("2", server.query("SELECT count() FROM " + t + " WHERE id = 5").trim());
    }

    @Test
    void deduplicateInsertDisableBeatsInsertDeduplicate() throws Exception {
        String t = table();
        String one = rows(1);
        insertNative(t, TOKEN, one, "deduplicate_insert", "disable");
        insertNative(t, TOKEN, one, "deduplicate_insert", "disable");
        assertEquals("1:6", counts(t), "insert_deduplicate = 1 is sent too, and loses");
        insertNative(t, TOKEN + "/e", one, "deduplicate_insert", "enable", "insert_deduplicate", "0");
        insertNative(t, TOKEN + "/e", one, "deduplicate_insert", "enable", "insert_deduplicate", "0");
        assertEquals("1:9", counts(t), "deduplicate_insert = enable wins over insert_deduplicate = 0");
    }

    // -- helpers

    /** Rows (p, p * 10 + n) for n = 0..2 of each partition, in that order. */
    private static String rows(int... partitions) {
        String ps = Arrays.stream(partitions).mapToObj(Integer::toString).collect(Collectors.joining(","));
        return "SELECT toUInt8(p) AS p, toUInt32(p * 10 + n) AS id FROM (SELECT arrayJoin([" + ps + "]) AS p) "
                + "ARRAY JOIN range(3) AS n ORDER BY p, n";
    }

    /** A fresh table, both inserts with the same token (one Native block each, as the connector sends); p:count. */
    private String twoInserts(String first, String rebuild) throws Exception {
        String t = table();
        insertNative(t, TOKEN, first);
        insertNative(t, TOKEN, rebuild);
        return counts(t);
    }

    private String table() {
        String t = "dedup_" + tables.incrementAndGet();
        server.exec("CREATE TABLE " + t + " (p UInt8, id UInt32) ENGINE = MergeTree PARTITION BY p ORDER BY id "
                + "SETTINGS non_replicated_deduplication_window = 1000");
        return t;
    }

    private String counts(String t) {
        return server.query("SELECT p, count() FROM " + t + " GROUP BY p ORDER BY p").trim()
                .replace('\t', ':').replace('\n', ' ');
    }

    /** The rows of the select as one Native block (the server's own encoding), inserted with the token. */
    private void insertNative(String t, String token, String select, String... settings) throws Exception {
        QuerySettings qs = new QuerySettings().setFormat(ClickHouseFormat.Native);
        qs.serverSetting("max_block_size", "2000000");
        qs.serverSetting("output_format_native_encode_types_in_binary_format", "0");
        InsertSettings s = new InsertSettings();
        s.compressClientRequest(true);
        s.serverSetting("async_insert", "0");
        s.serverSetting("insert_deduplicate", "1");
        s.serverSetting("insert_deduplication_token", token);
        for (int i = 0; i < settings.length; i += 2) {
            s.serverSetting(settings[i], settings[i + 1]);
        }
        try (Client c = server.newClient()) {
            byte[] data;
            try (QueryResponse r = c.query(select, qs).get()) {
                data = r.getInputStream().readAllBytes();
            }
            try (InsertResponse r = c.insert(t, new ByteArrayInputStream(data), ClickHouseFormat.Native, s).get()) {
                assertTrue(r.getWrittenRows() >= 0);
            }
        }
    }

    /** The block IDs in the table's deduplication log (a MergeTree keeps them in files next to its parts). */
    private List<String> blockIds(String t) throws Exception {
        Path dir = Path.of(server.query("SELECT data_paths[1] FROM system.tables WHERE database = currentDatabase() "
                + "AND name = '" + t + "'").trim()).resolve("deduplication_logs");
        List<String> ids = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : new TreeSet<>(files.collect(Collectors.toList()))) {
                for (String line : Files.readAllLines(f)) {
                    String[] fields = line.split("\t"); // action, part name, block id
                    if (fields.length == 3 && fields[0].equals("1")) {
                        ids.add(fields[2]);
                    }
                }
            }
        }
        return ids;
    }
}
