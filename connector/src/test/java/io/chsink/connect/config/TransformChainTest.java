package io.chsink.connect.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TransformChainTest {
    @Test
    void routersAndUnknownTransformsMayRenameTopics() {
        assertFalse(TransformChain.mayRenameTopics(Map.of()));
        assertFalse(TransformChain.mayRenameTopics(Map.of("transforms", " ")));
        assertFalse(TransformChain.mayRenameTopics(Map.of("transforms", "ts, unwrap",
                "transforms.ts.type", "org.apache.kafka.connect.transforms.InsertField$Value",
                "transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState")));
        assertTrue(TransformChain.mayRenameTopics(Map.of("transforms", "ts,route",
                "transforms.ts.type", "org.apache.kafka.connect.transforms.InsertField$Value",
                "transforms.route.type", "org.apache.kafka.connect.transforms.RegexRouter")));
        assertTrue(TransformChain.mayRenameTopics(Map.of("transforms", "r",
                "transforms.r.type", "io.debezium.transforms.ByLogicalTableRouter")));
        assertTrue(TransformChain.mayRenameTopics(Map.of("transforms", "mine",
                "transforms.mine.type", "com.example.MyTransform")));
        assertTrue(TransformChain.mayRenameTopics(Map.of("transforms", "nameless")));
    }
}
