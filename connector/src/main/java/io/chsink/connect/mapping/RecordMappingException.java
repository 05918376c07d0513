package io.chsink.connect.mapping;

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
}
