package io.chsink.connect;

import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.config.TableRouter;
import io.chsink.connect.evolve.FixedTables;
import io.chsink.connect.evolve.TableEvolution;
import io.chsink.connect.mapping.MissingTables;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import io.chsink.connect.schema.TableSchemaSource;
import io.chsink.connect.writer.InsertFailure;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's knowledge of its tables' columns: the mapping each table's blocks are encoded with, read from
 * {@code system.columns} when a table is first needed and again at most every {@code recheckMs} when a new block
 * starts (a changed table gets a new mapping), and the tables found missing while bad records are tolerated.
 * Tables are created and given new columns through the {@link TableEvolution} (auto.create, auto.evolve).
 */
final class TableMappings {
    private static final Logger LOG = LoggerFactory.getLogger(TableMappings.class);

    private final TableSchemaSource loader;
    private final TableRouter router;
    private final SinkConfig config;
    private final boolean reportMissing;
    private final Consumer<TableId> firstLoadCheck;
    private final Consumer<Collection<TableId>> beforeFirstLoads;
    private final long recheckMs;
    private final boolean nullsTakeDefaults;
    private final Map<TableId, TableMapping> mappings = new HashMap<>();
    private final Map<TableId, Long> loadedAt = new HashMap<>();
    private final MissingTables missing;
    private final TableEvolution evolution;
    /** The tables of partitions assigned since the last batch: read together before its records. */
    private final java.util.Set<TableId> assigned = new java.util.LinkedHashSet<>();

    /**
     * @param reportMissing whether records for a missing table go to the error reporter (errors.tolerance=all and a
     *     reporter) instead of failing the task
     * @param firstLoadCheck runs when a table is first read (exactly_once: the deduplication window check); may throw
     * @param nullsTakeDefaults whether nulls for non-Nullable columns write the column's default (see
     *     {@link io.chsink.connect.cdc.RowSource#nullsTakeDefaults})
     */
    TableMappings(TableSchemaSource loader, TableRouter router, SinkConfig config, boolean reportMissing,
            Consumer<TableId> firstLoadCheck, long recheckMs, boolean nullsTakeDefaults) {
        this(loader, router, config, reportMissing, firstLoadCheck, t -> { }, recheckMs, nullsTakeDefaults,
                new FixedTables());
    }

    /**
     * @param beforeFirstLoads gets the tables a batch reads for the first time, before their first-load checks run
     *     one by one: a check can read what it needs of all of them at once
     * @param evolution creates missing tables and adds columns (auto.create, auto.evolve), or not
     */
    TableMappings(TableSchemaSource loader, TableRouter router, SinkConfig config, boolean reportMissing,
            Consumer<TableId> firstLoadCheck, Consumer<Collection<TableId>> beforeFirstLoads, long recheckMs,
            boolean nullsTakeDefaults, TableEvolution evolution) {
        this.beforeFirstLoads = beforeFirstLoads;
        this.nullsTakeDefaults = nullsTakeDefaults;
        this.evolution = evolution;
        this.loader = loader;
        this.router = router;
        this.config = config;
        this.reportMissing = reportMissing;
        this.firstLoadCheck = firstLoadCheck;
        this.recheckMs = recheckMs;
        this.missing = new MissingTables(recheckMs);
    }

    /**
     * Reads the columns of every table this batch needs before any record is appended: a table that cannot be
     * read right now fails the batch (Connect redelivers it) without leaving part of it in the blocks.
     */
    void resolve(Collection<SinkRecord> records, long now) {
        if (!assigned.isEmpty()) {
            prefetch(assigned, now);
            assigned.clear();
        }
        String lastTopic = null;
        Map<TableId, String> toLoad = null;
        for (SinkRecord r : records) {
            if (r.topic().equals(lastTopic)) {
                continue;
            }
            lastTopic = r.topic();
            TableId table = router.tableFor(lastTopic);
            if (!mappings.containsKey(table) && missing.due(table, now)) {
                if (toLoad == null) {
                    toLoad = new LinkedHashMap<>();
                }
                toLoad.putIfAbsent(table, lastTopic);
            }
        }
        if (toLoad == null) {
            return;
        }
        // A task of many tables reads them all with one query at its first batch, not one query per table.
        Map<TableId, TableSchema> read = toLoad.size() > 1 ? read(toLoad) : Map.of();
        beforeFirstLoads.accept(toLoad.keySet());
        for (Map.Entry<TableId, String> e : toLoad.entrySet()) {
            load(e.getKey(), e.getValue(), null, now, read);
            loadedAt.put(e.getKey(), now);
        }
    }

