package io.chsink.it.bench;

import io.chsink.it.stack.ProcessCpu;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * Path A: the connector's real SinkTask in this JVM, fed SinkRecords built beforehand, the way Connect's
 * WorkerSinkTask drives a task: {@code put()} with batches of {@code max.poll.records} records (500 by default), an
 * empty {@code put()} after the timeout the task asked for while its partitions are paused or no records are left,
 * and {@code preCommit()} whenever the task requests a commit. The run ends when preCommit returns, for every
 * partition, the offset after its last record: every row is verified in ClickHouse. No Kafka is involved.
 * <p>
 * Allocation is read per thread from the JVM ({@code com.sun.management.ThreadMXBean}): the task thread's bytes
 * around each put() call (the records were built before the clock started) and the insert threads' bytes.
 */
final class TaskPath {
    /** What one run measured. */
    record Result(long rows, long nanos, int putCalls, long putThreadBytes, long insertThreadBytes, long peakHeapBytes,
            long heapBeforeBytes, int pauses, long putCpuNanos, long insertCpuNanos, ProcessCpu.Sample[] cpu,
            Map<String, Long> threadCpuNanos, long steadyPutBytes, long steadyRecords) {
    }

    private static final String TASK_CLASS = "io.chsink.connect.ClickHouseSinkTask";
    private static final long MAX_WAIT_NANOS = 30L * 60 * 1_000_000_000L;

    private TaskPath() {
    }

    /**
     * Runs the task over {@code records} (in order, partitions as the records say) with the given task properties
     * and {@code batch} records per put().
     */
    static Result run(List<SinkRecord> records, Map<String, String> taskProps, int batch, ProcessCpu... meters)
            throws Exception {
        Map<TopicPartition, Long> end = new HashMap<>();
        for (SinkRecord r : records) {
            end.merge(new TopicPartition(r.topic(), r.kafkaPartition()), r.kafkaOffset() + 1, Math::max);
        }
        // What Connect's WorkerSinkTask records per delivered record (the next offset of each partition), worked out per
        // batch before the clock starts: the harness's own bookkeeping is not the task's cost.
        List<Map<TopicPartition, OffsetAndMetadata>> batchOffsets = new ArrayList<>();
        for (int from = 0; from < records.size(); from += batch) {
            Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
            for (SinkRecord r : records.subList(from, Math.min(records.size(), from + batch))) {
                m.put(new TopicPartition(r.topic(), r.kafkaPartition()), new OffsetAndMetadata(r.kafkaOffset() + 1));
            }
            batchOffsets.add(m);
        }
        Context context = new Context(end.keySet(), taskProps);
        SinkTask task = (SinkTask) ConnectorClasses.load(TASK_CLASS).getDeclaredConstructor().newInstance();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        task.initialize(context);
        task.start(taskProps);
        try {
            task.open(new ArrayList<>(end.keySet()));
            System.gc();
            long heapBefore = heapUsed();
            resetHeapPeaks();
            Map<TopicPartition, OffsetAndMetadata> consumed = new HashMap<>();
            PutMeter meter = new PutMeter(threads);
            long insertCpuBefore = insertThreadCpu(threads);
            int next = 0;
            ProcessCpu.Sample[] cpu0 = new ProcessCpu.Sample[meters.length];
            for (int i = 0; i < meters.length; i++) {
                cpu0[i] = meters[i].sample();
            }
            Map<String, Long> threads0 = ThreadCpu.sample();
            long start = System.nanoTime();
            while (true) {
                List<SinkRecord> delivered;
                Map<TopicPartition, OffsetAndMetadata> deliveredOffsets = Map.of();
                if (next < records.size() && context.paused.isEmpty()) {
                    delivered = records.subList(next, Math.min(records.size(), next + batch));
                    deliveredOffsets = batchOffsets.get(next / batch);
                    next += delivered.size();
                } else {
                    // Connect polls for the timeout the task asked for (it never polls paused partitions) and
                    // calls put() with whatever came: nothing here.
                    sleepMillis(Math.max(1, Math.min(context.takeTimeout(), 100)));
                    delivered = List.of();
                }
                meter.put(task, delivered, context.commitRequests >= 2);
                consumed.putAll(deliveredOffsets);
                if (context.rewound) {
                    throw new IllegalStateException("the task rewound partitions (context.offset) during the benchmark");
                }
                if (context.takeCommitRequest() || next == records.size()) {
                    Map<TopicPartition, OffsetAndMetadata> committable = task.preCommit(new HashMap<>(consumed));
                    if (next == records.size() && allCommitted(committable, end)) {
                        break;
                    }
                }
                if (System.nanoTime() - start > MAX_WAIT_NANOS) {
                    throw new IllegalStateException("path A did not finish within 30 minutes");
                }
            }
            long nanos = System.nanoTime() - start;
            Map<String, Long> threadCpu = ThreadCpu.minus(ThreadCpu.sample(), threads0);
            ProcessCpu.Sample[] cpu = new ProcessCpu.Sample[meters.length];
            for (int i = 0; i < meters.length; i++) {
                cpu[i] = meters[i].sample().minus(cpu0[i]);
            }
            long insertBytes = insertThreadBytes(threads);
            return new Result(records.size(), nanos, meter.puts, meter.bytes, insertBytes, heapPeak(), heapBefore,
                    context.pauses, meter.cpuNanos, insertThreadCpu(threads) - insertCpuBefore, cpu, threadCpu,
                    meter.steadyBytes, meter.steadyRecords);
        } finally {
            task.close(new ArrayList<>(end.keySet()));
            task.stop();
        }
    }

