package io.chsink.connect.writer;

import io.chsink.connect.block.TableBlock;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs inserts off the task thread so that encoding the next block overlaps the server ingesting this one.
 * At most {@code perTable} inserts per table are in flight (1 keeps a partition's blocks landing in order, as
 * exactly_once and the order-sensitive engines of {@link InsertOrder} need) and at most {@code concurrency} in all.
 * Retriable failures are retried in place with exponential backoff and jitter; a permanent failure completes the
 * block as failed.
 *
 * <p>Only the task thread calls this class; worker threads only run {@link Inserter#insert}.
 */
public final class InsertPipeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InsertPipeline.class);

    /** The outcome of one block. */
    public static final class Completion {
        public final TableBlock block;
        public final long writtenRows;
        public final InsertFailure failure;
        public final long elapsedMs;
        /**
         * The rows ClickHouse refused on their own ({@link Narrowing}); the block's other rows are inserted. Empty
         * for a block inserted whole.
         */
        public final List<Narrowing.Refused> refused;

        Completion(TableBlock block, long writtenRows, InsertFailure failure, long elapsedMs) {
            this(block, writtenRows, failure, elapsedMs, List.of());
        }

        Completion(TableBlock block, long writtenRows, InsertFailure failure, long elapsedMs,
                List<Narrowing.Refused> refused) {
            this.block = block;
            this.writtenRows = writtenRows;
            this.failure = failure;
            this.elapsedMs = elapsedMs;
            this.refused = refused;
        }
    }

    private final Inserter inserter;
    private final ExecutorService executor;
    private final Map<TableId, List<InFlight>> inFlight = new HashMap<>();
    /** Per table: how many of its inserts may be in flight together (asked at each look, so it may change). */
    private final ToIntFunction<TableId> perTable;
    private final ConcurrentLinkedQueue<Completion> completed = new ConcurrentLinkedQueue<>();
    private final Object signal = new Object();
    private final RetryPolicy retry;
    private final InsertListener listener;
    /** Whether narrowing a refused block stops at its first refused row (errors.tolerance=none). */
    private volatile boolean firstRefusalOnly;
    /** Per in-flight block failing retriably: when its first failed attempt began, and why. */
    private final Map<TableBlock, Failing> failing = new java.util.concurrent.ConcurrentHashMap<>();

    /** Since when a block has been failing, and its last failure. */
    public static final class Failing {
        public final long sinceMs;
        public final InsertFailure last;
        public final int attempts;

        public Failing(long sinceMs, InsertFailure last, int attempts) {
            this.sinceMs = sinceMs;
            this.last = last;
            this.attempts = attempts;
        }
    }

    private static final class InFlight {
        final TableBlock block;
        final Future<?> future;

        InFlight(TableBlock block, Future<?> future) {
            this.block = block;
            this.future = future;
        }
    }

    public InsertPipeline(Inserter inserter, int concurrency, String threadName) {
        this(inserter, concurrency, 1, threadName, new RetryPolicy(200, Long.MAX_VALUE), InsertListener.NONE);
    }

    public InsertPipeline(Inserter inserter, int concurrency, int perTable, String threadName, RetryPolicy retry,
            InsertListener listener) {
        this(inserter, concurrency, t -> perTable, threadName, retry, listener);
    }

    /** @param perTable per table, how many of its inserts may be in flight together (at least 1) */
    public InsertPipeline(Inserter inserter, int concurrency, ToIntFunction<TableId> perTable, String threadName,
            RetryPolicy retry, InsertListener listener) {
        this.inserter = inserter;
        this.perTable = perTable;
        this.retry = retry;
        this.listener = listener;
        this.executor = Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /** errors.tolerance=none: a refused block is narrowed only to its first refused row, which fails the task. */
    public void firstRefusalOnly(boolean only) {
        this.firstRefusalOnly = only;
    }

    /** Whether the table has as many inserts in flight as it may have. */
    public boolean busy(TableId table) {
        List<InFlight> l = inFlight.get(table);
        return l != null && l.size() >= Math.max(1, perTable.applyAsInt(table));
    }

    /** Whether some insert into the table is in flight. */
    public boolean inserting(TableId table) {
        return inFlight.containsKey(table);
    }

    public void submit(TableBlock block) {
        if (busy(block.table())) {
            throw new IllegalStateException(inFlight.get(block.table()).size() + " inserts into " + block.table()
                    + " are already in flight");
        }
        // The insert threads log with the task's Connect context ([connector|task-N]).
        Map<String, String> mdc = MDC.getCopyOfContextMap();
        Future<?> f = executor.submit(() -> {
            if (mdc != null) {
                MDC.setContextMap(mdc);
            }
            try {
                run(block);
            } finally {
                MDC.clear();
            }
        });
        inFlight.computeIfAbsent(block.table(), t -> new ArrayList<>(2)).add(new InFlight(block, f));
    }

    private void run(TableBlock block) {
        long start = System.nanoTime();
        long firstFailureMs = 0;
        int attempt = 0;
        try {
            while (true) {
                attempt++;
                long attemptStart = System.nanoTime();
                try {
                    long written = inserter.insert(block);
                    listener.attempted(block, (System.nanoTime() - attemptStart) / 1_000_000, true);
                    finish(new Completion(block, written, null, (System.nanoTime() - start) / 1_000_000));
                    return;
                } catch (Throwable t) {
                    listener.attempted(block, (System.nanoTime() - attemptStart) / 1_000_000, false);
                    InsertFailure f = t instanceof InterruptedException ? null : InsertFailure.classify(t);
                    if (f != null && f.rowLevel() && !Thread.currentThread().isInterrupted()) {
                        finish(narrow(block, f, start));
                        return;
                    }
                    if (f == null || !f.retriable() || Thread.currentThread().isInterrupted()) {
                        if (f == null) {
                            f = InsertFailure.classify(new java.io.InterruptedIOException("insert interrupted"));
                        }
                        finish(new Completion(block, 0, f, (System.nanoTime() - start) / 1_000_000));
                        return;
                    }
                    if (firstFailureMs == 0) {
                        firstFailureMs = System.currentTimeMillis();
                    }
                    failing.put(block, new Failing(firstFailureMs, f, attempt));
                    listener.retried(block, f);
                    long sleep = retry.delayMs(attempt);
                    LOG.warn("Insert of {} rows into {} failed (attempt {}), retrying in {} ms: {}", block.rows(),
                            block.table(), attempt, sleep, f.message());
                    try {
                        Thread.sleep(sleep);
                    } catch (InterruptedException ie) {
                        finish(new Completion(block, 0, f, (System.nanoTime() - start) / 1_000_000));
                        return;
                    }
                }
            }
        } finally {
            failing.remove(block);
        }
    }

    /**
     * ClickHouse refused the block for some of its rows: inserts the others ({@link Narrowing}); the completion names
     * the rows refused, or the failure that stopped the narrowing.
     */
    private Completion narrow(TableBlock block, InsertFailure first, long start) {
        LOG.warn("ClickHouse refused the block of {} rows into {} for some of its rows ({}); inserting it in parts "
                + "to find them", block.rows(), block.table(), first.message());
        Narrowing.Result r;
        try {
            r = Narrowing.run(block.rows(), first, (from, to) -> attemptPart(block, from, to), firstRefusalOnly);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Completion(block, 0, InsertFailure.classify(new java.io.InterruptedIOException(
                    "insert interrupted while narrowing a refused block")), (System.nanoTime() - start) / 1_000_000);
        }
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        if (r.failure != null) {
            return new Completion(block, r.insertedRows, r.failure, elapsed);
        }
        LOG.info("Inserted {} of {} rows into {} in {} inserts; {} rows refused by ClickHouse", r.insertedRows,
                block.rows(), block.table(), r.inserts, r.refused.size());
        return new Completion(block, r.insertedRows, null, elapsed, r.refused);
    }

    /** One part of a block being narrowed, retried like a whole block while its failure is retriable. */
    private InsertFailure attemptPart(TableBlock block, int from, int to) throws InterruptedException {
        long firstFailureMs = 0;
        for (int attempt = 1;; attempt++) {
            try {
                inserter.insert(block, from, to);
                failing.remove(block);
                return null;
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                InsertFailure f = InsertFailure.classify(e);
                if (!f.retriable()) {
                    failing.remove(block);
                    return f;
                }
                if (firstFailureMs == 0) {
                    firstFailureMs = System.currentTimeMillis();
                }
                failing.put(block, new Failing(firstFailureMs, f, attempt));
                listener.retried(block, f);
                long sleep = retry.delayMs(attempt);
                LOG.warn("Insert of rows {} to {} of the block into {} failed (attempt {}), retrying in {} ms: {}",
                        from, to - 1, block.table(), attempt, sleep, f.message());
                Thread.sleep(sleep);
            }
        }
    }

    /**
     * The longest-failing in-flight block: retriable failures since {@code sinceMs}, still being retried; null when
     * no insert is failing.
     */
    public Failing failing() {
        Failing worst = null;
        for (Failing f : failing.values()) {
            if (worst == null || f.sinceMs < worst.sinceMs) {
                worst = f;
            }
        }
        return worst;
    }

    private void finish(Completion c) {
        failing.remove(c.block);
        completed.add(c);
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    /** Completed blocks since the last call; their tables are free for the next insert. */
    public List<Completion> drain() {
        List<Completion> out = new ArrayList<>();
        Completion c;
        while ((c = completed.poll()) != null) {
            List<InFlight> l = inFlight.get(c.block.table());
            if (l != null) {
                TableBlock done = c.block;
                l.removeIf(f -> f.block == done);
                if (l.isEmpty()) {
                    inFlight.remove(done.table());
                }
            }
            out.add(c);
        }
        return out;
    }

    /** Waits until every in-flight insert completes or the timeout passes; returns false on timeout. */
    public boolean awaitAll(long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        for (InFlight f : all()) {
            if (!awaitFuture(f.future, Math.max(0, deadline - System.currentTimeMillis()))) {
                return false;
            }
        }
        return true;
    }

    /** Waits until some insert completes or the timeout passes. */
    public void awaitAny(long timeoutMs) throws InterruptedException {
        if (!completed.isEmpty() || inFlight.isEmpty()) {
            return;
        }
        synchronized (signal) {
            if (completed.isEmpty()) {
                signal.wait(Math.max(1, timeoutMs));
            }
        }
    }

    private static boolean awaitFuture(Future<?> f, long timeoutMs) throws InterruptedException {
        try {
            f.get(timeoutMs, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException e) {
            return true;
        }
    }

    private List<InFlight> all() {
        List<InFlight> out = new ArrayList<>();
        for (List<InFlight> l : inFlight.values()) {
            out.addAll(l);
        }
        return out;
    }

    public Collection<TableBlock> inFlightBlocks() {
        List<TableBlock> out = new ArrayList<>();
        for (InFlight f : all()) {
            out.add(f.block);
        }
        return out;
    }

    public long inFlightBytes() {
        long total = 0;
        for (List<InFlight> l : inFlight.values()) {
            for (InFlight f : l) {
                total += f.block.heldBytes();
            }
        }
        return total;
    }

    public boolean isEmpty() {
        return inFlight.isEmpty();
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
