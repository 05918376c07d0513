package io.chsink.connect.writer;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Backoff of retried inserts and the time budget of an outage ({@code retry.backoff.ms}, {@code retry.timeout.ms}):
 * the n-th wait is drawn uniformly from [b/2, b] with b = min(cap, backoff * 2^(n-1)), cap = max(10 s, backoff).
 */
public final class RetryPolicy {
    private static final long MIN_CAP_MS = 10_000;

    private final long backoffMs;
    private final long capMs;
    private final long timeoutMs;

    public RetryPolicy(long backoffMs, long timeoutMs) {
        this.backoffMs = Math.max(1, backoffMs);
        this.capMs = Math.max(MIN_CAP_MS, this.backoffMs);
        this.timeoutMs = timeoutMs;
    }

    /** The wait before retry number {@code attempt} (1 = the first retry). */
    public long delayMs(int attempt) {
        long b = backoffMs;
        for (int i = 1; i < attempt && b < capMs; i++) {
            b *= 2;
        }
        b = Math.min(b, capMs);
        return b / 2 + ThreadLocalRandom.current().nextLong(b - b / 2 + 1);
    }

    public long backoffMs() {
        return backoffMs;
    }

    /** How long inserts may fail retriably before the task refuses new records (retry.timeout.ms). */
    public long timeoutMs() {
        return timeoutMs;
    }
}
