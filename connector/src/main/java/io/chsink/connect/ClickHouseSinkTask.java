package io.chsink.connect;

import io.chsink.connect.block.Backpressure;
import io.chsink.connect.block.BlockBuffer;
import io.chsink.connect.block.BlockKey;
import io.chsink.connect.block.BlockRecycler;
import io.chsink.connect.block.BlockSizing;
import io.chsink.connect.block.TableBlock;
import io.chsink.connect.cdc.NullDefaults;
import io.chsink.connect.cdc.RowSource;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.config.TableRouter;
import io.chsink.connect.delivery.Delivery;
import io.chsink.connect.evolve.TableEvolution;
import io.chsink.connect.mapping.MissingTables;
import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.metrics.SinkTaskMetrics;
import io.chsink.connect.offset.AssignedPartitions;
import io.chsink.connect.offset.ClosingCommit;
import io.chsink.connect.offset.Consumption;
import io.chsink.connect.offset.DeferredSeeks;
import io.chsink.connect.offset.HeldPolls;
import io.chsink.connect.offset.OffsetTracker;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.offset.RefusedRows;
import io.chsink.connect.offset.Rewinds;
import io.chsink.connect.offset.WaitingPartitions;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.writer.InsertLimits;
import io.chsink.connect.writer.InsertPipeline;
import io.chsink.connect.writer.Narrowing;
import io.chsink.connect.writer.RetryBudget;
import io.chsink.connect.writer.RetryPolicy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline of one task: each record goes to the block its {@link Delivery} picks, full or due blocks go to the
 * insert pipeline, verified blocks let their offsets be committed. What differs between delivery guarantees is in
 * the Delivery; the memory bound is {@link Backpressure}'s; seeking back over dropped blocks is {@link Rewinds}'.
 */
