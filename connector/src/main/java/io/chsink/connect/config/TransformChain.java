package io.chsink.connect.config;

import java.util.Map;
import java.util.Set;

/**
 * What a connector's {@code transforms} tell before any record is seen: whether the topic a record reaches the sink
 * with can differ from the topic it was read from. Routing ({@code topic.to.table.map}, {@code table.name.format})
 * applies to the topic as the transforms leave it, so a config whose transforms may rename topics cannot have its
 * tables checked by the names in {@code topics}: the check then waits for the first record of each renamed topic.
 */
public final class TransformChain {
    /**
     * Transforms that never change a record's topic: Kafka's own (connect-transforms) but the routers, and Debezium's
     * ExtractNewRecordState. Any other (RegexRouter, TimestampRouter, Debezium's ByLogicalTableRouter, a user's
     * own) may rename topics.
     */
    private static final Set<String> KEEP_TOPIC = Set.of(
            "org.apache.kafka.connect.transforms.Cast",
            "org.apache.kafka.connect.transforms.DropHeaders",
            "org.apache.kafka.connect.transforms.ExtractField",
            "org.apache.kafka.connect.transforms.Filter",
            "org.apache.kafka.connect.transforms.Flatten",
            "org.apache.kafka.connect.transforms.HeaderFrom",
            "org.apache.kafka.connect.transforms.HoistField",
            "org.apache.kafka.connect.transforms.InsertField",
            "org.apache.kafka.connect.transforms.InsertHeader",
            "org.apache.kafka.connect.transforms.MaskField",
            "org.apache.kafka.connect.transforms.ReplaceField",
            "org.apache.kafka.connect.transforms.SetSchemaMetadata",
            "org.apache.kafka.connect.transforms.TimestampConverter",
            "org.apache.kafka.connect.transforms.ValueToKey",
            "io.debezium.transforms.ExtractNewRecordState");

    private TransformChain() {
    }

    /** Whether a transform of the connector config may give records another topic than the one they were read from. */
    public static boolean mayRenameTopics(Map<String, String> connectorConfig) {
        String chain = connectorConfig.get("transforms");
        if (chain == null || chain.isBlank()) {
            return false;
        }
        for (String alias : chain.split(",")) {
            String type = connectorConfig.get("transforms." + alias.trim() + ".type");
            if (type == null) {
                return true; // Connect itself reports it; nothing is known of what it does
            }
            int inner = type.indexOf('$'); // InsertField$Value and the like
            if (!KEEP_TOPIC.contains((inner < 0 ? type : type.substring(0, inner)).trim())) {
                return true;
            }
        }
        return false;
    }
}
