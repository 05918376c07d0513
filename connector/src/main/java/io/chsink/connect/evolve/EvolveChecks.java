package io.chsink.connect.evolve;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.schema.TableId;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What validate() checks for auto.create and auto.evolve: the grants their statements need (with ClickHouse's
 * {@code CHECK GRANT}), and that exactly_once will accept the tables auto.create makes.
 */
public final class EvolveChecks {
    private static final Logger LOG = LoggerFactory.getLogger(EvolveChecks.class);

    private EvolveChecks() {
    }

    /**
     * Why the user cannot create {@code on} ({@code db.*} or a table) and insert into it, or null. {@code on} is
     * already quoted.
     */
    public static String createProblem(Client client, SinkConfig config, String on) {
        String missing = lacking(client, on, "CREATE TABLE", "INSERT");
        return missing == null ? null : SinkConfig.AUTO_CREATE + "=true needs " + missing + " ON " + on + " for user '"
                + config.user() + "': GRANT " + missing + " ON " + on + " TO " + TableId.quote(config.user());
    }

    /** Why the user cannot add columns to {@code on}, or null. */
    public static String evolveProblem(Client client, SinkConfig config, String on) {
        String missing = lacking(client, on, "ALTER ADD COLUMN");
        return missing == null ? null : SinkConfig.AUTO_EVOLVE + "=true needs " + missing + " ON " + on + " for user '"
                + config.user() + "': GRANT " + missing + " ON " + on + " TO " + TableId.quote(config.user());
    }

    /** The privileges of {@code privileges} the user lacks on {@code on}, comma-separated, or null. */
    private static String lacking(Client client, String on, String... privileges) {
        StringBuilder out = new StringBuilder();
        for (String p : privileges) {
            List<GenericRecord> rows;
            try {
                rows = client.queryAll("CHECK GRANT " + p + " ON " + on);
            } catch (RuntimeException e) {
                LOG.info("Could not check the grant {} ON {} (server without CHECK GRANT?): {}", p, on, e.getMessage());
                continue;
            }
            Object answer = rows.isEmpty() || rows.get(0).getValues().isEmpty() ? null
                    : rows.get(0).getValues().values().iterator().next();
            if (answer != null && "0".equals(String.valueOf(answer).trim())) {
                out.append(out.length() == 0 ? "" : ", ").append(p);
            }
        }
        return out.length() == 0 ? null : out.toString();
    }

    /**
     * exactly_once with auto.create: a created plain MergeTree-family table deduplicates only with
     * {@code non_replicated_deduplication_window} in auto.create.settings. Null when fine (a Replicated or Shared
     * engine has its window by default).
     */
    public static String exactlyOnceProblem(SinkConfig config) {
        if (!config.exactlyOnce() || !config.autoCreate()) {
            return null;
        }
        String engine = config.autoCreateEngine().toLowerCase(Locale.ROOT);
        if (engine.startsWith("replicated") || engine.startsWith("shared")) {
            return null;
        }
        for (Map.Entry<String, String> e : config.autoCreateSettings().entrySet()) {
            if (e.getKey().equals("non_replicated_deduplication_window")) {
                try {
                    if (Long.parseLong(e.getValue().trim()) > 0) {
                        return null;
                    }
                } catch (NumberFormatException ignored) {
                    // reported below
                }
            }
        }
        return "delivery.guarantee=exactly_once needs tables that deduplicate inserts, and the tables auto.create makes "
                + "(engine " + (engine.isEmpty() ? "MergeTree" : config.autoCreateEngine()) + ") keep no insert "
                + "deduplication tokens: add non_replicated_deduplication_window=1000 to " + SinkConfig.AUTO_CREATE_SETTINGS;
    }
}
