package io.chsink.connect.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ShardingKeyTest {
    /** As system.functions.deterministic answers on 26.7 for these; anything else unknown. */
    private static final Function<String, Boolean> SERVER = f -> Map.of("cityHash64", true, "rand", false,
            "now", false, "modulo", true, "toUInt64", true, "plus", true, "concat", true).get(f);

    @Test
    void aHashOfColumnsIsDeterministic() {
        assertEquals(Set.of(), ShardingKey.nondeterministicFunctions("cityHash64(id, `tenant id`)", Map.of(), SERVER));
        assertEquals(Set.of(), ShardingKey.nondeterministicFunctions("id", Map.of(), SERVER));
        assertEquals(Set.of(), ShardingKey.nondeterministicFunctions("toUInt64(id) % 4", Map.of(), SERVER));
    }

    @Test
    void randAndUnknownFunctionsAreNot() {
        assertEquals(Set.of("rand"), ShardingKey.nondeterministicFunctions("rand()", Map.of(), SERVER));
        assertEquals(Set.of("myUdf"), ShardingKey.nondeterministicFunctions("myUdf(id)", Map.of(), SERVER));
    }

    @Test
    void aColumnTheKeyReadsBringsItsDefaultExpression() {
        Map<String, String> defaults = Map.of("ts", "now()", "bucket", "toUInt64(id) + 1");
        assertEquals(Set.of("now"), ShardingKey.nondeterministicFunctions("cityHash64(ts)", defaults, SERVER));
        assertEquals(Set.of(), ShardingKey.nondeterministicFunctions("bucket", defaults, SERVER));
    }

    @Test
    void literalsAndKeywordsAreNotNames() {
        assertEquals(Set.of("concat"), ShardingKey.names("concat('rand(', x) IN (1, 2)", true));
        assertEquals(Set.of("x", "col y"), ShardingKey.names("concat('rand(', x, `col y`) AND 1e3", false));
    }
}
