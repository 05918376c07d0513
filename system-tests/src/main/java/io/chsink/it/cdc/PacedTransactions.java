package io.chsink.it.cdc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The change stream loop of the CDC workloads: {@code changes} changes in transactions of 1 to
 * {@code maxPerTransaction} (drawn from the workload's Random), at most {@code perSecond} a second (0: no limit),
 * each committed change added to {@code changesDone}. An interrupt ends the stream early.
 */
final class PacedTransactions {
    interface Opener {
        Connection open() throws SQLException;
    }

    interface Change {
        void run(Connection c) throws SQLException;
    }

    /** Asked before each transaction with the changes done so far (may run and commit statements of its own). */
    interface BeforeTransaction {
        void run(Connection c, int done) throws SQLException;
    }

    private PacedTransactions() {
    }

    /** Runs the stream on one connection (auto-commit off); returns the number of transactions committed. */
    static long run(Opener connection, Random random, int changes, int maxPerTransaction, int perSecond,
            AtomicLong changesDone, BeforeTransaction before, Change change) {
        long transactions = 0;
        long start = System.nanoTime();
        try (Connection c = connection.open()) {
            c.setAutoCommit(false);
            int done = 0;
            while (done < changes) {
                before.run(c, done);
                int n = Math.min(changes - done, 1 + random.nextInt(maxPerTransaction));
                for (int i = 0; i < n; i++) {
                    change.run(c);
                }
                c.commit();
                transactions++;
                done += n;
                changesDone.addAndGet(n);
                if (perSecond > 0) {
                    long wait = start + (long) (done * 1e9 / perSecond) - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("workload failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return transactions;
    }
}
