package io.chsink.connect.offset;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Partitions sought back to a record that cannot be handled yet (the create of a primary-key change waiting for its
 * old key's delete, cdc.key.change.wait.ms): each is paused for a while instead of being read again at once, so that
 * a wait of minutes does not re-read and re-convert the same records at every poll. The pause starts at
 * {@value #FIRST_MS} ms and doubles, up to {@value #MAX_MS} ms, each time the partition waits again within
 * {@value #MAX_MS} ms of being resumed; a partition that has not waited for longer starts over.
 */
public final class WaitingPartitions {
    static final long FIRST_MS = 50;
    static final long MAX_MS = 1_000;

    /** A paused partition's resume time and pause; a resumed one's last pause, kept to double it. */
    private static final class Wait {
        long resumeAt;
        long pauseMs;
        boolean paused;
    }

    private final Consumption context;
    private final Map<TopicPartition, Wait> waits = new HashMap<>();
    /** Partitions revoked while paused here, which Connect pauses again should they be assigned anew. */
    private final Set<TopicPartition> revokedPaused = new HashSet<>();

    public WaitingPartitions(Consumption context) {
        this.context = context;
    }

    /** The partition was sought back to a record that waits: paused until its pause is over. */
    public void waiting(TopicPartition tp, long now) {
        Wait w = waits.computeIfAbsent(tp, k -> new Wait());
        if (w.paused) {
            return; // its batch had more records after the seek: one pause
        }
        w.pauseMs = w.pauseMs == 0 || now - w.resumeAt > MAX_MS ? FIRST_MS : Math.min(MAX_MS, w.pauseMs * 2);
        w.resumeAt = now + w.pauseMs;
        w.paused = true;
        context.pause(tp);
    }

    /**
     * Resumes the partitions whose pause is over; while {@code heldByBound} (the task is paused at its memory bound,
     * every partition with it), they are left to the bound's resume.
     */
    public void resumeDue(long now, boolean heldByBound) {
        List<TopicPartition> due = new ArrayList<>();
        for (Iterator<Map.Entry<TopicPartition, Wait>> it = waits.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TopicPartition, Wait> e = it.next();
            Wait w = e.getValue();
            if (w.paused && now >= w.resumeAt) {
                w.paused = false;
                w.resumeAt = now;
                if (!heldByBound) {
                    due.add(e.getKey());
                }
            } else if (!w.paused && now - w.resumeAt > MAX_MS) {
                it.remove(); // done waiting: the next wait starts over
            }
        }
        if (!due.isEmpty()) {
            context.resume(due.toArray(new TopicPartition[0]));
        }
    }

    /** Milliseconds until the next pause is over (0 when one is), or -1 when no partition is paused. */
    public long millisUntilDue(long now) {
        long next = -1;
        for (Wait w : waits.values()) {
            if (w.paused) {
                long in = Math.max(0, w.resumeAt - now);
                next = next < 0 ? in : Math.min(next, in);
            }
        }
        return next;
    }

    /**
     * Partitions revoked: forgotten here. Connect keeps its own list of the partitions a task paused across a
     * rebalance and pauses again those it assigns anew, so the ones paused here are remembered until then
     * ({@link #opened}); a new owner elsewhere starts unpaused.
     */
    public void revoked(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            Wait w = waits.remove(tp);
            if (w != null && w.paused) {
                revokedPaused.add(tp);
            }
        }
    }

    /**
     * Partitions assigned: those paused here when they were revoked are resumed (Connect paused them again before
     * {@code open()}; their waiting record comes again from the committed offset). Call it before anything else
     * pauses newly assigned partitions.
     */
    public void opened(Collection<TopicPartition> partitions) {
        List<TopicPartition> again = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            if (revokedPaused.remove(tp)) {
                again.add(tp);
            }
        }
        if (!again.isEmpty()) {
            context.resume(again.toArray(new TopicPartition[0]));
        }
    }

    /** Whether the partition is paused here. */
    public boolean isPaused(TopicPartition tp) {
        Wait w = waits.get(tp);
        return w != null && w.paused;
    }
}
