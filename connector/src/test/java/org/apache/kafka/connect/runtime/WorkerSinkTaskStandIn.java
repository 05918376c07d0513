package org.apache.kafka.connect.runtime;

import java.util.function.BooleanSupplier;

/**
 * Stands in for Connect's WorkerSinkTask in ClosingCommitTest and ClickHouseSinkTaskTest: a class of that name calling
 * the task's preCommit from the methods the runtime closes partitions in, or from its ordinary commit.
 */
public final class WorkerSinkTaskStandIn {
    private WorkerSinkTaskStandIn() {
    }

    public static boolean closePartitions(BooleanSupplier preCommit) {
        return preCommit.getAsBoolean();
    }

    public static boolean closeAllPartitions(BooleanSupplier preCommit) {
        return preCommit.getAsBoolean();
    }

    public static boolean commitOffsets(BooleanSupplier preCommit) {
        return preCommit.getAsBoolean();
    }
}
