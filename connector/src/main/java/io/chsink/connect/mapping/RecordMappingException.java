package io.chsink.connect.mapping;

import io.chsink.connect.offset.Origin;
import org.apache.kafka.connect.errors.DataException;

/**
 * A record that cannot be written into its table. The message names topic, partition, offset, field, column,
 * ClickHouse type and the value's kind, never the value itself.
 */
public final class RecordMappingException extends DataException {
    private static final long serialVersionUID = 1L;

    public RecordMappingException(String message) {
        super(message);
    }

    /** A record with a null value, with tombstones.behavior=fail. */
    public static RecordMappingException tombstone(org.apache.kafka.connect.sink.SinkRecord r, Object table) {
        return new RecordMappingException(String.format("Cannot write record topic=%s partition=%d offset=%d into "
                + "table %s: the record value is null (a tombstone) and tombstones.behavior=fail", Origin.topic(r),
                Origin.partition(r), Origin.offset(r), table));
    }
}
