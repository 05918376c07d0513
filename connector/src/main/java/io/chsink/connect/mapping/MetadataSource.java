package io.chsink.connect.mapping;

import java.time.Instant;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Record metadata written to columns with reserved names: {@code _topic}, {@code _partition}, {@code _offset},
 * {@code _timestamp} (the record's timestamp as an instant), {@code _key} (the key as its converter produced
 * it), and {@code _header_NAME} (the value of the last header called NAME). Such a column always takes the
 * metadata, never a value field of the same name.
 */
abstract class MetadataSource {
    static final String HEADER_PREFIX = "_header_";

    abstract Object get(SinkRecord record);

    /** The source for a column, or null when the column takes a value field. */
    static MetadataSource forColumn(String column) {
        switch (column) {
            case "_topic":
                return of(SinkRecord::topic);
            case "_partition":
                return of(SinkRecord::kafkaPartition);
            case "_offset":
                return of(SinkRecord::kafkaOffset);
            case "_timestamp":
                return of(r -> r.timestamp() == null ? null : Instant.ofEpochMilli(r.timestamp()));
            case "_key":
                return of(SinkRecord::key);
            default:
                if (column.startsWith(HEADER_PREFIX) && column.length() > HEADER_PREFIX.length()) {
                    String name = column.substring(HEADER_PREFIX.length());
                    return of(r -> {
                        Header h = r.headers().lastWithName(name);
                        return h == null ? null : h.value();
                    });
                }
                return null;
        }
    }

    private static MetadataSource of(java.util.function.Function<SinkRecord, Object> f) {
        return new MetadataSource() {
            @Override
            Object get(SinkRecord record) {
                return f.apply(record);
            }
        };
    }
}
