package io.chsink.connect.cdc;

import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.schema.TableId;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the user when current rows are read from ClickHouse while the task's cache of inserted rows is full: the
 * keys it evicted are read again whenever a change needs them, and a larger {@code cdc.row.cache.bytes} would have
 * answered them. Once every 10 minutes per task at most; never while the cache has evicted nothing (its bound is then
 * not what makes the reads: keys written before the task started, or a cache turned off).
 */
final class FullCacheWarning {
    /** DebeziumRows' logger, with the connector's other current-row messages. */
    private static final Logger LOG = LoggerFactory.getLogger(DebeziumRows.class);
    static final long EVERY_MS = 600_000;

    private final RecentRows cache;
    private final LongSupplier clock;
    private long lastMs = Long.MIN_VALUE;

    FullCacheWarning(RecentRows cache, LongSupplier clock) {
        this.cache = cache;
        this.clock = clock;
    }

    /** A read of {@code keys} keys of {@code table} was made: logs the warning when it is due. */
    void read(TableId table, int keys) {
        String w = due(table, keys);
        if (w != null) {
            LOG.warn(w);
        }
    }

    /** The warning for a read of {@code keys} keys of {@code table}, or null when none is due (then or yet). */
    String due(TableId table, int keys) {
        long evicted = cache.evicted();
        if (evicted == 0) {
            return null;
        }
        long now = clock.getAsLong();
        if (lastMs != Long.MIN_VALUE && now - lastMs < EVERY_MS) {
            return null;
        }
        lastMs = now;
        return warning(table, keys, cache.maxBytes(), cache.size(), evicted);
    }

    static String warning(TableId table, int keys, long maxBytes, int cachedRows, long evicted) {
        return "Table " + table.quoted() + ": read the current rows of " + keys + " key(s) from ClickHouse while this "
                + "task's cache of inserted rows is full (" + SinkConfig.CDC_ROW_CACHE_BYTES + "=" + maxBytes
                + " holds " + cachedRows + " rows; " + evicted + " rows were evicted to stay within it since the task "
                + "started). A change that needs its key's current row (an unchanged TOAST value, the delete of a "
                + "primary-key change, a delete or tombstone of a table keyed beyond the primary key) reads it from "
                + "the table when it is neither pending nor cached: a larger " + SinkConfig.CDC_ROW_CACHE_BYTES
                + " (and the worker heap to hold it) saves the reads of evicted keys. (Logged at most every 10 "
                + "minutes per task.)";
    }
}
