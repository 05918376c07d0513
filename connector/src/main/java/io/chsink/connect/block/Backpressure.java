package io.chsink.connect.block;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import io.chsink.connect.offset.Consumption;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task's memory bound ({@code buffer.max.bytes}): while the bytes held in open, queued and in-flight blocks
 * are at or above it, consumption of the task's partitions is paused until inserts complete.
 *
 * <p>One exception keeps the task from stalling: a block that must be completed before anything else of its
 * partition (an exactly_once rebuild, which is never sealed early) needs the rest of its records, so the oldest
 * such partition keeps being consumed while the others are paused. The task then holds up to the bound plus that
 * one block (whose size was set when it was first built, under the flush limits of the time). A task paused for
 * {@value #STALL_WARN_MS} ms with no insert completed says so in a WARN, with the numbers, every
 * {@value #STALL_WARN_MS} ms.
 */
public final class Backpressure {
    private static final Logger LOG = LoggerFactory.getLogger(Backpressure.class);
    static final long STALL_WARN_MS = 60_000;

    private final long maxBytes;
    private final Consumption context;
    private final Set<TopicPartition> paused = new HashSet<>();
    private boolean over;
    private TopicPartition exempt;
    private long lastProgressMs;
    private long lastWarnMs;

    public Backpressure(long maxBytes, Consumption context) {
        this.maxBytes = maxBytes;
        this.context = context;
    }

    /** Whether {@code held} bytes reach the bound. */
    public boolean atBound(long held) {
        return held >= maxBytes;
    }

    /**
     * Pauses or resumes the assigned partitions for {@code held} bytes held.
     *
     * @param assignment the task's partitions, asked only at the bound (the consumer copies its assignment into a new
     *     set at each call: at hundreds of partitions, per put() a garbage the task need not make)
     * @param mustComplete partitions whose open block can only be completed by more of their records, oldest first
     * @param state what the task holds, for the WARN of a stalled task
     */
    public void apply(long held, Supplier<Set<TopicPartition>> assignment, List<TopicPartition> mustComplete,
            long nowMs, Supplier<String> state) {
        if (!atBound(held)) {
            if (over) {
                over = false;
                exempt = null;
                resume(new HashSet<>(paused));
                LOG.info("Consumption resumed at {} bytes held", held);
            }
            return;
        }
        if (!over) {
            over = true;
            lastProgressMs = nowMs;
            lastWarnMs = nowMs;
        }
        Set<TopicPartition> assigned = assignment.get();
        TopicPartition next = null;
        for (TopicPartition tp : mustComplete) {
            if (assigned.contains(tp)) {
                next = tp;
                break;
            }
        }
        Set<TopicPartition> toPause = new HashSet<>(assigned);
        toPause.removeAll(paused);
        if (next != null) {
            toPause.remove(next);
        }
        if (!toPause.isEmpty()) {
            paused.addAll(toPause);
            context.pause(toPause.toArray(new TopicPartition[0]));
            LOG.info("Holding {} bytes (buffer.max.bytes={}): consumption paused until inserts complete ({} "
                    + "partitions{})", held, maxBytes, paused.size(),
                    next == null ? "" : "; " + next + " goes on until the block it must complete is whole");
        }
        if (next != null && paused.remove(next)) {
            context.resume(next); // paused earlier (a rebuild that began later, or before it began)
        }
        exempt = next;
        if (nowMs - lastProgressMs >= STALL_WARN_MS && nowMs - lastWarnMs >= STALL_WARN_MS) {
            lastWarnMs = nowMs;
            LOG.warn("No insert has completed for {} s while the task holds {} bytes (buffer.max.bytes={}) and "
                    + "consumption of {} of {} partitions is paused{}: {}", (nowMs - lastProgressMs) / 1000, held,
                    maxBytes, paused.size(), assigned.size(), exempt == null ? "" : " (" + exempt + " is not)",
                    state.get());
        }
    }

    /** An insert completed: the bytes it held are free. */
    public void progressed(long nowMs) {
        lastProgressMs = nowMs;
    }

    /** Partitions newly assigned while paused are paused too. */
    public void opened(Collection<TopicPartition> partitions) {
        if (over && !partitions.isEmpty()) {
            paused.addAll(partitions);
            context.pause(partitions.toArray(new TopicPartition[0]));
        }
    }

    public void revoked(Collection<TopicPartition> partitions) {
        paused.removeAll(partitions);
        if (exempt != null && partitions.contains(exempt)) {
            exempt = null;
        }
    }

    /** Whether consumption is paused (the task holds the bound or more). */
    public boolean isPaused() {
        return over;
    }

    /** The partitions this paused (for tests). */
    public Set<TopicPartition> paused() {
        return Set.copyOf(paused);
    }

    private void resume(Set<TopicPartition> partitions) {
        paused.removeAll(partitions);
        if (!partitions.isEmpty()) {
            context.resume(partitions.toArray(new TopicPartition[0]));
        }
    }
}
