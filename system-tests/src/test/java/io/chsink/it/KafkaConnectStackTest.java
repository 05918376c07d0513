package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.ConnectWorker;
import io.chsink.it.stack.KafkaBroker;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/** The Kafka half of the local stack: a KRaft broker and a Connect worker that loads the connector from plugin.path. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaConnectStackTest {
    private final KafkaBroker broker = new KafkaBroker();
    private final ConnectWorker worker = new ConnectWorker();

    @BeforeAll
    void startStack() {
        Path work = Path.of(System.getProperty("chsink.work.dir", "target/stack"), getClass().getSimpleName());
        broker.start(work.resolve("broker"));
        worker.start(work.resolve("worker"), broker.bootstrapServers(), ConnectWorker.isolatedGroup("stack-test"));
    }

    @AfterAll
    void stopStack() {
        try (broker; worker) {
            // worker closes first, then the broker
        }
    }

    @Test
    @Order(1)
    void workerListsTheConnectorAsSinkPlugin() {
        List<ConnectRest.Plugin> plugins = worker.rest().plugins();
        assertTrue(plugins.contains(new ConnectRest.Plugin(ConnectWorker.CONNECTOR_CLASS, "sink",
                System.getProperty("chsink.project.version"))), plugins.toString());
    }

    @Test
    @Order(2)
    void connectorIsNotOnTheWorkerClasspath() throws Exception {
        String[] entries = Files.readString(Path.of(System.getProperty("chsink.kafka.classpath"))).trim().split(java.io.File.pathSeparator);
        assertTrue(entries.length > 10, "suspiciously short Kafka classpath");
        List<URL> urls = new ArrayList<>();
        for (String entry : entries) {
            assertFalse(entry.contains("chsink") || entry.contains("clickhouse"), "connector jar on the worker classpath: " + entry);
            urls.add(Path.of(entry).toUri().toURL());
        }
        try (URLClassLoader workerClasspath = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            workerClasspath.loadClass("org.apache.kafka.connect.cli.ConnectDistributed");
            assertThrows(ClassNotFoundException.class, () -> workerClasspath.loadClass(ConnectWorker.CONNECTOR_CLASS));
        }
        try (Stream<Path> jars = Files.walk(Path.of(System.getProperty("chsink.plugin.path")))) {
            assertTrue(jars.anyMatch(p -> p.getFileName().toString()
                    .equals("chsink-connector-" + System.getProperty("chsink.project.version") + ".jar")), "connector jar missing from plugin.path");
        }
    }

    @Test
    @Order(3)
    void producesAndConsumesOnFourPartitions() {
        broker.createTopic("stack-smoke", 4);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 8; i++) {
                producer.send(new ProducerRecord<>("stack-smoke", i % 4, "k" + i, "v" + i));
            }
            producer.flush();
        }
        List<TopicPartition> partitions = List.of(0, 1, 2, 3).stream().map(p -> new TopicPartition("stack-smoke", p)).toList();
        Set<String> values = new HashSet<>();
        Set<Integer> seenPartitions = new HashSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (values.size() < 8 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    values.add(record.value());
                    seenPartitions.add(record.partition());
                }
            }
        }
        assertEquals(Set.of("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"), values);
        assertEquals(Set.of(0, 1, 2, 3), seenPartitions);
    }

    @Test
    @Order(4)
    void killedWorkerComesBack() {
        assertEquals(137, worker.kill(), "SIGKILL exit code (128 + 9)");
        assertFalse(worker.isRunning());
        assertFalse(worker.rest().isReady(), "REST still answers after kill -9");
        worker.start();
        assertTrue(worker.rest().isReady());
        assertTrue(worker.rest().plugins().stream().anyMatch(p -> p.className().equals(ConnectWorker.CONNECTOR_CLASS)));
        assertEquals(List.of(), worker.rest().connectors());
    }
}
