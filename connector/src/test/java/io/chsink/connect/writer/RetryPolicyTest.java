package io.chsink.connect.writer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    @Test
    void backoffDoublesWithJitterUpToTheCap() {
        RetryPolicy p = new RetryPolicy(500, 60_000);
        for (int i = 0; i < 200; i++) {
            long first = p.delayMs(1);
            assertTrue(first >= 250 && first <= 500, "first " + first);
            long third = p.delayMs(3);
            assertTrue(third >= 1000 && third <= 2000, "third " + third);
            long late = p.delayMs(40);
            assertTrue(late >= 5000 && late <= 10_000, "capped " + late);
        }
    }

    @Test
    void aBackoffAboveTheDefaultCapIsItsOwnCap() {
        RetryPolicy p = new RetryPolicy(30_000, 60_000);
        long d = p.delayMs(5);
        assertTrue(d >= 15_000 && d <= 30_000, "" + d);
    }
}
