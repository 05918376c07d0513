package io.chsink.connect.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.clickhouse.client.api.ServerException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.Test;

class RetryBudgetTest {
    private final List<Long> timeouts = new ArrayList<>();
    /** Records the task's timeout() calls; nothing else is expected. */
    private final SinkTaskContext context = (SinkTaskContext) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {SinkTaskContext.class}, (proxy, method, args) -> {
                if (method.getName().equals("timeout")) {
                    timeouts.add((Long) args[0]);
                    return null;
                }
                throw new AssertionError("unexpected call " + method.getName());
            });

    private static InsertPipeline.Failing failingSince(long sinceMs, int attempts) {
        return new InsertPipeline.Failing(sinceMs, InsertFailure.classify(new ServerException(210,
                "Code: 210. Connection refused", 500, "q")), attempts);
    }

    @Test
    void withinTheBudgetNothingHappens() {
        AtomicInteger refusals = new AtomicInteger();
        RetryBudget budget = new RetryBudget(new RetryPolicy(500, 60_000));
        budget.check(null, 1_000_000, context, refusals::incrementAndGet);
        budget.check(failingSince(1_000_000 - 59_999, 9), 1_000_000, context, refusals::incrementAndGet);
        assertEquals(0, refusals.get());
        assertTrue(timeouts.isEmpty());
    }

    @Test
    void pastTheBudgetTheBatchIsHandedBackWithABackoff() {
        AtomicInteger refusals = new AtomicInteger();
        RetryBudget budget = new RetryBudget(new RetryPolicy(500, 60_000));
        RetriableException e = assertThrows(RetriableException.class,
                () -> budget.check(failingSince(1_000_000 - 61_000, 12), 1_000_000, context, refusals::incrementAndGet));
        assertEquals(1, refusals.get());
        assertEquals(1, timeouts.size());
        assertTrue(timeouts.get(0) >= 5_000 && timeouts.get(0) <= 10_000, "backoff " + timeouts);
        assertTrue(e.getMessage().contains("failing for 61 s") && e.getMessage().contains("retry.timeout.ms=60000")
                && e.getMessage().contains("ClickHouse error 210"), e.getMessage());
    }
}