    private static boolean allCommitted(Map<TopicPartition, OffsetAndMetadata> committable, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            OffsetAndMetadata o = committable.get(e.getKey());
            if (o == null || o.offset() < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** Bytes allocated so far by the task's insert threads (they live as long as the task). */
    private static long insertThreadBytes(com.sun.management.ThreadMXBean threads) {
        return sumOverInsertThreads(threads::getThreadAllocatedBytes);
    }

    /** CPU time so far of the task's insert threads (LZ4, HTTP, the server's answer). */
    private static long insertThreadCpu(com.sun.management.ThreadMXBean threads) {
        return sumOverInsertThreads(threads::getThreadCpuTime);
    }

    private static long sumOverInsertThreads(java.util.function.LongUnaryOperator perThreadId) {
        long total = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("chsink-insert-")) {
                total += Math.max(0, perThreadId.applyAsLong(t.getId()));
            }
        }
        return total;
    }

    private static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static void resetHeapPeaks() {
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                p.resetPeakUsage();
            }
        }
    }

    /** The sum of the heap pools' peaks since the reset: an upper bound of the peak heap in use. */
    private static long heapPeak() {
        long total = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                total += p.getPeakUsage().getUsed();
            }
        }
        return total;
    }

    private static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Calls put() and counts its CPU time and the bytes it allocated on this thread. A method of its own, so that the
     * JIT compiles it once in the warm-up rather than the timed loop being recompiled on the stack.
     */
    private static final class PutMeter {
        private final com.sun.management.ThreadMXBean threads;
        long cpuNanos;
        long bytes;
        long steadyBytes;
        long steadyRecords;
        int puts;

        PutMeter(com.sun.management.ThreadMXBean threads) {
            this.threads = threads;
        }

        /** @param steady whether the task's first two blocks are inserted: later blocks reuse their buffers */
        void put(SinkTask task, List<SinkRecord> records, boolean steady) {
            long before = threads.getCurrentThreadAllocatedBytes();
            long cpuBefore = threads.getCurrentThreadCpuTime();
            task.put(records);
            cpuNanos += threads.getCurrentThreadCpuTime() - cpuBefore;
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            bytes += allocated;
            if (steady) {
                steadyBytes += allocated;
                steadyRecords += records.size();
            }
            puts++;
        }
    }

    /** What Connect's WorkerSinkTaskContext does, minus the consumer: remembers what the task asked for. */
    private static final class Context implements SinkTaskContext {
        private final Set<TopicPartition> assignment;
        private final Map<String, String> configs;
        final Set<TopicPartition> paused = new HashSet<>();
        private long timeout = -1;
        private boolean commitRequested;
        /** How many times the task asked for a commit: once per verified block, or more. */
        int commitRequests;
        boolean rewound;
        int pauses;

        Context(Collection<TopicPartition> assignment, Map<String, String> configs) {
            this.assignment = Set.copyOf(assignment);
            this.configs = configs;
        }

        long takeTimeout() {
            long t = timeout;
            timeout = -1;
            return t < 0 ? 100 : t;
        }

        boolean takeCommitRequest() {
            boolean r = commitRequested;
            commitRequested = false;
            return r;
        }

        @Override
        public Map<String, String> configs() {
            return configs;
        }

        @Override
        public void offset(Map<TopicPartition, Long> offsets) {
            rewound = true;
        }

        @Override
        public void offset(TopicPartition tp, long offset) {
            rewound = true;
        }

        @Override
        public void timeout(long timeoutMs) {
            timeout = timeoutMs;
        }

        @Override
        public Set<TopicPartition> assignment() {
            return assignment;
        }

        @Override
        public void pause(TopicPartition... partitions) {
            if (paused.isEmpty()) {
                pauses++;
            }
            paused.addAll(List.of(partitions));
        }

        @Override
        public void resume(TopicPartition... partitions) {
            paused.removeAll(List.of(partitions));
        }

        @Override
        public void requestCommit() {
            commitRequested = true;
            commitRequests++;
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return null;
        }
    }
}
