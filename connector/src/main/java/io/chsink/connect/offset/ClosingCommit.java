package io.chsink.connect.offset;

import java.util.Set;

/**
 * Tells a {@code preCommit()} that Connect makes just before it closes partitions (a rebalance revoking them, or the
 * task stopping) from its ordinary periodic or requested commits.
 * <p>
 * Connect's {@code WorkerSinkTask} calls {@code preCommit()}, then {@code close()}, then commits what preCommit
 * returned, and commits nothing after: an insert still in flight at that preCommit would land with its offsets never
 * committed, and the partition's next owner would insert its rows again. So a closing commit must wait for the
 * inserts in flight; an ordinary one must not, or the task thread would stop encoding each time a block is
 * verified. The sink API carries no such signal, so this looks for the runtime's closing methods on the calling
 * thread's stack (the rebalance listener runs on the task thread, inside {@code poll()}). A runtime where they are
 * not found is treated as an ordinary commit: nothing is lost then, a rebalance may re-insert one block per table.
 */
public final class ClosingCommit {
    private static final String WORKER_SINK_TASK = "org.apache.kafka.connect.runtime.WorkerSinkTask";
    private static final Set<String> CLOSING_METHODS = Set.of("closePartitions", "closeAllPartitions",
            "onPartitionsRevoked", "onPartitionsLost");
    private static final StackWalker WALKER = StackWalker.getInstance();

    private ClosingCommit() {
    }

    /** Whether the calling thread is inside Connect's closing of partitions. */
    public static boolean inProgress() {
        return WALKER.walk(frames -> frames.anyMatch(f -> f.getClassName().startsWith(WORKER_SINK_TASK)
                && CLOSING_METHODS.contains(f.getMethodName())));
    }
}
