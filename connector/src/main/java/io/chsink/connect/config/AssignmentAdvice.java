package io.chsink.connect.config;

import java.util.Arrays;
import java.util.Map;

/**
 * Whether a connector that reads more topics than it has tasks leaves Kafka's default assignment in place, which
 * spreads every topic's partitions over the tasks, so that every task writes a block into every table (K tables,
 * T tasks: K x T inserts where K would do). The connector cannot choose its consumers' assignor itself (Connect
 * gives every task the connector's topics and builds the consumers); the user sets it. validate() refuses such a
 * configuration unless default.assignment=allow ({@link DefaultAssignment}: the worker may set the assignor, which a
 * connector cannot see); a connector that runs with it anyway (allowed, or created before this check) logs the
 * advice at start, and keeps running: the default assignment is correct, only slower with many tables.
 */
public final class AssignmentAdvice {
    /** The connector key that chooses the consumers' assignor. */
    public static final String KEY = "consumer.override.partition.assignment.strategy";
    /** What the example configurations set. */
    public static final String VALUE =
            "io.chsink.connect.TopicAffinityAssignor,org.apache.kafka.clients.consumer.RangeAssignor";

    private AssignmentAdvice() {
    }

    /**
     * What validate() reports for this configuration, or null: the advice and the way to keep the default, unless
     * default.assignment=allow.
     */
    public static String problem(Map<String, String> config, DefaultAssignment mode) {
        String advice = mode == DefaultAssignment.REFUSE ? advice(config) : null;
        return advice == null ? null : advice + ". If the worker sets consumer.partition.assignment.strategy itself,"
                + " or to keep Kafka's default assignment, set \"" + SinkConfig.DEFAULT_ASSIGNMENT + "\": \""
                + DefaultAssignment.ALLOW.configValue() + "\"";
    }

    /** The advice for this connector configuration, or null when there is none to give. */
    public static String advice(Map<String, String> config) {
        int tasks;
        try {
            tasks = Integer.parseInt(config.getOrDefault("tasks.max", "1").trim());
        } catch (NumberFormatException e) {
            return null; // Connect refuses it before this
        }
        String chosen = config.get(KEY);
        if (tasks < 2 || (chosen != null && !chosen.isBlank())) { // an assignor the user chose is theirs to keep
            return null;
        }
        String regex = config.get("topics.regex");
        String reads;
        if (regex != null && !regex.isBlank()) {
            reads = "topics.regex '" + regex + "' may match more topics than tasks.max=" + tasks;
        } else {
            long topics = Arrays.stream(config.getOrDefault("topics", "").split(","))
                    .map(String::trim).filter(t -> !t.isEmpty()).distinct().count();
            if (topics <= tasks) {
                return null;
            }
            reads = topics + " topics are read by tasks.max=" + tasks + " tasks";
        }
        return reads + ": Kafka's default assignment spreads every topic's partitions over all tasks, so every task"
                + " inserts a block into every table. Set \"" + KEY + "\": \"" + VALUE + "\" to give each topic"
                + " whole to one task (fewer, larger inserts; the worker's connector.client.config.override.policy"
                + " must allow consumer overrides)";
    }
}
