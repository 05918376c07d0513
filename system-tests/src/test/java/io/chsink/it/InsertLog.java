package io.chsink.it;

import io.chsink.it.stack.ClickHouseServer;
import java.util.ArrayList;
import java.util.List;

/**
 * The inserts into one table that a server's {@code system.query_log} holds (flushed first; {@link ClickHouseServer}
 * with {@value ClickHouseServer#QUERY_LOG_PROPERTY}), ended ones only, oldest first. A server's log starts empty
 * at each start of it.
 */
final class InsertLog {
    /** One ended insert: its settings of interest, rows written, blocks deduplicated, and the error if it failed. */
    record Entry(String queryId, String initialQueryId, boolean failed, String token, String shardId,
            boolean foreground, long writtenRows, long duplicatedBlocks, String exception) {
        @Override
        public String toString() {
            return (failed ? "FAILED " : "") + "insert " + queryId + " (initial " + initialQueryId + ") token " + token
                    + (shardId.isEmpty() ? "" : " insert_shard_id " + shardId) + ": " + writtenRows + " rows, "
                    + duplicatedBlocks + " blocks deduplicated" + (failed ? ": " + exception : "");
        }
    }

    private InsertLog() {
    }

    /** The ended inserts into {@code database.table} on {@code server}; empty when the server has no log yet. */
    static List<Entry> of(ClickHouseServer server, String database, String table) {
        String tsv;
        try {
            server.exec("SYSTEM FLUSH LOGS");
            tsv = server.query("SELECT query_id, initial_query_id, type != 'QueryFinish', "
                    + "Settings['insert_deduplication_token'], Settings['insert_shard_id'], "
                    + "Settings['distributed_foreground_insert'] = '1' OR Settings['insert_distributed_sync'] = '1', "
                    + "written_rows, ProfileEvents['DuplicatedInsertedBlocks'], "
                    + "replaceRegexpAll(substring(exception, 1, 600), '[\\t\\n]', ' ') FROM system.query_log "
                    + "WHERE query_kind = 'Insert' AND type != 'QueryStart' AND has(tables, '" + database + "." + table
                    + "') ORDER BY event_time_microseconds FORMAT TSV");
        } catch (RuntimeException e) {
            if (String.valueOf(e.getMessage()).contains("UNKNOWN_TABLE")) {
                return List.of(); // nothing logged since the server started
            }
            throw e;
        }
        List<Entry> out = new ArrayList<>();
        for (String line : tsv.split("\n")) {
            if (!line.isBlank()) {
                String[] f = line.split("\t", -1);
                out.add(new Entry(f[0], f[1], f[2].equals("1"), f[3], f[4], f[5].equals("1"), Long.parseLong(f[6]),
                        Long.parseLong(f[7]), f[8]));
            }
        }
        return out;
    }

    /** The entries carrying deduplication token {@code token}. */
    static List<Entry> withToken(List<Entry> entries, String token) {
        return entries.stream().filter(e -> e.token().equals(token)).toList();
    }
}
