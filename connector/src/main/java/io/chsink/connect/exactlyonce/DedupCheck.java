package io.chsink.connect.exactlyonce;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import io.chsink.connect.schema.TableId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * exactly_once needs every target table to deduplicate inserts by token: a MergeTree-family engine with a
 * deduplication window above 0 ({@code non_replicated_deduplication_window} for MergeTree, default 0;
 * {@code replicated_deduplication_window} for Replicated and Shared MergeTree). The window is read from the
 * table's own SETTINGS ({@code system.tables.engine_full}), else the server's default
 * ({@code system.merge_tree_settings}).
 */
public final class DedupCheck {
    public static final String NON_REPLICATED = "non_replicated_deduplication_window";
    public static final String REPLICATED = "replicated_deduplication_window";

    private DedupCheck() {
    }

    /** Why the table cannot take exactly_once inserts, with the statement that fixes it; null when it can. */
    public static String problem(Client client, TableId table) {
        Map<String, Object> p = new HashMap<>();
        p.put("db", table.database());
        p.put("tbl", table.table());
        List<GenericRecord> rows = client.queryAll("SELECT engine, engine_full FROM system.tables "
                + "WHERE database = {db:String} AND name = {tbl:String}", p);
        if (rows.isEmpty()) {
            return null; // a missing table is reported elsewhere
        }
        String engine = rows.get(0).getString("engine");
        String setting = settingFor(engine);
        if (setting == null) {
            return "Table " + table.quoted() + " has engine " + engine + ", which does not deduplicate inserts: "
                    + "delivery.guarantee=exactly_once needs a MergeTree-family table (MergeTree, ReplicatedMergeTree, "
                    + "SharedMergeTree and their Replacing/Summing/... variants), or use "
                    + "delivery.guarantee=at_least_once.";
        }
        long window = windowOf(rows.get(0).getString("engine_full"), setting);
        if (window < 0) {
            Map<String, Object> q = new HashMap<>();
            q.put("name", setting);
            List<GenericRecord> d = client.queryAll(
                    "SELECT value FROM system.merge_tree_settings WHERE name = {name:String}", q);
            window = d.isEmpty() ? 0 : Long.parseLong(d.get(0).getString("value").trim());
        }
        return window > 0 ? null : message(table, engine, setting);
    }

    /** The window setting that governs deduplication for the engine, or null when the engine has none. */
    static String settingFor(String engine) {
        if (engine == null || !engine.endsWith("MergeTree")) {
            return null;
        }
        return engine.startsWith("Replicated") || engine.startsWith("Shared") ? REPLICATED : NON_REPLICATED;
    }

    /** The setting's value in the table's own SETTINGS clause, or -1 when the table does not set it. */
    static long windowOf(String engineFull, String setting) {
        if (engineFull == null) {
            return -1;
        }
        Matcher m = Pattern.compile("(?<![A-Za-z_])" + setting + "\\s*=\\s*(\\d+)").matcher(engineFull);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    static String message(TableId table, String engine, String setting) {
        return "Table " + table.quoted() + " (" + engine + ") keeps no insert deduplication tokens (" + setting
                + " = 0), so delivery.guarantee=exactly_once could insert a replayed block twice. Run: ALTER TABLE "
                + table.quoted() + " MODIFY SETTING " + setting + " = 1000 (or use delivery.guarantee=at_least_once).";
    }

    /**
     * Task side: throws when the table cannot take exactly_once inserts (a ConnectException naming the fix), or a
     * RetriableException when its settings cannot be read now.
     */
    public static void require(Client client, TableId table) {
        String problem;
        try {
            problem = problem(client, table);
        } catch (RuntimeException e) {
            throw new org.apache.kafka.connect.errors.RetriableException("Could not read the engine settings of "
                    + table + ": " + e.getMessage(), e);
        }
        if (problem != null) {
            throw new org.apache.kafka.connect.errors.ConnectException(problem);
        }
    }
}
