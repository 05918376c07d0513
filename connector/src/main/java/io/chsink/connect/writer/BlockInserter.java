package io.chsink.connect.writer;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.data.ClickHouseFormat;
import io.chsink.connect.block.TableBlock;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Sends one block as one {@code INSERT INTO `db`.`table` (`col`, ...) FORMAT Native}, LZ4-compressed, and
 * verifies it: the server must answer without error and its summary must account for every row sent. A block
 * with a manifest (exactly_once) carries its recorded deduplication token; as a deduplicated insert still reports
 * its rows as written, the summary proves the insert was accepted, not that these rows are new.
 */
public final class BlockInserter implements Inserter {
    private final Client client;
    private final Map<String, String> settings;
    private final long timeoutMs;
    private final BeforeInsert beforeInsert;
    private final TargetSettings targets;

    /** Runs on the insert thread before each attempt (exactly_once: records the block's composition). */
    public interface BeforeInsert {
        void accept(TableBlock block) throws Exception;
    }

    public BlockInserter(Client client, Map<String, String> settings, long timeoutMs) {
        this(client, settings, timeoutMs, null, TargetSettings.NONE);
    }

    public BlockInserter(Client client, Map<String, String> settings, long timeoutMs, BeforeInsert beforeInsert,
            TargetSettings targets) {
        this.client = client;
        this.settings = settings;
        this.timeoutMs = timeoutMs;
        this.beforeInsert = beforeInsert;
        this.targets = targets;
    }

    @Override
    public long insert(TableBlock block) throws Exception {
        return insert(block, 0, block.rows());
    }

    /**
     * Rows [from, to) of the block; exactly_once sends a part with the block's token followed by
     * {@code /rows-FROM-TO}, so that a rebuilt block's same part is deduplicated.
     */
    @Override
    public long insert(TableBlock block, int from, int to) throws Exception {
        boolean whole = from == 0 && to == block.rows();
        InsertSettings s = new InsertSettings();
        s.compressClientRequest(true);
        // Rows without a value for a column with a DEFAULT travel as NULL: let the server apply the default.
        s.serverSetting("input_format_null_as_default", "1");
        s.serverSetting("input_format_native_allow_types_conversion", "1");
        // Synchronous inserts (async_insert is on by default since ClickHouse 26.2): the block is already large,
        // and a verified insert must mean the rows are in the table.
        s.serverSetting("async_insert", "0");
        for (Map.Entry<String, String> e : settings.entrySet()) {
            s.serverSetting(e.getKey(), e.getValue());
        }
        if (beforeInsert != null) {
            beforeInsert.accept(block);
        }
        // After beforeInsert: exactly_once has given the block its token, which may choose its shard.
        for (Map.Entry<String, String> e : targets.forBlock(block).entrySet()) {
            s.serverSetting(e.getKey(), e.getValue());
        }
        if (block.manifest() != null) {
            // exactly_once: the recorded token, a synchronous deduplicated insert, whatever clickhouse.settings say.
            s.serverSetting("insert_deduplication_token", whole ? block.manifest().token()
                    : block.manifest().token() + "/rows-" + from + "-" + to);
            s.serverSetting("insert_deduplicate", "1");
            s.serverSetting("async_insert", "0");
            if (settings.containsKey("deduplicate_insert")) {
                // 26.x: overrides insert_deduplicate (disable would insert a rebuild twice); only sent when the
                // user names it, as older servers do not know it.
                s.serverSetting("deduplicate_insert", "enable");
            }
        }
        try (InsertResponse r = client.insert(block.table().quoted(), block.mapping().quotedColumnNames(),
                out -> {
                    if (whole) {
                        block.nativeBlock().writeTo(out);
                    } else {
                        block.nativeBlock().writeTo(out, from, to);
                    }
                }, ClickHouseFormat.Native, s)
                .get(timeoutMs, TimeUnit.MILLISECONDS)) {
            long written = r.getWrittenRows();
            // With a token a deduplicated insert may report its rows as written (26.7) or not (older servers):
            // the answer without error is the verification, the count proves nothing either way.
            if (written < to - from && block.manifest() == null) {
                throw new IllegalStateException(String.format(
                        "ClickHouse reported %d rows written for a block of %d rows into %s", written,
                        to - from, block.table()));
            }
            return written;
        }
    }
}
