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

    @Test
    void aFilterOnTopicNamesMayDropWholeTopicsOneOnRecordsDoesNot() {
        String filter = "org.apache.kafka.connect.transforms.Filter";
        assertFalse(TransformChain.mayDropTopics(Map.of("transforms", "f", "transforms.f.type", filter,
                "transforms.f.predicate", "tomb",
                "predicates.tomb.type", "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone")));
        assertFalse(TransformChain.mayDropTopics(Map.of("transforms", "f", "transforms.f.type", filter,
                "transforms.f.predicate", "h",
                "predicates.h.type", "org.apache.kafka.connect.transforms.predicates.HasHeaderKey")));
        assertTrue(TransformChain.mayDropTopics(Map.of("transforms", "f", "transforms.f.type", filter,
                "transforms.f.predicate", "t",
                "predicates.t.type", "org.apache.kafka.connect.transforms.predicates.TopicNameMatches")));
        assertTrue(TransformChain.mayDropTopics(Map.of("transforms", "f", "transforms.f.type", filter)),
                "a Filter without a predicate drops everything");
        assertTrue(TransformChain.mayDropTopics(Map.of("transforms", "f", "transforms.f.type", filter,
                "transforms.f.predicate", "mine", "predicates.mine.type", "com.example.MyPredicate")));
        assertFalse(TransformChain.mayDropTopics(Map.of("transforms", "ts",
                "transforms.ts.type", "org.apache.kafka.connect.transforms.InsertField$Value")));
        assertTrue(TransformChain.tablesKnownFromTopics(Map.of()));
        assertFalse(TransformChain.tablesKnownFromTopics(Map.of("transforms", "f", "transforms.f.type", filter)));
    }
}
