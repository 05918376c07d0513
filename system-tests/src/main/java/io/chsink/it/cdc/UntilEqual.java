package io.chsink.it.cdc;

import io.chsink.it.stack.ClickHouseQueryException;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The wait of the CDC workloads' {@code awaitEqual}: compares once a second until every table is equal or the
 * timeout passes, and returns the last comparison; {@code failure} (may be null) is asked between rounds and ends the
 * wait with its message.
 */
final class UntilEqual {
    private UntilEqual() {
    }

    /**
     * @param missingTableIsUnequal when true, a ClickHouse table that does not exist yet (HTTP 404: one the sink creates
     *     with auto.create from its first record) counts as not equal yet; else the 404 ends the wait
     */
    static <C> List<C> await(Supplier<List<C>> compare, Predicate<C> equal, Duration timeout, Supplier<String> failure,
            boolean missingTableIsUnequal) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<C> r;
            try {
                r = compare.get();
            } catch (ClickHouseQueryException e) {
                if (!missingTableIsUnequal || e.httpStatus() != 404 || System.nanoTime() > deadline) {
                    throw e;
                }
                r = null;
            }
            if (r != null && (r.stream().allMatch(equal) || System.nanoTime() > deadline)) {
                return r;
            }
            String f = failure == null ? null : failure.get();
            if (f != null) {
                throw new IllegalStateException("a connector failed while waiting for ClickHouse to catch up: " + f);
            }
            Thread.sleep(1000);
        }
    }
}
