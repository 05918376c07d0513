package io.chsink.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a dead-letter topic from the start: the expected number of records, plus anything beyond them. */
final class DeadLetterReader {
    private DeadLetterReader() {
    }

    static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic, int expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, SinkHarness.unique("dlq_reader"));
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(Arrays.asList(topic));
            long deadline = System.currentTimeMillis() + 60_000;
            while (System.currentTimeMillis() < deadline && out.size() < expected) {
                c.poll(Duration.ofMillis(500)).forEach(out::add);
            }
            c.poll(Duration.ofSeconds(2)).forEach(out::add); // anything beyond the expected records shows up here
        }
        return out;
    }

    /**
     * 1000 plain-JSON records for a table (id UInt32, level UInt8); the 10 with id % 100 = 7 have a level that is
     * not a number ({@link #isBadLevelRecord}), the rest land.
     */
    static List<String> levelRecords() {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            values.add(i % 100 == 7 ? "{\"id\":" + i + ",\"level\":\"high\"}" : "{\"id\":" + i + ",\"level\":" + (i % 200) + "}");
        }
        return values;
    }

    /** One of the bad records of {@link #levelRecords}, as it went in. */
    static boolean isBadLevelRecord(ConsumerRecord<byte[], byte[]> r) {
        return new String(r.value(), java.nio.charset.StandardCharsets.UTF_8).matches("\\{\"id\":(\\d*0)?7,\"level\":\"high\"\\}");
    }

    static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return new String(r.headers().lastHeader(name).value(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
