package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.ConnectWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * io.chsink.connect.TopicAffinityAssignor, loaded by the worker from the plugin through
 * {@code consumer.override.partition.assignment.strategy}: six topics of two partitions read by two tasks, each
 * topic whole in one task (the consumer group's own description says so), three topics each, every event landed.
 */
class TopicAffinityTest {
    private final SinkHarness h = new SinkHarness();

    @Test
    void eachTopicIsReadByOneTaskAndEveryEventLands() throws Exception {
        String prefix = SinkHarness.unique("affinity");
        List<String> topics = new ArrayList<>();
        long rows = 2_000;
        EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
        for (int i = 0; i < 6; i++) {
            String topic = prefix + "_" + i;
            topics.add(topic);
            h.stack.clickhouse().exec(EventsTable.createSql(h.db, topic));
            h.stack.kafka().createTopic(topic, 2);
            producer.produce(topic, 2, new EventGenerator(100 + i), rows, true, null);
        }
        String connector = SinkHarness.unique("sink");
        Map<String, String> o = SinkHarness.overrides(String.join(",", topics), 2);
        // As docs/operations.md "Many topics" gives it: Kafka's range assignor after it, for changing assignors live.
        o.put(STRATEGY, AFFINITY);
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            for (int i = 0; i < 6; i++) {
                h.awaitRows(topics.get(i), rows, connector);
            }
            Map<String, Set<String>> byMember = assignment(connector);
            System.out.println("TopicAffinityTest: topics by task " + byMember);
            assertEquals(2, byMember.size(), "two tasks in the group: " + byMember);
            Map<String, String> owner = new HashMap<>();
            for (Map.Entry<String, Set<String>> m : byMember.entrySet()) {
                assertEquals(3, m.getValue().size(), "three whole topics per task: " + byMember);
                for (String tp : m.getValue()) {
                    assertEquals(null, owner.put(tp, m.getKey()), "a topic split over tasks: " + byMember);
                }
            }
            assertEquals(new TreeSet<>(topics), new TreeSet<>(owner.keySet()));
            for (int i = 0; i < 6; i++) {
                h.assertDistinctRowsAreTheDataset(topics.get(i), 100 + i, rows);
            }
        } finally {
            h.deleteQuietly(connector);
        }
    }

    /**
     * A connector reading more topics than tasks without an assignor (the example's key removed, as in a config written
     * before it) is refused at creation with the key and value to set; default.assignment=allow accepts it.
     */
    @Test
    void moreTopicsThanTasksWithoutAnAssignorAreRefusedAtCreation() {
        String prefix = SinkHarness.unique("affinity_refused");
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            topics.add(prefix + "_" + i);
            h.stack.clickhouse().exec(EventsTable.createSql(h.db, topics.get(i)));
            h.stack.kafka().createTopic(topics.get(i), 2);
        }
        Map<String, String> config = h.config("clickhouse-sink.json", SinkHarness.overrides(String.join(",", topics), 2));
        assertTrue(config.remove(STRATEGY) != null, "the example sets " + STRATEGY);

        Map<String, List<String>> errors = h.rest().validate(ConnectWorker.CONNECTOR_CLASS, config);
        assertEquals(List.of("default.assignment"), List.copyOf(errors.keySet()), errors.toString());
        String message = errors.get("default.assignment").get(0);
        assertTrue(message.startsWith("3 topics are read by tasks.max=2 tasks") && message.contains("\"" + STRATEGY
                + "\": \"" + AFFINITY + "\"") && message.contains("\"default.assignment\": \"allow\""), message);
        String connector = SinkHarness.unique("sink");
        try {
            ConnectRest.RestException refused = assertThrows(ConnectRest.RestException.class,
                    () -> h.rest().putConnectorConfig(connector, config));
            assertEquals(400, refused.status());
            assertTrue(refused.body().contains(STRATEGY), refused.body());
        } finally {
            h.deleteQuietly(connector);
        }

        Map<String, String> allowed = new HashMap<>(config);
        allowed.put("default.assignment", "allow");
        assertEquals(Map.of(), h.rest().validate(ConnectWorker.CONNECTOR_CLASS, allowed), "the opt-in");
        Map<String, String> assigned = new HashMap<>(config);
        assigned.put(STRATEGY, "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
        assertEquals(Map.of(), h.rest().validate(ConnectWorker.CONNECTOR_CLASS, assigned), "an assignor of the user's");
    }

    private static final String STRATEGY = "consumer.override.partition.assignment.strategy";
    private static final String AFFINITY =
            "io.chsink.connect.TopicAffinityAssignor,org.apache.kafka.clients.consumer.RangeAssignor";

    /** Per member of the settled group, the topics of its assigned partitions (each topic's two partitions both there). */
    private Map<String, Set<String>> assignment(String connector) throws Exception {
        ConsumerGroupDescription d = h.awaitSettledGroup(connector, 2, Duration.ofSeconds(60));
        Map<String, Set<String>> out = new TreeMap<>();
        int partitions = 0;
        for (MemberDescription m : d.members()) {
            Set<String> topics = new TreeSet<>();
            Map<String, Integer> perTopic = new HashMap<>();
            for (TopicPartition tp : m.assignment().topicPartitions()) {
                topics.add(tp.topic());
                perTopic.merge(tp.topic(), 1, Integer::sum);
                partitions++;
            }
            perTopic.forEach((t, n) -> assertEquals(2, n, "both partitions of " + t + " in one task"));
            out.put(m.consumerId(), topics);
        }
        assertEquals(12, partitions, "12 partitions assigned: " + out);
        return out;
    }
}
