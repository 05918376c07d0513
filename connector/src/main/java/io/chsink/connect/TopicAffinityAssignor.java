package io.chsink.connect;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer partition assignor that gives all partitions of a topic to one task, for connectors reading many topics
 * into as many tables (change-data pipelines: a topic per source table). Kafka's default assignment spreads each
 * topic's partitions over the tasks, so every task writes a block into every table: with K tables and T tasks,
 * K x T inserts where K would do, and Connect records every topic once per task. Here each topic goes whole to the
 * task with the fewest partitions so far (topics with more partitions first, then by name), so each table gets
 * its blocks from one task. With fewer topics than tasks it falls back to splitting every topic's partitions over
 * its subscribers (as Kafka's RangeAssignor does), so that no task stands idle.
 *
 * <p>Set it on the connector: {@code consumer.override.partition.assignment.strategy=}{@value #CLASS} (the worker's
 * {@code connector.client.config.override.policy} must allow it; {@code All} is Kafka's default from 3.0). It is an
 * eager assignor, as RangeAssignor: a rebalance revokes every partition and assigns anew. The cost: one busy topic
 * is one task's work, where the default splits it.
 */
public final class TopicAffinityAssignor implements ConsumerPartitionAssignor {
    /** The class name to set in {@code consumer.override.partition.assignment.strategy}. */
    public static final String CLASS = "io.chsink.connect.TopicAffinityAssignor";
    /** The protocol name members agree on. */
    public static final String NAME = "chsink-topic-affinity";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription subscriptions) {
        Map<String, Subscription> members = subscriptions.groupSubscription();
        Map<String, Integer> partitionsPerTopic = new TreeMap<>();
        Map<String, List<String>> subscribers = new HashMap<>();
        for (Map.Entry<String, Subscription> m : new TreeMap<>(members).entrySet()) {
            for (String topic : new TreeSet<>(m.getValue().topics())) {
                Integer n = metadata.partitionCountForTopic(topic);
                if (n != null && n > 0) {
                    partitionsPerTopic.put(topic, n);
                    subscribers.computeIfAbsent(topic, t -> new ArrayList<>()).add(m.getKey());
                }
            }
        }
        Map<String, List<TopicPartition>> assigned = assign(partitionsPerTopic, subscribers, members.keySet());
        Map<String, Assignment> out = new HashMap<>();
        assigned.forEach((member, partitions) -> out.put(member, new Assignment(partitions)));
        return new GroupAssignment(out);
    }

    /**
     * The assignment (pure logic): per member, its partitions. Members are taken in name order, so every member
     * that computes it gets the same answer.
     */
    static Map<String, List<TopicPartition>> assign(Map<String, Integer> partitionsPerTopic,
            Map<String, List<String>> subscribers, java.util.Collection<String> members) {
        Map<String, List<TopicPartition>> out = new TreeMap<>();
        for (String m : members) {
            out.put(m, new ArrayList<>());
        }
        if (partitionsPerTopic.size() < members.size()) {
            // Fewer topics than members: whole topics would leave some idle. Split each topic, as RangeAssignor does.
            for (Map.Entry<String, Integer> t : partitionsPerTopic.entrySet()) {
                List<String> subs = subscribers.get(t.getKey());
                int n = t.getValue();
                int each = n / subs.size();
                int extra = n % subs.size();
                int p = 0;
                for (int i = 0; i < subs.size(); i++) {
                    int take = each + (i < extra ? 1 : 0);
                    for (int j = 0; j < take; j++) {
                        out.get(subs.get(i)).add(new TopicPartition(t.getKey(), p++));
                    }
                }
            }
            return Collections.unmodifiableMap(out);
        }
        List<String> topics = new ArrayList<>(partitionsPerTopic.keySet());
        topics.sort(Comparator.comparing((String t) -> -partitionsPerTopic.get(t)).thenComparing(t -> t));
        Map<String, Integer> load = new HashMap<>();
        for (String topic : topics) {
            String least = null;
            for (String m : subscribers.get(topic)) { // in name order: the first of the least loaded
                if (least == null || load.getOrDefault(m, 0) < load.getOrDefault(least, 0)) {
                    least = m;
                }
            }
            int n = partitionsPerTopic.get(topic);
            for (int p = 0; p < n; p++) {
                out.get(least).add(new TopicPartition(topic, p));
            }
            load.merge(least, n, Integer::sum);
        }
        out.values().forEach(l -> l.sort(Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition)));
        return Collections.unmodifiableMap(out);
    }
}
