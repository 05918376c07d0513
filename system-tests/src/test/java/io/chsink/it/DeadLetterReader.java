package io.chsink.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a dead-letter topic from the start: the expected number of records, plus anything beyond them. */
final class DeadLetterReader {
    private DeadLetterReader() {
    }

    static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic, int expected) {
        return readAll(bootstrap, topic, expected, r -> r.partition() + "/" + r.offset());
    }

    /**
     * The topic's records, read until {@code expected} distinct ones by {@code key} are in (a record reported twice
     * counts once) or 60 s passed, then 2 s more.
     */
    static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic, int expected,
            Function<ConsumerRecord<byte[], byte[]>, String> key) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, SinkHarness.unique("dlq_reader"));
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(Arrays.asList(topic));
            long deadline = System.currentTimeMillis() + 60_000;
            Set<String> distinct = new HashSet<>();
            while (System.currentTimeMillis() < deadline && distinct.size() < expected) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    out.add(r);
                    distinct.add(key.apply(r));
                }
            }
            c.poll(Duration.ofSeconds(2)).forEach(out::add); // anything beyond the expected records shows up here
        }
        return out;
    }

    static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
