package io.chsink.it.kafka;

import io.chsink.it.events.Event;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventJson;
import java.util.Properties;
import java.util.function.Function;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Produces generated events as JSON to a topic, spread round-robin over its partitions. */
public final class EventProducer {
    private final String bootstrapServers;

    public EventProducer(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    /** Event JSON with JsonConverter's schema envelope, or plain JSON. */
    public static Function<Event, byte[]> format(boolean withSchema) {
        return withSchema ? EventJson::withSchema : EventJson::schemaless;
    }

    public long produce(String topic, int partitions, EventGenerator generator, long count, boolean withSchema,
            LongConsumer progress) {
        return produce(topic, partitions, generator, count, format(withSchema), progress);
    }

    /** Events encoded by {@code encode} (for example {@code EventAvro::encode}), round-robin over the partitions. */
    public long produce(String topic, int partitions, EventGenerator generator, long count, Function<Event, byte[]> encode,
            LongConsumer progress) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(1 << 20));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, String.valueOf(128L << 20));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            Failures failures = new Failures();
            for (long i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, (int) (i % partitions), null, encode.apply(generator.next())),
                        failures);
                if (progress != null && (i + 1) % 100_000 == 0) {
                    progress.accept(i + 1);
                }
            }
            producer.flush();
            producer.close(java.time.Duration.ofSeconds(60));
            failures.check(topic, count);
        }
        return count;
    }

    /** Produces raw byte values (null: a tombstone), in order, to one partition. */
    public void produceBytes(String topic, int partition, Iterable<byte[]> values) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (byte[] v : values) {
                producer.send(new ProducerRecord<>(topic, partition, null, v));
            }
            producer.flush();
        }
    }

    /** Produces raw JSON strings (tests with hand-written records), in order, to one partition. */
    public void produceRaw(String topic, int partition, Iterable<String> values) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            Failures failures = new Failures();
            long count = 0;
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, partition, null,
                        v == null ? null : v.getBytes(java.nio.charset.StandardCharsets.UTF_8)), failures);
                count++;
            }
            producer.flush();
            failures.check(topic, count);
        }
    }

    /**
     * Counts the sends the broker did not acknowledge (they are lost: a test would wait for rows that never come,
     * e.g. after an OutOfOrderSequenceException on a machine too loaded to answer in time), so produce fails instead.
     */
    private static final class Failures implements org.apache.kafka.clients.producer.Callback {
        private final java.util.concurrent.atomic.AtomicLong failed = new java.util.concurrent.atomic.AtomicLong();
        private volatile Exception first;

        @Override
        public void onCompletion(org.apache.kafka.clients.producer.RecordMetadata metadata, Exception e) {
            if (e != null && failed.getAndIncrement() == 0) {
                first = e;
            }
        }

        void check(String topic, long sent) {
            if (failed.get() > 0) {
                throw new IllegalStateException(failed.get() + " of " + sent + " records to " + topic
                        + " were not acknowledged by the broker", first);
            }
        }
    }

}
