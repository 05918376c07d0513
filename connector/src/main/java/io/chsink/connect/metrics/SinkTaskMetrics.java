package io.chsink.connect.metrics;

import io.chsink.connect.block.TableBlock;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.writer.InsertFailure;
import io.chsink.connect.writer.InsertListener;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * The metrics of one task, registered as JMX MBeans (one for the task, one per target table) and logged as a
 * summary line every {@value #SUMMARY_INTERVAL_MS} ms. Counters are updated by the task thread and the insert
 * threads; gauges are set by the task thread after each put().
 */
public final class SinkTaskMetrics extends Counters implements SinkTaskMetricsMBean, InsertListener {
    public static final String DOMAIN = "io.chsink.connect";
    static final long SUMMARY_INTERVAL_MS = 60_000;
    private static final Pattern TASK_CONTEXT = Pattern.compile("\\|task-(\\d+)\\]");
    private static final AtomicInteger UNNAMED = new AtomicInteger();

    private final String connector;
    private final String task;
    private final Map<TableId, TableMetrics> tables = new ConcurrentHashMap<>();
    private final List<ObjectName> registered = new ArrayList<>();
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final LongAdder received = new LongAdder();
    private final LongAdder tombstones = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    private final LongAdder retriableExceptions = new LongAdder();
    private final LongAdder currentRowReads = new LongAdder();
    private final LongAdder pollsHeld = new LongAdder();
    private final LongAdder keyChangeWaits = new LongAdder();
    private final LongAdder currentRowReadMs = new LongAdder();
    private final LongAdder currentRowCacheHits = new LongAdder();
    private volatile long bufferedBytes;
    private volatile long recordsBehind;
    private volatile long failingSinceMs;
    private long lastLogMs = System.currentTimeMillis();
    private long rowsAtLastLog;

    public SinkTaskMetrics(String connector, String task) {
        this.connector = connector;
        this.task = task;
    }

    /** The task number from Connect's log context of the calling thread ({@code [name|task-N] }), if set. */
    public static String taskFromContext() {
        String ctx = MDC.get("connector.context");
        Matcher m = ctx == null ? null : TASK_CONTEXT.matcher(ctx);
        return m != null && m.find() ? m.group(1) : "unnamed-" + UNNAMED.incrementAndGet();
    }

    public ObjectName taskObjectName() throws JMException {
        return new ObjectName(DOMAIN + ":type=sink-task-metrics,connector=" + ObjectName.quote(connector) + ",task="
                + ObjectName.quote(task));
    }

    private ObjectName tableObjectName(TableId table) throws JMException {
        return new ObjectName(DOMAIN + ":type=sink-table-metrics,connector=" + ObjectName.quote(connector) + ",task="
                + ObjectName.quote(task) + ",table=" + ObjectName.quote(table.toString()));
    }

    /** Registers the task's MBean (replacing a stale one of the same name, left by a task that did not stop). */
    public void register(Logger log) {
        register(log, this, () -> taskObjectName());
    }

    private interface Name {
        ObjectName get() throws JMException;
    }

    private synchronized void register(Logger log, Object bean, Name name) {
        try {
            ObjectName n = name.get();
            if (server.isRegistered(n)) {
                server.unregisterMBean(n);
            }
            server.registerMBean(bean, n);
            registered.add(n);
        } catch (JMException | RuntimeException e) {
            log.warn("Cannot register JMX metrics: {}", e.toString());
        }
    }

    public synchronized void unregister() {
        for (ObjectName n : registered) {
            try {
                if (server.isRegistered(n)) {
                    server.unregisterMBean(n);
                }
            } catch (JMException e) {
                // gone already
            }
        }
        registered.clear();
    }

    private TableMetrics table(TableId table) {
        TableMetrics t = tables.get(table);
        if (t == null) {
            TableMetrics created = new TableMetrics();
            t = tables.putIfAbsent(table, created);
            if (t == null) {
                t = created;
                register(org.slf4j.LoggerFactory.getLogger(SinkTaskMetrics.class), created, () -> tableObjectName(table));
            }
        }
        return t;
    }

    // ---- updates ----

    public void received(int records) {
        received.add(records);
    }

    public void tombstone() {
        tombstones.increment();
    }

    /** A record that writes no row in the cdc.mode (e.g. a Debezium tombstone after a delete). */
    /** A read of current rows from a target table (cdc.mode=debezium) that took {@code ms}. */
    public void currentRowRead(long ms) {
        currentRowReads.increment();
        currentRowReadMs.add(ms);
    }

    /** A poll held back so that one read of current rows serves it with the polls after it (cdc.read.polls). */
    public void pollHeld() {
        pollsHeld.increment();
    }

    /** The create of a primary-key change is read again: its old key's delete is not in the table yet. */
    public void recordWaited() {
        keyChangeWaits.increment();
    }

    @Override
    public long getKeyChangeWaits() {
        return keyChangeWaits.sum();
    }

    @Override
    public long getPollsHeldForReads() {
        return pollsHeld.sum();
    }

    /** A current row found in the task's cache of recent rows (cdc.mode=debezium): no read of the table. */
    public void currentRowCacheHit() {
        currentRowCacheHits.increment();
    }

    @Override
    public long getCurrentRowCacheHits() {
        return currentRowCacheHits.sum();
    }

    @Override
    public long getCurrentRowReads() {
        return currentRowReads.sum();
    }

    @Override
    public long getCurrentRowReadMs() {
        return currentRowReadMs.sum();
    }

    public void skipped() {
        skipped.increment();
    }

    public void badRecord(TableId table) {
        dlq.increment();
        if (table != null) {
            table(table).dlq.increment();
        }
    }

    /** A block verified in ClickHouse. */
    /** A verified block: its rows, less those ClickHouse refused ({@code refused}), are in the table. */
    public void inserted(TableBlock block, int refused) {
        inserted(block.rows() - refused, block.sizeInBytes());
        table(block.table()).inserted(block.rows() - refused, block.sizeInBytes());
    }

    public void retriableException() {
        retriableExceptions.increment();
    }

    /** The gauges, as the task thread sees them after a put(). */
    public void gauges(long bufferedBytes, long recordsBehind, long failingSinceMs) {
        this.bufferedBytes = bufferedBytes;
        this.recordsBehind = recordsBehind;
        this.failingSinceMs = failingSinceMs;
    }

    @Override
    public void retried(TableBlock block, InsertFailure failure) {
        retries.increment();
        table(block.table()).retries.increment();
    }

    @Override
    public void attempted(TableBlock block, long elapsedMs, boolean success) {
        if (success) {
            latency(elapsedMs);
            table(block.table()).latency(elapsedMs);
        }
    }

    /** Logs the summary line if the interval has passed (task thread only). */
    public void maybeLog(Logger log, long nowMs) {
        if (nowMs - lastLogMs < SUMMARY_INTERVAL_MS) {
            return;
        }
        long rate = (rows.sum() - rowsAtLastLog) * 1000 / Math.max(1, nowMs - lastLogMs);
        log.info("{}; {} rows/s over the last {} s", this, rate, (nowMs - lastLogMs) / 1000);
        lastLogMs = nowMs;
        rowsAtLastLog = rows.sum();
    }

    @Override
    public String toString() {
        return String.format("records received=%d, rows inserted=%d in %d blocks (%d bytes, mean insert %.0f ms, "
                + "max %d ms), retries=%d, tombstones skipped=%d, records without a row=%d, bad records reported=%d, "
                + "buffered bytes=%d, records behind=%d%s", received.sum(), rows.sum(), blocks.sum(), bytes.sum(),
                latencyAvgMs(), latencyMaxMs(), retries.sum(), tombstones.sum(), skipped.sum(), dlq.sum(),
                bufferedBytes, recordsBehind, currentRowReads.sum() == 0 && currentRowCacheHits.sum() == 0 ? ""
                        : ", current-row reads=" + currentRowReads.sum() + " (" + currentRowReadMs.sum() + " ms), "
                        + "current-row cache hits=" + currentRowCacheHits.sum() + ", polls held for reads="
                        + pollsHeld.sum());
    }

    // ---- MBean ----

    @Override
    public long getRecordsReceived() {
        return received.sum();
    }

    @Override
    public long getTombstonesSkipped() {
        return tombstones.sum();
    }

    @Override
    public long getRecordsWithoutRow() {
        return skipped.sum();
    }

    @Override
    public long getBufferedBytes() {
        return bufferedBytes;
    }

    @Override
    public long getRecordsBehind() {
        return recordsBehind;
    }

    @Override
    public long getFailingForMs() {
        long since = failingSinceMs;
        return since == 0 ? 0 : Math.max(0, System.currentTimeMillis() - since);
    }

    @Override
    public long getRetriableExceptions() {
        return retriableExceptions.sum();
    }
}
