package io.chsink.connect.writer;

import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * The outage policy of a task. Blocks the task has taken are retried in place until they succeed (they are
 * bounded by buffer.max.bytes, and offsets are never committed past them). Once inserts have been failing for
 * longer than {@code retry.timeout.ms}, the task takes no new records: put() throws Connect's RetriableException
 * before appending anything, so Connect pauses consumption and hands the very same batch again after the backoff;
 * no record is lost and none is buffered twice. When an insert succeeds again, the next put() takes the batch.
 */
public final class RetryBudget {
    private final RetryPolicy policy;

    public RetryBudget(RetryPolicy policy) {
        this.policy = policy;
    }

    /**
     * Throws RetriableException (after asking Connect to wait a backoff, and running {@code onRefusal}) if the
     * longest-failing insert has been failing past the budget; returns otherwise.
     */
    public void check(InsertPipeline.Failing failing, long nowMs, SinkTaskContext context, Runnable onRefusal) {
        if (failing == null || nowMs - failing.sinceMs < policy.timeoutMs()) {
            return;
        }
        onRefusal.run();
        context.timeout(policy.delayMs(Math.max(1, failing.attempts)));
        throw new RetriableException(String.format("Inserts into ClickHouse have been failing for %d s "
                + "(retry.timeout.ms=%d, %d attempts so far): %s. The task takes no new records until an insert "
                + "succeeds; Connect will deliver this batch again.", (nowMs - failing.sinceMs) / 1000,
                policy.timeoutMs(), failing.attempts, failing.last.message()));
    }
}