public class ClickHouseSinkTask extends SinkTask {
    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseSinkTask.class);
    /** How often a table's columns are re-read, when a new block for it starts. */
    private static final long SCHEMA_RECHECK_MS = 30_000;
    /** How long a task with blocks waiting or in flight waits between looks at its inserts. */
    private static final long PAUSED_POLL_MS = 50;
    /** A poll that brought nothing for this long means the partitions went quiet: the end of a burst goes at once. */
    private static final long IDLE_MS = 100;
    private static final long INSERT_TIMEOUT_MS = 300_000;
    /** How long a revocation waits for in-flight inserts before handing the partitions over anyway. */
    private static final long CLOSE_WAIT_MS = 30_000;
    private static final long COMMIT_WAIT_MS = 30_000;
    private static final int INSERT_CONCURRENCY = 4;

    /** Makes the task's collaborators that talk to ClickHouse, at start ({@link ClickHouseParts}). */
    private final Function<SinkConfig, ClickHouseParts> connect;
    private SinkConfig config;
    private ClickHouseParts parts;
    private TableRouter router;
    private BlockBuffer buffer;
    /** Polls not yet appended, so that one read of current rows serves several (cdc.read.polls). */
    private HeldPolls heldPolls;
    private BlockRecycler recycler;
    private InsertPipeline pipeline;
    private ErrantRecordReporter reporter;
    private Delivery delivery;
    private RowSource rows;
    private TableEvolution evolution;
    private TableMappings tables;
    private Backpressure backpressure;
    private Rewinds rewinds;
    /** Partitions paused while a record of theirs waits (the create of a primary-key change). */
    private WaitingPartitions waiting;
    /** Rows ClickHouse refused whose records are read again to be reported. */
    private RefusedRows refused;
    private DeferredSeeks seeks;
    /** The task's partitions; on a worker without KIP-793 it refuses records that transforms moved. */
    private final AssignedPartitions assigned = AssignedPartitions.forWorker();
    private ConnectException fatal;
    /** When put() last received records. */
    private long lastRecordsMs;
    /** The time of the batch being appended (a block opened for it starts then). */
    private long batchMs;
    private SinkTaskMetrics stats;
    private RetryBudget retryBudget;

    public ClickHouseSinkTask() {
        this(ClickHouseParts::connect);
    }

    /** A task whose collaborators that talk to ClickHouse are {@code connect}'s (stand-ins in a unit test). */
    ClickHouseSinkTask(Function<SinkConfig, ClickHouseParts> connect) {
        this.connect = connect;
    }

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        config = new SinkConfig(props);
        String nulls = NullDefaults.problem(config.debeziumCdc(), config.cdcNullDefaults(), props);
        if (nulls != null) {
            throw new ConnectException(nulls); // as validate() does, for connectors it never checked
        }
        parts = connect.apply(config);
        router = new TableRouter(config);
        buffer = new BlockBuffer(config.flushMaxRows(), config.flushMaxBytes(), config.flushIntervalMs());
        recycler = new BlockRecycler(BlockSizing.spareBytes(config.flushMaxBytes()));
        String name = props.getOrDefault("name", "task");
        stats = new SinkTaskMetrics(props.getOrDefault("name", "unnamed"), SinkTaskMetrics.taskFromContext());
        stats.register(LOG);
        RetryPolicy retry = new RetryPolicy(config.retryBackoffMs(), config.retryTimeoutMs());
        retryBudget = new RetryBudget(retry);
        seeks = new DeferredSeeks(Consumption.of(context));
        Consumption consumption = seeks;
        delivery = parts.delivery(buffer, this::openBlock, name, this::partitionsOf, consumption);
        rows = parts.rows(stats::currentRowRead, stats::currentRowCacheHit);
        evolution = parts.evolution();
        InsertLimits limits = parts.limits(delivery.insertsPerTable()); // per table, from its engine
        pipeline = new InsertPipeline(parts.inserter(INSERT_TIMEOUT_MS, delivery::beforeAttempt),
                INSERT_CONCURRENCY, limits, "chsink-insert-" + name, retry, stats);
        pipeline.firstRefusalOnly(!config.tolerateErrors());
        backpressure = new Backpressure(config.bufferMaxBytes(), consumption);
        heldPolls = new HeldPolls(config.debeziumCdc() ? config.cdcReadPolls() : 1);
        refused = new RefusedRows(consumption);
        rewinds = new Rewinds(consumption, heldPolls, refused);
        waiting = new WaitingPartitions(consumption);
        try {
            reporter = context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            reporter = null; // Connect before 2.6
        }
        tables = new TableMappings(parts.schemas(), router, config,
                config.tolerateErrors() && reporter != null, t -> {
                    parts.checkTarget(t);
                    delivery.checkTable(t);
                    rows.checkTable(t);
                    limits.checkTable(t);
                }, limits::prefetch, SCHEMA_RECHECK_MS, rows.nullsTakeDefaults(), evolution);
        LOG.info("ClickHouse sink task started: {} as user '{}', database '{}', {} delivery, cdc.mode {}, tables {}",
                config.url(), config.user(), config.database(), delivery.name(), rows.name(), evolution.name());
    }

    @Override
    public void put(Collection<SinkRecord> delivered) {
        try {
            process(delivered);
        } finally {
            seeks.flush();
        }
    }

    private void process(Collection<SinkRecord> delivered) {
        refused.batchStarts(assigned.lastOffsets(), rewinds.pending()); // Connect made the seeks asked for before
        collectCompletions();
        if (fatal != null) {
            throw fatal;
        }
        assigned.received(delivered);
        long now = System.currentTimeMillis();
        batchMs = now;
        waiting.resumeDue(now, backpressure.isPaused());
        if (!delivered.isEmpty()) {
            retryBudget.check(pipeline.failing(), now, context, stats::retriableException);
        }
        stats.received(delivered.size());
        Collection<SinkRecord> records = delivery.admit(refused.filter(delivered, this::reportRefused));
        tables.resolve(records, now);
        Collection<SinkRecord> batch = heldPolls.with(records);
        if (rows.prepare(batch, heldPolls.mayHold(records, now))) {
            heldPolls.clear();
            appendAll(batch);
        } else {
            heldPolls.hold(records, now); // appended with a later poll, after one read for all
            stats.pollHeld();
        }
        if (!delivered.isEmpty()) {
            lastRecordsMs = now;
        } else if (now - lastRecordsMs >= IDLE_MS) {
            buffer.sealBurstEnd(); // the end of a burst: no reason to wait for flush.interval.ms
        }
        buffer.sealDue(now, t -> !pipeline.busy(t) && !buffer.hasSealed(t));
        // Sealing and submitting move blocks between buffer and pipeline: the bytes held stay the same.
        long held = heldBytes();
        if (backpressure.atBound(held)) {
            // At the bound the blocks of tables with no insert running go at once; those of busy tables wait (their
            // bytes leave with the inserts running, and consumption pauses meanwhile).
            buffer.sealAll(t -> !pipeline.inserting(t) && !buffer.hasSealed(t));
        }
        submitSealed();
        backpressure.apply(held, context::assignment, delivery.mustComplete(), now, () -> describe(now));
        pacePolls();
        rewinds.batchDone();
        updateGauges(held);
        stats.maybeLog(LOG, now);
    }

    private void appendAll(Collection<SinkRecord> records) {
        // Consecutive records mostly come from one topic: its table (and, as the delivery allows, its open block)
        // are looked up once per run.
        String lastTopic = null;
        TableId table = null;
        TableBlock open = null;
        for (SinkRecord r : records) {
            if (rewinds.skip(r)) {
                continue;
            }
            if (!r.topic().equals(lastTopic)) {
                lastTopic = r.topic();
                table = router.tableFor(lastTopic);
                open = null;
            }
            open = append(r, table, open);
        }
    }

    /**
     * Appends one record to the block its delivery picks (or reports it as a bad record); returns the block the next
     * record of the same topic can go to without a lookup, or null. A method of its own so that the JIT compiles
     * the per-record work apart from the per-batch work of put().
     */
    private TableBlock append(SinkRecord record, TableId table, TableBlock open) {
        SinkRecord r = rowOf(record, table);
        if (r == null) {
            return open; // no row: skipped, counted or reported
        }
        TableBlock block = delivery.blockFor(r, table, open);
        if (block == null || evolution.mustEvolve(block.mapping(), r)) {
            block = blockBeyondItsTable(r, table, block);
            if (block == null) {
                return null;
            }
        }
        try {
            block.append(r);
        } catch (RecordMappingException e) {
            reportBadRecord(r, e, table);
            delivery.skipped(r, table);
            return open;
        }
        rows.appended(r, block, block.table());
        return delivery.appended(r, table, block);
    }

    /**
     * The row the record writes (cdc.mode), or null when it writes none: a record without a row (counted), a
     * tombstone (skipped or reported), or a record its row source cannot read (reported).
     */
    private SinkRecord rowOf(SinkRecord record, TableId table) {
        SinkRecord r;
        try {
            r = rows.toRow(record);
        } catch (RecordMappingException e) {
            reportBadRecord(record, e, table);
            delivery.skipped(record, table);
            return null;
        } catch (RowSource.NotYet e) {
            rewinds.rewindTo(record, e.getMessage()); // it and the rest of its partition come again
            waiting.waiting(Origin.of(record), batchMs); // after a pause, not at the next poll
            stats.recordWaited();
            return null;
        }
        if (r == null) {
            stats.skipped();
            delivery.skipped(record, table);
            return null;
        }
        if (r.value() == null) {
            if (config.failOnTombstones()) {
                reportBadRecord(r, RecordMappingException.tombstone(r, table), table);
            } else {
                stats.tombstone();
            }
            delivery.skipped(r, table);
            return null;
        }
        return r;
    }

    /**
     * The rare case, kept out of {@link #append} so the per-record method stays small: the row's table does not exist
     * ({@code block} null) or lacks columns the row has. Creates or evolves the table as the
     * {@link TableEvolution} allows; returns the block the row goes to, or null when it was handled otherwise
     * (reported as a bad record, or its partition rewound so that it comes again).
     */
    private TableBlock blockBeyondItsTable(SinkRecord r, TableId table, TableBlock block) {
        try {
            if (block == null && tables.create(rows.forCreate(r), table, batchMs)) {
                block = delivery.blockFor(r, table, null); // auto.create made the table
            }
            if (block != null && evolution.mustEvolve(block.mapping(), r)) {
                block = evolve(r, block);
                if (block == null) {
                    return null; // its partition was rewound: the record comes again
                }
            }
        } catch (RecordMappingException e) {
            reportBadRecord(r, e, table);
            delivery.skipped(r, table);
            return null;
        }
        if (block == null) {
            reportBadRecord(r, MissingTables.report(r, table), table); // only when tolerated: else loading threw
        }
        return block;
    }

    /**
     * auto.evolve: the row has fields that the table of its block lacked when the block was opened. The table gets
     * them (or already has them: another task or connector added them), and the row goes to a block of the new
     * mapping: the old block is sealed as it is (its rows are valid for the wider table), or, when it is the rebuild
     * of a recorded block (exactly_once), which only its last record may seal, dropped with the table's other blocks
     * and its partitions rewound, as for a table changed under a block. Null when the row's own partition was
     * rewound.
     */
    private TableBlock evolve(SinkRecord r, TableBlock block) {
        TableId table = block.table();
        TableMapping now = tables.evolve(r, table, block.mapping(), batchMs);
        if (now == block.mapping()) {
            return block;
        }
        if (block.isReplay()) {
            List<TableBlock> dropped = new ArrayList<>(buffer.clear(table));
            dropped.forEach(rows::blockDropped);
            rewinds.rewind(dropped, tp -> true, "table " + table + " gained columns while a recorded block was "
                    + "being rebuilt for its old columns");
            if (rewinds.skip(r)) {
                return null;
            }
        } else {
            buffer.seal(block.key());
        }
        return delivery.blockFor(r, router.tableFor(r.topic()), null);
    }

    /** The key's open block, or a new one for the table's current mapping; null when the table is missing. */
    private TableBlock openBlock(BlockKey key, String topic) {
        TableBlock block = buffer.open(key);
        if (block != null) {
            return block;
        }
        TableMapping mapping = tables.forNewBlock(key.table(), topic, batchMs);
        if (mapping == null) {
            return null;
        }
        block = recycler.newBlock(key, mapping, BlockSizing.initialRows(config.flushMaxRows()), batchMs);
        buffer.putOpen(block);
        return block;
    }

    private void reportBadRecord(SinkRecord r, RecordMappingException e, TableId table) {
        if (config.tolerateErrors() && reporter != null) {
            stats.badRecord(table);
            LOG.warn("Sending record to the error reporter: {}", e.getMessage());
            reporter.report(r, e);
            return;
        }
        throw new ConnectException(e.getMessage(), e);
    }

    /**
     * ClickHouse refused some rows of a verified block (its other rows are in): with {@code errors.tolerance=all}
     * their records are read again and reported ({@link RefusedRows}); else the task fails with the first of them.
     */
    private void refusedRows(InsertPipeline.Completion c) {
        for (Narrowing.Refused x : c.refused) {
            TopicPartition tp = c.block.rowPartition(x.row);
            long offset = c.block.rowOffset(x.row);
            String why = String.format("Cannot write record topic=%s partition=%d offset=%d: ClickHouse refused its "
                    + "row in table %s: %s", tp.topic(), tp.partition(), offset, c.block.table().quoted(),
                    x.failure.message());
            if (!config.tolerateErrors() || reporter == null) {
                if (fatal == null) {
                    fatal = new ConnectException(why + " (" + c.refused.size() + " of the block's " + c.block.rows()
                            + " rows refused, " + c.writtenRows + " inserted; with errors.tolerance=all "
                            + "refused rows go to the dead-letter queue)");
                    LOG.error(fatal.getMessage());
                }
                return;
            }
            if (assigned.owns(tp)) { // else revoked meanwhile: its next owner reads it from before this block
                refused.refused(tp, offset, delivery.refusedHoldFrom(c.block, tp, offset), why);
            }
        }
        refused.seekBack(rewinds.pending());
    }

    /** A record whose row ClickHouse refused, read again: to the error reporter (dead-letter queue). */
    private void reportRefused(SinkRecord r, String why) {
        stats.badRecord(router.tableFor(r.topic()));
        LOG.warn("Sending record to the error reporter: {}", why);
        reporter.report(r, new ConnectException(why));
    }

    private void submitSealed() {
        List<TableBlock> taken;
        while (!(taken = buffer.takeSealed(t -> !pipeline.busy(t))).isEmpty()) {
            for (TableBlock b : taken) {
                delivery.beforeSubmit(b);
                pipeline.submit(b);
            }
        }
    }

    private void collectCompletions() {
        boolean verified = false;
        for (InsertPipeline.Completion c : pipeline.drain()) {
            backpressure.progressed(System.currentTimeMillis());
            if (c.failure == null) {
                verified = true;
                if (c.refused.isEmpty()) {
                    rows.blockInserted(c.block);
                } else {
                    rows.blockDropped(c.block); // not all its rows are in: none is cached as the table's
                }
                delivery.verified(c.block);
                stats.inserted(c.block, c.refused.size());
                LOG.debug("Inserted {} rows into {} in {} ms", c.block.rows(), c.block.table(), c.elapsedMs);
                if (!c.refused.isEmpty()) {
                    refusedRows(c);
                }
                recycler.offer(c.block);
            } else if (c.failure.tableMismatch() && tables.changedSince(c.block.table(), c.block.mapping())) {
                replayWithNewColumns(c.block, c.failure.message());
            } else if (fatal == null) {
                fatal = new ConnectException("Insert of " + c.block.rows() + " rows into " + c.block.table()
                        + " failed: " + c.failure.message(), c.failure.cause());
                LOG.error(fatal.getMessage());
            }
        }
        if (verified) {
            context.requestCommit();
        }
    }

    /**
     * The table changed under a block (a column dropped or retyped): its rows, and those of every later block of
     * the table, are dropped and their partitions rewound, so the records come again and are encoded for the
     * table as it is now.
     */
    private void replayWithNewColumns(TableBlock failed, String reason) {
        tables.forget(failed.table());
        List<TableBlock> dropped = new ArrayList<>(buffer.clear(failed.table()));
        dropped.add(failed);
        dropped.forEach(rows::blockDropped);
        rewinds.rewind(dropped, tp -> true, "table " + failed.table() + " changed while a block was on its way ("
                + reason + ")");
    }

    /**
     * How many of the task's partitions are routed to the table by their own topic names; when none is (transforms
     * rename the topics, so which partitions feed a table shows only as records arrive), all of them: an upper bound.
     */
    private int partitionsOf(TableId table) {
        int n = 0;
        Set<TopicPartition> all = context.assignment();
        for (TopicPartition tp : all) {
            if (router.tableFor(tp.topic()).equals(table)) {
                n++;
            }
        }
        return n > 0 ? n : all.size();
    }

    /** Bytes held in open, queued and in-flight blocks: what buffer.max.bytes bounds. */
    private long heldBytes() {
        return buffer.heldBytes() + pipeline.inFlightBytes() + rows.heldBytes();
    }

    /** How long Connect's next poll may wait for records: long enough to batch, short enough to look at inserts. */
    private void pacePolls() {
        long now = System.currentTimeMillis();
        long wait = buffer.millisUntilDue(now);
        if (backpressure.isPaused() || buffer.hasSealed() || !pipeline.isEmpty()) {
            // Due blocks left open wait for their table's insert: look again soon, not at once.
            wait = wait <= 0 ? PAUSED_POLL_MS : Math.min(wait, PAUSED_POLL_MS);
        } else if (buffer.burstOpen() || !heldPolls.isEmpty()) {
            // Poll no longer than IDLE_MS: an empty poll then tells that the partitions went quiet.
            wait = Math.min(wait, IDLE_MS);
        }
        long waited = waiting.millisUntilDue(now);
        if (waited >= 0) {
            wait = wait < 0 ? waited : Math.min(wait, waited); // a waiting partition resumes on time
        }
        if (wait >= 0) {
            context.timeout(Math.max(1, wait));
        }
    }

    /** What the task holds, for the WARN of a stalled task. */
    private String describe(long now) {
        int open = 0;
        long openBytes = 0;
        for (TableBlock b : buffer.blocks()) {
            open++;
            openBytes += b.sizeInBytes();
        }
        InsertPipeline.Failing failing = pipeline.failing();
        String d = delivery.describe(now);
        return open + " blocks open or queued (" + openBytes + " bytes), " + pipeline.inFlightBlocks().size()
                + " inserts in flight (" + pipeline.inFlightBytes() + " bytes)"
                + (failing == null ? "" : ", failing for " + (now - failing.sinceMs) / 1000 + " s: "
                        + failing.last.message())
                + (d.isEmpty() ? "" : "; " + d);
    }

    /** Publishes what the task holds to the metrics (the MBeans are read on other threads). */
    private void updateGauges(long held) {
        long behind = 0;
        for (TableBlock b : buffer.blocks()) {
            behind += b.rows();
        }
        for (TableBlock b : pipeline.inFlightBlocks()) {
            behind += b.rows();
        }
        InsertPipeline.Failing failing = pipeline.failing();
        stats.gauges(held, behind, failing == null ? 0 : failing.sinceMs);
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        boolean closing = ClosingCommit.inProgress();
        try {
            return committable(currentOffsets, closing);
        } finally {
            if (!closing) { // else close() hands them over, without the revoked partitions'
                seeks.flush();
            }
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> committable(Map<TopicPartition, OffsetAndMetadata> currentOffsets,
            boolean closing) {
        collectCompletions();
        if (fatal == null) {
            submitSealed();
            if (closing) {
                awaitInsertsBeforeClose();
            }
        }
        rewinds.batchDone(); // a rewind asked for here takes effect before the next batch
        if (fatal != null) {
            // The failed block's rows are not in the buffer any more: never commit past them.
            return new HashMap<>();
        }
        updateGauges(heldBytes());
        List<TableBlock> pending = new ArrayList<>(buffer.blocks());
        pending.addAll(pipeline.inFlightBlocks());
        Map<TopicPartition, Long> notInBlocks = new HashMap<>(rewinds.pending());
        heldPolls.firstOffsets().forEach((tp, o) -> notInBlocks.merge(tp, o, Math::min));
        delivery.uncommittable().forEach((tp, o) -> notInBlocks.merge(tp, o, Math::min));
        refused.pending().forEach((tp, o) -> notInBlocks.merge(tp, o, Math::min));
        Map<TopicPartition, OffsetAndMetadata> committable = OffsetTracker.committable(
                currentOffsets, pending, notInBlocks);
        committable.replaceAll((tp, o) -> {
            long bound = delivery.commitBound(tp, o.offset());
            return bound == o.offset() ? o : new OffsetAndMetadata(bound);
        });
        if (pipeline.failing() == null) { // during an outage the state table cannot take the marks either
            delivery.committing(committable);
        }
        return committable;
    }

    /**
     * Connect asks for offsets (this preCommit) before it closes revoked partitions, and commits nothing after
     * close(): an insert still in flight then would land with its offsets uncommitted, and the partition's next
     * owner would insert its rows again. So a closing commit ({@link ClosingCommit}) first lets the inserts in flight
     * finish (at most {@value #COMMIT_WAIT_MS} ms), unless one is failing: during an outage the commit goes on
     * without them. Ordinary commits never wait: the task goes on encoding while blocks are inserted.
     */
    private void awaitInsertsBeforeClose() {
        if (pipeline.isEmpty() || pipeline.failing() != null) {
            return;
        }
        try {
            pipeline.awaitAll(COMMIT_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        collectCompletions();
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        assigned.opened(partitions);
        tables.assigned(partitions);
        waiting.opened(partitions); // before the bound pauses them again
        backpressure.opened(partitions);
    }

    /**
     * Partitions are being revoked. The preCommit just before has let the inserts in flight finish and reported
     * their offsets; blocks not yet sent are dropped, with the partitions this task keeps rewound to their first
     * dropped record, so that no row is inserted whose offset the next owner will not know about (unless an insert
     * was failing at that commit and lands later: then its rows may arrive twice, as at-least-once allows).
     */
    @Override
    public void close(Collection<TopicPartition> partitions) {
        Set<TopicPartition> revoked = new HashSet<>(partitions);
        assigned.closed(revoked); // nothing completed below seeks them: they are the next owner's
        refused.revoked(revoked);
        seeks.revoked(revoked); // asked for in the commit just before: Connect would seek them after they are gone
        try {
            if (!pipeline.awaitAll(CLOSE_WAIT_MS)) {
                LOG.warn("Inserts still in flight while partitions {} are revoked; their rows may be inserted twice",
                        partitions);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        collectCompletions();
        heldPolls.drop(revoked);
        // A block of one partition (exactly_once) stays when its partition does (cooperative rebalancing revokes only
        // some); a block of every partition of its table goes, and the kept partitions are rewound below.
        Collection<TableBlock> dropped = buffer.clear(k -> k.partition() == null || revoked.contains(k.partition()));
        dropped.forEach(rows::blockDropped);
        rows.revoked();
        rewinds.revoked(revoked);
        waiting.revoked(revoked);
        delivery.revoked(revoked);
        backpressure.revoked(revoked);
        rewinds.rewind(dropped, tp -> !revoked.contains(tp), "their blocks were dropped when partitions "
                + partitions + " were revoked");
        rewinds.batchDone();
        seeks.flush();
    }

    @Override
    public void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
        if (parts != null) {
            parts.close();
        }
        if (stats != null) {
            stats.unregister();
        }
        LOG.info("ClickHouse sink task stopped: {}", stats);
    }
}
