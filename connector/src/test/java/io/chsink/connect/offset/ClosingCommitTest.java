package io.chsink.connect.offset;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.connect.runtime.WorkerSinkTaskStandIn;
import org.junit.jupiter.api.Test;

class ClosingCommitTest {
    @Test
    void aCommitMadeWhileTheRuntimeClosesPartitionsIsAClosingOne() {
        assertTrue(WorkerSinkTaskStandIn.closePartitions(ClosingCommit::inProgress));
        assertTrue(WorkerSinkTaskStandIn.closeAllPartitions(ClosingCommit::inProgress));
    }

    @Test
    void anOrdinaryCommitOrAnUnknownCallerIsNot() {
        assertFalse(WorkerSinkTaskStandIn.commitOffsets(ClosingCommit::inProgress));
        assertFalse(ClosingCommit.inProgress());
    }
}
