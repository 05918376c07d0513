package io.chsink.it.events;

import io.chsink.it.avro.AvroWire;
import io.chsink.it.avro.TestRegistry;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * Events as Confluent's Avro serializer writes them (the counterpart of {@link EventJson}): a record
 * {@code io.chsink.demo.Event} with event_time a timestamp-millis long, revenue a bytes decimal(10, 2), and the other
 * columns as long and string fields, framed with the registry id of {@link #SCHEMA}. AvroConverter reads these into
 * the same Connect Struct JsonConverter reads from {@link EventJson#withSchema} (the same field names and types).
 * Use: {@code EventAvro avro = EventAvro.registered(registry, topic + "-value"); byte[] v = avro.encode(event);}
 * (one instance per producing thread).
 */
public final class EventAvro {
    public static final String SCHEMA_JSON = "{\"type\":\"record\",\"name\":\"Event\",\"namespace\":\"io.chsink.demo\","
            + "\"fields\":["
            + "{\"name\":\"event_time\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
            + "{\"name\":\"user_id\",\"type\":\"long\"},"
            + "{\"name\":\"event_type\",\"type\":\"string\"},"
            + "{\"name\":\"url\",\"type\":\"string\"},"
            + "{\"name\":\"duration_ms\",\"type\":\"long\"},"
            + "{\"name\":\"country\",\"type\":\"string\"},"
            + "{\"name\":\"revenue\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":10,\"scale\":2}}"
            + "]}";
    public static final Schema SCHEMA = new Schema.Parser().parse(SCHEMA_JSON);

    private final AvroWire wire;
    private final GenericRecord record = new GenericData.Record(SCHEMA);

    public EventAvro(int schemaId) {
        this.wire = new AvroWire(SCHEMA, schemaId);
    }

    /** Registers {@link #SCHEMA} under {@code subject} (TopicNameStrategy: "TOPIC-value") and writes with its id. */
    public static EventAvro registered(TestRegistry registry, String subject) {
        return new EventAvro(registry.register(subject, SCHEMA_JSON));
    }

    public byte[] encode(Event e) {
        record.put(0, e.eventTime() * 1000);
        record.put(1, e.userId());
        record.put(2, e.eventType());
        record.put(3, e.url());
        record.put(4, e.durationMs());
        record.put(5, e.country());
        record.put(6, ByteBuffer.wrap(BigInteger.valueOf(e.revenueCents()).toByteArray()));
        return wire.write(record);
    }
}
