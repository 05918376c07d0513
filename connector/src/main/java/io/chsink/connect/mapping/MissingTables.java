package io.chsink.connect.mapping;

import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableId;
import java.util.HashMap;
import java.util.Map;

/**
 * Tables found missing while bad records are tolerated (errors.tolerance=all): their records are reported one by
 * one instead of failing the task, and the table is looked up again at most every {@code recheckMs}, so a table
 * created later is written from then on.
 */
public final class MissingTables {
    private final long recheckMs;
    private final Map<TableId, Long> checkedAt = new HashMap<>();

    public MissingTables(long recheckMs) {
        this.recheckMs = recheckMs;
    }

    public void missing(TableId table, long nowMs) {
        checkedAt.put(table, nowMs);
    }

    public void found(TableId table) {
        checkedAt.remove(table);
    }

    /** Whether the table should be looked up (again) now. */
    public boolean due(TableId table, long nowMs) {
        Long at = checkedAt.get(table);
        return at == null || nowMs - at >= recheckMs;
    }

    /** The report of one record routed to a missing table. */
    public static RecordMappingException report(org.apache.kafka.connect.sink.SinkRecord r, TableId table) {
        return new RecordMappingException(String.format("Cannot write record topic=%s partition=%d offset=%d: table "
                + "%s does not exist in ClickHouse (create it, or route the topic elsewhere)", Origin.topic(r),
                Origin.partition(r), Origin.offset(r), table.quoted()));
    }
}