    /** Partitions were assigned: the next {@link #resolve} reads their tables first, in one query ({@link #prefetch}). */
    void assigned(Collection<org.apache.kafka.common.TopicPartition> partitions) {
        for (org.apache.kafka.common.TopicPartition tp : partitions) {
            assigned.add(router.tableFor(tp.topic()));
        }
    }

    /**
     * Reads, in one query, the tables of newly assigned partitions that are not known yet, and installs those that
     * exist (with their first-load checks): a task of 200 tables starts with one read, not 200 as its first records
     * of each arrive. Missing tables and a failed read are left to {@link #resolve}, which handles them per table.
     */
    void prefetch(Collection<TableId> assigned, long now) {
        List<TableId> unknown = new ArrayList<>();
        for (TableId t : assigned) {
            if (!mappings.containsKey(t) && !unknown.contains(t)) {
                unknown.add(t);
            }
        }
        if (unknown.size() < 2) {
            return;
        }
        Map<TableId, TableSchema> read;
        try {
            read = loader.loadAll(unknown);
        } catch (RuntimeException e) {
            LOG.debug("Could not read the columns of {} tables at once: {}", unknown.size(), e.getMessage());
            return;
        }
        List<TableId> found = new ArrayList<>();
        read.forEach((t, schema) -> {
            if (schema != null) {
                found.add(t);
            }
        });
        beforeFirstLoads.accept(found);
        for (TableId t : found) {
            install(t, null, read.get(t), null, now);
        }
    }

    /** The schemas of the tables in one read; a failure leaves each table to be read (and reported) on its own. */
    private Map<TableId, TableSchema> read(Map<TableId, String> tables) {
        try {
            return loader.loadAll(tables.keySet());
        } catch (RuntimeException e) {
            return Map.of();
        }
    }

    /**
     * The mapping a new block of the table is encoded with (its columns re-read when the last read is older than
     * {@code recheckMs}); null when the table is missing and its records go to the error reporter.
     */
    TableMapping forNewBlock(TableId table, String topic, long now) {
        TableMapping mapping = mappings.get(table);
        if (mapping != null && now - loadedAt.get(table) < recheckMs) {
            return mapping;
        }
        if (mapping == null && !missing.due(table, now)) {
            return null;
        }
        Map<TableId, TableSchema> read = mapping == null ? Map.of() : recheckDue(table, now);
        mapping = load(table, topic, mapping, now, read);
        loadedAt.put(table, now);
        return mapping;
    }

    /**
     * A table is due for its re-read: the other known tables that fall due within the next third of
     * {@code recheckMs} are re-read with it in one query (and their new columns, if any, installed), so that a task
     * of many tables re-reads them in a few queries per interval, not one per table. Returns what was read.
     */
    private Map<TableId, TableSchema> recheckDue(TableId table, long now) {
        List<TableId> due = new ArrayList<>();
        due.add(table);
        for (Map.Entry<TableId, Long> e : loadedAt.entrySet()) {
            if (!e.getKey().equals(table) && mappings.containsKey(e.getKey())
                    && now - e.getValue() >= recheckMs - recheckMs / 3) {
                due.add(e.getKey());
            }
        }
        if (due.size() == 1) {
            return Map.of();
        }
        Map<TableId, TableSchema> read;
        try {
            read = loader.loadAll(due);
        } catch (RuntimeException e) {
            return Map.of(); // the due table is read on its own, with its own warning
        }
        for (TableId t : due) {
            TableSchema s = read.get(t);
            if (!t.equals(table) && s != null) {
                install(t, null, s, mappings.get(t), now);
            }
        }
        return read;
    }

    /**
     * auto.create: the table of {@code row} was missing (no block could be opened); creates it from the row and
     * returns true when it exists now, or false when tables are not created (the record is reported as before).
     * Throws {@link io.chsink.connect.mapping.RecordMappingException} when this row cannot create it.
     */
    boolean create(SinkRecord row, TableId table, long now) {
        if (!evolution.createsTables()) {
            return false;
        }
        install(table, row.topic(), evolution.create(table, row), mappings.get(table), now);
        return true;
    }

