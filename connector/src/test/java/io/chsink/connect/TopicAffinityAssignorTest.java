package io.chsink.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TopicAffinityAssignorTest {
    private static Map<String, List<String>> subscribers(Map<String, Integer> topics, List<String> members) {
        Map<String, List<String>> s = new HashMap<>();
        topics.keySet().forEach(t -> s.put(t, members));
        return s;
    }

    /** Per member, the topics it got and how many partitions. */
    private static Map<String, String> summary(Map<String, List<TopicPartition>> a) {
        Map<String, String> out = new TreeMap<>();
        a.forEach((m, ps) -> {
            Set<String> topics = new HashSet<>();
            ps.forEach(p -> topics.add(p.topic()));
            out.put(m, topics.size() + " topics, " + ps.size() + " partitions");
        });
        return out;
    }

    @Test
    void eachTopicGoesWholeToOneTaskAndTheTasksShareTheTopics() {
        Map<String, Integer> topics = new TreeMap<>();
        for (int i = 0; i < 200; i++) {
            topics.put("t" + i, 2);
        }
        List<String> members = List.of("a", "b");
        Map<String, List<TopicPartition>> a = TopicAffinityAssignor.assign(topics, subscribers(topics, members), members);
        assertEquals(Map.of("a", "100 topics, 200 partitions", "b", "100 topics, 200 partitions"), summary(a));
        Map<String, String> owner = new HashMap<>();
        a.forEach((m, ps) -> ps.forEach(p -> {
            String before = owner.put(p.topic(), m);
            assertEquals(before == null ? m : before, m, "a topic split over two tasks: " + p.topic());
        }));
    }

    @Test
    void fewerTopicsThanTasksAreSplitSoThatNoTaskIsIdle() {
        Map<String, Integer> topics = Map.of("one", 3);
        List<String> members = List.of("a", "b");
        Map<String, List<TopicPartition>> a = TopicAffinityAssignor.assign(topics, subscribers(topics, members), members);
        assertEquals(List.of(new TopicPartition("one", 0), new TopicPartition("one", 1)), a.get("a"));
        assertEquals(List.of(new TopicPartition("one", 2)), a.get("b"));
    }

    @Test
    void largerTopicsArePlacedFirstOnTheLeastLoadedTask() {
        Map<String, Integer> topics = new TreeMap<>(Map.of("big", 4, "x", 1, "y", 1, "z", 2));
        List<String> members = List.of("a", "b");
        Map<String, List<TopicPartition>> a = TopicAffinityAssignor.assign(topics, subscribers(topics, members), members);
        // big (4) -> a; z (2) -> b; x (1) -> b; y (1) -> b: 4 and 4.
        assertEquals(Map.of("a", "1 topics, 4 partitions", "b", "3 topics, 4 partitions"), summary(a));
    }

    @Test
    void everyMemberComputesTheSameAssignmentThroughTheConsumerInterface() {
        List<PartitionInfo> parts = new ArrayList<>();
        Node node = new Node(0, "localhost", 9092);
        for (String t : List.of("p", "q", "r")) {
            for (int i = 0; i < 2; i++) {
                parts.add(new PartitionInfo(t, i, node, new Node[] {node}, new Node[] {node}));
            }
        }
        Cluster cluster = new Cluster("c", List.of(node), parts, Set.of(), Set.of());
        Map<String, Subscription> one = new LinkedHashMap<>();
        one.put("m2", new Subscription(List.of("r", "q", "p")));
        one.put("m1", new Subscription(List.of("p", "q", "r")));
        Map<String, Subscription> other = new LinkedHashMap<>();
        other.put("m1", new Subscription(List.of("q", "p", "r")));
        other.put("m2", new Subscription(List.of("p", "r", "q")));
        TopicAffinityAssignor assignor = new TopicAffinityAssignor();
        var first = assignor.assign(cluster, new GroupSubscription(one)).groupAssignment();
        var second = assignor.assign(cluster, new GroupSubscription(other)).groupAssignment();
        assertEquals(first.get("m1").partitions(), second.get("m1").partitions());
        assertEquals(first.get("m2").partitions(), second.get("m2").partitions());
        assertEquals(List.of(new TopicPartition("p", 0), new TopicPartition("p", 1), new TopicPartition("r", 0),
                new TopicPartition("r", 1)), first.get("m1").partitions());
        assertEquals(List.of(new TopicPartition("q", 0), new TopicPartition("q", 1)), first.get("m2").partitions());
        assertEquals(TopicAffinityAssignor.CLASS, TopicAffinityAssignor.class.getName());
    }
}
