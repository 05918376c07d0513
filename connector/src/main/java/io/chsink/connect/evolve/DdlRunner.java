package io.chsink.connect.evolve;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.ServerException;
import com.clickhouse.client.api.command.CommandSettings;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import io.chsink.connect.schema.TableSchemaSource;
import io.chsink.connect.writer.Commands;
import io.chsink.connect.writer.InsertFailure;
import io.chsink.connect.writer.RetryPolicy;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one DDL statement until the table is as it must be: logs the statement at INFO, runs it, re-reads the table
 * and checks it. Several tasks and connectors may change the same table at once, so a failed statement whose
 * table is as needed afterwards (another writer did it) is a success, and a race (table or column being created
 * meanwhile, concurrent ALTERs) or a retriable failure is retried after re-reading, with the insert backoff, up to
 * {@code retry.timeout.ms}. A permanent failure (a missing grant, a statement the server refuses) fails the task
 * naming the statement.
 */
public final class DdlRunner {
    private static final Logger LOG = LoggerFactory.getLogger(DdlRunner.class);
    private static final long TIMEOUT_S = 120;
    /**
     * Races between writers of the same table: DUPLICATE_COLUMN(15), TABLE_ALREADY_EXISTS(57),
     * CANNOT_ASSIGN_ALTER(517), and UNFINISHED(341) of a distributed DDL still running on some host.
     */
    private static final Set<Integer> RACE_CODES = new HashSet<>(Arrays.asList(15, 57, 341, 517));

    /** Where statements go ({@link #of(Client)}: the server; tests: a stand-in). */
    public interface Executor {
        void execute(String sql, boolean variants);
    }

    private final Executor executor;
    private final TableSchemaSource tables;
    private final RetryPolicy retry;

    public DdlRunner(Executor executor, TableSchemaSource tables, RetryPolicy retry) {
        this.executor = executor;
        this.tables = tables;
        this.retry = retry;
    }

    /** Statements through client-v2; {@code allow_suspicious_variant_types} when a Variant is created. */
    public static Executor of(Client client) {
        return (sql, variants) -> {
            CommandSettings s = new CommandSettings();
            if (variants) {
                s.serverSetting("allow_suspicious_variant_types", "1"); // Variant(Int32, Int64) from ["int","long"]
            }
            Commands.run(client, sql, null, s, TIMEOUT_S);
        };
    }

    /** Runs {@code sql} once (logged at INFO); throws what the server answered. */
    public void runOnce(String sql, String purpose) {
        LOG.info("{}: {}", purpose, sql);
        executor.execute(sql, sql.contains("Variant("));
    }

    /**
     * Runs {@code sql} for {@code table} until {@code done} holds for the table read afterwards (null when it does
     * not exist); returns that schema.
     *
     * @param purpose what the statement is for, for the log and errors, e.g. "auto.create for topic 'events'"
     */
    public TableSchema run(String sql, TableId table, Predicate<TableSchema> done, String purpose) {
        long start = System.currentTimeMillis();
        boolean variants = sql.contains("Variant(");
        for (int attempt = 1;; attempt++) {
            LOG.info("{}: {}", purpose, sql);
            RuntimeException failure = null;
            try {
                executor.execute(sql, variants);
            } catch (RuntimeException e) {
                failure = e;
            }
            TableSchema now;
            try {
                now = tables.load(table);
            } catch (RuntimeException e) {
                now = null;
                if (failure == null) {
                    failure = e;
                }
            }
            if (done.test(now)) {
                if (failure != null) {
                    LOG.info("{}: the statement failed ({}), but {} is as needed now: another task or connector "
                            + "changed it at the same time", purpose, InsertFailure.classify(failure).message(), table);
                }
                return now;
            }
            String why;
            boolean retriable;
            if (failure == null) {
                why = "the statement succeeded but " + table + " does not show the change yet";
                retriable = true;
            } else {
                InsertFailure f = InsertFailure.classify(failure);
                why = f.message();
                ServerException se = find(failure);
                retriable = f.retriable() || (se != null && RACE_CODES.contains(se.getCode()));
            }
            long elapsed = System.currentTimeMillis() - start;
            if (!retriable || elapsed >= retry.timeoutMs()) {
                throw new ConnectException(purpose + " failed" + (retriable ? " for " + elapsed + " ms" : "") + ": "
                        + why + ". Statement: " + sql, failure);
            }
            long wait = retry.delayMs(attempt);
            LOG.warn("{}: attempt {} failed ({}); re-reading {} and retrying in {} ms", purpose, attempt, why, table,
                    wait);
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ConnectException(purpose + " interrupted", e);
            }
        }
    }

    private static ServerException find(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof ServerException) {
                return (ServerException) c;
            }
        }
        return null;
    }
}