    /**
     * auto.evolve: {@code row} has fields that {@code seen}'s table lacks; adds them and returns the table's mapping
     * now (a new one when its columns changed). Throws {@link io.chsink.connect.mapping.RecordMappingException} when
     * a field cannot be added.
     */
    TableMapping evolve(SinkRecord row, TableId table, TableMapping seen, long now) {
        return install(table, row.topic(), evolution.evolve(table, seen, row), mappings.get(table), now);
    }

    /** Forgets the table's mapping: its next block reads its columns again. */
    void forget(TableId table) {
        mappings.remove(table);
    }

    /** Whether the table's columns differ now from those of {@code mapping} (false when they cannot be read). */
    boolean changedSince(TableId table, TableMapping mapping) {
        try {
            TableSchema now = loader.load(table);
            return now != null && !sameColumns(mapping, now);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private TableMapping load(TableId table, String topic, TableMapping current, long now,
            Map<TableId, TableSchema> read) {
        TableSchema schema;
        try {
            schema = read.containsKey(table) ? read.get(table) : loader.load(table);
        } catch (RuntimeException e) {
            if (current != null) {
                LOG.warn("Could not re-read the columns of {}; keeping the known ones: {}", table, e.getMessage());
                return current;
            }
            InsertFailure f = InsertFailure.classify(e);
            String message = "Could not read the columns of table " + table + " for topic " + topic + ": " + f.message();
            if (!f.retriable()) {
                throw new ConnectException(message, e); // authentication, grants, TLS: a human must act
            }
            throw new RetriableException(message, e);
        }
        if (schema == null && (reportMissing || evolution.createsTables())) {
            if (evolution.createsTables()) {
                LOG.info("Table {} for topic '{}' does not exist; it is created from the first record with a value "
                        + "schema (auto.create)", table, topic);
            } else {
                LOG.warn("Table {} for topic '{}' does not exist; its records go to the error reporter", table, topic);
            }
            mappings.remove(table);
            missing.missing(table, now);
            return null;
        }
        if (schema == null) {
            throw new ConnectException("Table " + table.quoted() + " for topic '" + topic
                    + "' does not exist in ClickHouse (or user '" + config.user() + "' has no grant on it: "
                    + "GRANT INSERT ON " + table.quoted() + " TO " + TableId.quote(config.user()) + "). Create it, "
                    + "or route the topic elsewhere with " + SinkConfig.TABLE_NAME_FORMAT + " / "
                    + SinkConfig.TOPIC_TO_TABLE_MAP + ", or let the connector create it with "
                    + SinkConfig.AUTO_CREATE + "=true.");
        }
        return install(table, topic, schema, current, now);
    }

    /** The mapping for the table's columns as just read (the current one when they did not change). */
    private TableMapping install(TableId table, String topic, TableSchema schema, TableMapping current, long now) {
        missing.found(table);
        loadedAt.put(table, now);
        if (current != null && sameColumns(current, schema)) {
            return current;
        }
        if (current == null) {
            firstLoadCheck.accept(table);
        }
        TableMapping m = new TableMapping(schema, config.rejectUnknownFields(), nullsTakeDefaults);
        if (!m.unwritableColumns().isEmpty()) {
            LOG.warn("Table {}: columns of types the connector does not write yet are left to their defaults: {}",
                    table, m.unwritableColumns().stream().map(c -> c.name() + " " + c.type().text())
                            .collect(Collectors.joining(", ")));
        }
        mappings.put(table, m);
        LOG.info("Table {}: {} columns, writing {}", table, schema.columns().size(), m.quotedColumnNames());
        return m;
    }

    private static boolean sameColumns(TableMapping m, TableSchema s) {
        List<TableColumn> a = m.schema().columns();
        List<TableColumn> b = s.columns();
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).name().equals(b.get(i).name()) || !a.get(i).type().text().equals(b.get(i).type().text())
                    || a.get(i).defaultKind() != b.get(i).defaultKind()) {
                return false;
            }
        }
        return true;
    }
}
