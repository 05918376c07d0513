package io.chsink.it.kafka;

import io.chsink.it.events.Event;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventJson;
import java.util.List;
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
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(bulkProperties(), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            Failures failures = new Failures();
            for (long i = 0; i < count; i++) {
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, (int) (i % partitions), null,
                        encode.apply(generator.next()));
                producer.send(r, failures.of(r));
                if (progress != null && (i + 1) % 100_000 == 0) {
                    progress.accept(i + 1);
                }
            }
            producer.flush();
            // A loaded machine can make the broker refuse a batch (OutOfOrderSequenceException): those records were
            // never written, so sending them again keeps the dataset exact (their order in the partition changes).
            for (int round = 0; round < 5 && failures.hasFailed(); round++) {
                List<ProducerRecord<byte[], byte[]>> again = failures.takeFailed();
                System.out.printf("EventProducer: %d records to %s not acknowledged; sending them again%n",
                        again.size(), topic);
                for (ProducerRecord<byte[], byte[]> r : again) {
                    producer.send(r, failures.of(r));
                }
                producer.flush();
            }
            producer.close(java.time.Duration.ofSeconds(60));
            failures.check(topic, count);
        }
        return count;
    }

    /** The settings of {@link #produce} and {@link Batches}: acknowledged by all, idempotent, lz4, large batches. */
    private Properties bulkProperties() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(1 << 20));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, String.valueOf(128L << 20));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        return p;
    }

    /** A long-lived producer for records the test builds itself (keys, headers, tombstones), sent batch by batch. */
    public Batches batches() {
        return new Batches();
    }

    /**
     * One producer for many small batches (a paced stream over many topics, where a producer per batch would cost
     * more than the batch): {@link #send} any records, then {@link #flush} waits for them and sends those the broker
     * did not acknowledge again, as {@link #produce} does (their order in the partition changes).
     */
    public final class Batches implements AutoCloseable {
        private final KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(bulkProperties(),
                new ByteArraySerializer(), new ByteArraySerializer());
        private final Failures failures = new Failures();
        private long sent;

        private Batches() {
        }

        public void send(ProducerRecord<byte[], byte[]> record) {
            producer.send(record, failures.of(record));
            sent++;
        }

        /** Waits until every record sent so far is acknowledged; fails if some still are not after five resends. */
        public void flush() {
            producer.flush();
            for (int round = 0; round < 5 && failures.hasFailed(); round++) {
                List<ProducerRecord<byte[], byte[]>> again = failures.takeFailed();
                System.out.printf("EventProducer: %d records not acknowledged; sending them again%n", again.size());
                for (ProducerRecord<byte[], byte[]> r : again) {
                    producer.send(r, failures.of(r));
                }
                producer.flush();
            }
            failures.check("the batch's topics", sent);
        }

        /** Records sent (each once, however often it was resent). */
        public long sent() {
            return sent;
        }

        @Override
        public void close() {
            producer.close(java.time.Duration.ofSeconds(60));
        }
    }

    /** Produces raw byte values (null: a tombstone), in order, to one partition. */
    public void produceBytes(String topic, int partition, Iterable<byte[]> values) {
        List<byte[]> list = new java.util.ArrayList<>();
        values.forEach(list::add);
        sendInOrder(topic, partition, list);
    }

    /** Produces raw JSON strings (tests with hand-written records), in order, to one partition. */
    public void produceRaw(String topic, int partition, Iterable<String> values) {
        List<byte[]> list = new java.util.ArrayList<>();
        for (String v : values) {
            list.add(v == null ? null : v.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        sendInOrder(topic, partition, list);
    }

    /**
     * Sends the values in order to one partition. A loaded machine can make the broker refuse a batch
     * (OutOfOrderSequenceException, seen right after a topic was created), and the producer then gives up on it and
     * those after it, though a refused retry's first attempt may have been written. So what the partition holds
     * since the start is read back: it must be a prefix of the values, and the rest is sent again, in order.
     */
    private void sendInOrder(String topic, int partition, List<byte[]> values) {
        org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(topic, partition);
        long start = endOffset(tp);
        Failures failures = send(tp, values, 0);
        for (int round = 0; round < 3 && failures.hasFailed(); round++) {
            List<byte[]> held = readBack(tp, start);
            for (int k = 0; k < held.size(); k++) {
                if (k >= values.size() || !java.util.Arrays.equals(held.get(k), values.get(k))) {
                    throw new IllegalStateException(tp + " holds " + held.size() + " records since offset " + start
                            + " that are not the first of the " + values.size() + " sent (record " + k + " differs)",
                            failures.first);
                }
            }
            System.out.printf("EventProducer: %d records to %s not acknowledged; the partition holds the first %d of "
                    + "%d: sending the other %d again%n", failures.failed.get(), tp, held.size(), values.size(),
                    values.size() - held.size());
            failures = send(tp, values, held.size());
        }
        failures.check(topic, values.size());
    }

    private Failures send(org.apache.kafka.common.TopicPartition tp, List<byte[]> values, int from) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        Failures failures = new Failures();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (byte[] v : values.subList(from, values.size())) {
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(tp.topic(), tp.partition(), null, v);
                producer.send(r, failures.of(r));
            }
            producer.flush();
        }
        return failures;
    }

    private org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> consumer() {
        Properties p = new Properties();
        p.put(org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        org.apache.kafka.common.serialization.ByteArrayDeserializer d =
                new org.apache.kafka.common.serialization.ByteArrayDeserializer();
        return new org.apache.kafka.clients.consumer.KafkaConsumer<>(p, d, d);
    }

    private long endOffset(org.apache.kafka.common.TopicPartition tp) {
        try (var c = consumer()) {
            return c.endOffsets(List.of(tp), java.time.Duration.ofSeconds(60)).get(tp);
        }
    }

    /** The values of the partition from {@code start} to its end now. */
    private List<byte[]> readBack(org.apache.kafka.common.TopicPartition tp, long start) {
        List<byte[]> out = new java.util.ArrayList<>();
        try (var c = consumer()) {
            long end = c.endOffsets(List.of(tp), java.time.Duration.ofSeconds(60)).get(tp);
            c.assign(List.of(tp));
            c.seek(tp, start);
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
            while (c.position(tp) < end) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + tp + " back from offset " + start);
                }
                for (var r : c.poll(java.time.Duration.ofMillis(500))) {
                    if (r.offset() < end) {
                        out.add(r.value());
                    }
                }
            }
        }
        return out;
    }

    /**
     * Counts the sends the broker did not acknowledge (they are lost: a test would wait for rows that never come,
     * e.g. after an OutOfOrderSequenceException on a machine too loaded to answer in time), so produce fails instead.
     */
    private static final class Failures implements org.apache.kafka.clients.producer.Callback {
        private final java.util.concurrent.atomic.AtomicLong failed = new java.util.concurrent.atomic.AtomicLong();
        private final java.util.concurrent.ConcurrentLinkedQueue<ProducerRecord<byte[], byte[]>> unacknowledged =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        private volatile Exception first;

        @Override
        public void onCompletion(org.apache.kafka.clients.producer.RecordMetadata metadata, Exception e) {
            if (e != null && failed.getAndIncrement() == 0) {
                first = e;
            }
        }

        /** A callback that also keeps the record when it is not acknowledged, for {@link #takeFailed}. */
        org.apache.kafka.clients.producer.Callback of(ProducerRecord<byte[], byte[]> r) {
            return (metadata, e) -> {
                if (e != null) {
                    unacknowledged.add(r);
                }
                onCompletion(metadata, e);
            };
        }

        boolean hasFailed() {
            return !unacknowledged.isEmpty();
        }

        /** The records not acknowledged so far; they are counted as sent again. */
        List<ProducerRecord<byte[], byte[]>> takeFailed() {
            List<ProducerRecord<byte[], byte[]>> out = new java.util.ArrayList<>();
            ProducerRecord<byte[], byte[]> r;
            while ((r = unacknowledged.poll()) != null) {
                out.add(r);
            }
            failed.addAndGet(-out.size());
            return out;
        }

        void check(String topic, long sent) {
            if (failed.get() > 0) {
                throw new IllegalStateException(failed.get() + " of " + sent + " records to " + topic
                        + " were not acknowledged by the broker", first);
            }
        }
    }

}
