package io.chsink.it.bench;

import io.chsink.it.avro.AvroWire;
import io.chsink.it.avro.TestRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;

/**
 * How path V's records are written to Kafka, as a Debezium source task's worker would write them with each converter:
 * {@link Json} is Kafka's own JsonConverter (schemas.enable=true for keys and values; replace.null.with.default=false
 * on values, as docs/cdc.md has the source set it, so a null stays null), {@link Avro} Confluent's wire format with
 * the writer schemas of {@link ConnectAvro} registered in the stand-in registry under TopicNameStrategy subjects
 * ({@code <topic>-key}, {@code <topic>-value}). Headers go through Connect's default header converter,
 * SimpleHeaderConverter, in both. One instance per producing thread.
 */
abstract class ChangeWire {
    private final SimpleHeaderConverter headers = new SimpleHeaderConverter();

    ChangeWire() {
        headers.configure(Map.of());
    }

    abstract byte[] key(DebeziumEvents t, String topic, Struct key);

    abstract byte[] value(DebeziumEvents t, String topic, Struct value);

    /** The Kafka headers of Connect headers, each value written by SimpleHeaderConverter. */
    List<Header> headers(String topic, ConnectHeaders h) {
        List<Header> out = new java.util.ArrayList<>();
        for (org.apache.kafka.connect.header.Header x : h) {
            out.add(new RecordHeader(x.key(), headers.fromConnectHeader(topic, x.key(), x.schema(), x.value())));
        }
        return out;
    }

    /** Kafka's JsonConverter with schemas. */
    static final class Json extends ChangeWire {
        private final JsonConverter keys = new JsonConverter();
        private final JsonConverter values = new JsonConverter();

        Json() {
            keys.configure(Map.of("schemas.enable", "true"), true);
            values.configure(Map.of("schemas.enable", "true", "replace.null.with.default", "false"), false);
        }

        @Override
        byte[] key(DebeziumEvents t, String topic, Struct key) {
            return keys.fromConnectData(topic, key.schema(), key);
        }

        @Override
        byte[] value(DebeziumEvents t, String topic, Struct value) {
            return values.fromConnectData(topic, value.schema(), value);
        }
    }

    /** Confluent's Avro wire format: magic 0, the schema id, Avro binary. */
    static final class Avro extends ChangeWire {
        private final TestRegistry registry;
        private final Map<String, Map<Schema, AvroWire>> wires = new HashMap<>();

        Avro(TestRegistry registry) {
            this.registry = registry;
        }

        private AvroWire wire(String subject, Schema schema) {
            return wires.computeIfAbsent(subject, s -> new HashMap<>()).computeIfAbsent(schema, s -> {
                org.apache.avro.Schema avro = new ConnectAvro().schema(s);
                return new AvroWire(avro, registry.register(subject, avro.toString()));
            });
        }

        @Override
        byte[] key(DebeziumEvents t, String topic, Struct key) {
            AvroWire w = wire(topic + "-key", key.schema());
            return w.write(ConnectAvro.record(key, w.schema()));
        }

        @Override
        byte[] value(DebeziumEvents t, String topic, Struct value) {
            AvroWire w = wire(topic + "-value", value.schema());
            return w.write(ConnectAvro.record(value, w.schema()));
        }

        /** The registered writer schema of a subject (for the report and the checks). */
        String schemaText(String subject) {
            Map<Schema, AvroWire> m = wires.get(subject);
            return m == null || m.isEmpty() ? null : m.values().iterator().next().schema().toString();
        }
    }
}
