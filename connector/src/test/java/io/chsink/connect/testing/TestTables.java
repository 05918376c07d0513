package io.chsink.connect.testing;

import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;

/** Real tables and records for unit tests of the pipeline: one Int64 column {@code x} that holds the offset. */
public final class TestTables {
    private TestTables() {
    }

    public static TableSchema schema(TableId table) {
        return new TableSchema(table, Collections.singletonList(
                new TableColumn("x", ClickHouseType.parse("Int64"), TableColumn.DefaultKind.NONE)));
    }

    public static TableMapping mapping(TableId table) {
        return new TableMapping(schema(table));
    }

    /** A schemaless record whose {@code x} is its offset, with Kafka timestamp 1000 + offset. */
    public static SinkRecord record(String topic, int partition, long offset) {
        Map<String, Object> v = new HashMap<>();
        v.put("x", offset);
        return new SinkRecord(topic, partition, null, null, null, v, offset, 1000 + offset,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME);
    }

    /**
     * A record as a transform leaves it: read from {@code fromTopic} partition {@code fromPartition} at
     * {@code offset} (its KIP-793 original coordinates), handed to the sink as {@code topic} partition
     * {@code partition}. Its {@code x} is its offset.
     */
    public static SinkRecord renamed(String topic, int partition, String fromTopic, int fromPartition, long offset) {
        Map<String, Object> v = new HashMap<>();
        v.put("x", offset);
        return new SinkRecord(topic, partition, null, null, null, v, offset, 1000 + offset,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME, null, fromTopic, fromPartition, offset);
    }

    /** A record whose value no Int64 column takes: a bad record. */
    public static SinkRecord badRecord(String topic, int partition, long offset) {
        Map<String, Object> v = new HashMap<>();
        v.put("x", "not a number");
        return new SinkRecord(topic, partition, null, null, null, v, offset, 1000 + offset,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME);
    }
}
