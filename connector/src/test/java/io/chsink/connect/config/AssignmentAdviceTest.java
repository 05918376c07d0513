package io.chsink.connect.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AssignmentAdviceTest {
    private static Map<String, String> config(String tasks, String topics) {
        Map<String, String> c = new HashMap<>();
        c.put("tasks.max", tasks);
        c.put("topics", topics);
        return c;
    }

    @Test
    void moreTopicsThanTasksWithoutAnAssignorGetTheKeyToSet() {
        String advice = AssignmentAdvice.advice(config("2", "a, b,c"));
        assertNotNull(advice);
        assertTrue(advice.startsWith("3 topics are read by tasks.max=2 tasks"), advice);
        assertTrue(advice.contains("\"consumer.override.partition.assignment.strategy\": "
                + "\"io.chsink.connect.TopicAffinityAssignor,org.apache.kafka.clients.consumer.RangeAssignor\""),
                advice);
    }

    @Test
    void aPatternMayMatchManyTopics() {
        Map<String, String> c = config("4", null);
        c.remove("topics");
        c.put("topics.regex", "pg\\..*");
        assertTrue(AssignmentAdvice.advice(c).startsWith("topics.regex 'pg\\..*' may match"));
    }

    @Test
    void noAdviceWhereTheDefaultCostsNothingOrTheUserChose() {
        assertNull(AssignmentAdvice.advice(config("2", "a,b")), "no more topics than tasks");
        assertNull(AssignmentAdvice.advice(config("1", "a,b,c")), "one task reads every topic anyway");
        assertNull(AssignmentAdvice.advice(config("2", "a,a,a")), "one topic listed three times");
        Map<String, String> chose = config("2", "a,b,c");
        chose.put(AssignmentAdvice.KEY, "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
        assertNull(AssignmentAdvice.advice(chose), "an assignor the user chose is kept");
        chose.put(AssignmentAdvice.KEY, AssignmentAdvice.VALUE);
        assertNull(AssignmentAdvice.advice(chose));
    }

    @Test
    void validationRefusesTheDefaultAssignmentUnlessAllowed() {
        String problem = AssignmentAdvice.problem(config("2", "a,b,c"), DefaultAssignment.REFUSE);
        assertNotNull(problem);
        assertTrue(problem.startsWith(AssignmentAdvice.advice(config("2", "a,b,c"))), problem);
        assertTrue(problem.endsWith("set \"default.assignment\": \"allow\""), problem);
        assertNull(AssignmentAdvice.problem(config("2", "a,b,c"), DefaultAssignment.ALLOW), "allowed");
        assertNull(AssignmentAdvice.problem(config("2", "a,b"), DefaultAssignment.REFUSE), "nothing to advise");
        assertEquals(DefaultAssignment.REFUSE,
                DefaultAssignment.parse(new SinkConfig(Map.of("clickhouse.url", "http://localhost:8123"))
                        .getString(SinkConfig.DEFAULT_ASSIGNMENT)));
    }
}
