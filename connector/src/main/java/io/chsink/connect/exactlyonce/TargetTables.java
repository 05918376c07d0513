package io.chsink.connect.exactlyonce;

import com.clickhouse.client.api.Client;
import io.chsink.connect.cluster.ClusterReader;
import io.chsink.connect.cluster.DistributedTable;
import io.chsink.connect.cluster.ShardTable;
import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.function.ToIntFunction;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;

/**
 * What exactly_once asks of a target table, checked when the task first reads it: it deduplicates inserts by token
 * ({@link DedupCheck}), its replicas see the same state table ({@link StateEngineCheck}), its deduplication window
 * holds what a takeover must find again (a WARN otherwise), and how a partial rebuild may be sent into it
 * ({@link RebuildCheck}).
 */
public interface TargetTables {
    /** Throws when the table cannot take exactly_once inserts; returns how partial rebuilds into it are judged. */
    RebuildCheck check(TableId table, String stateEngine);

    /**
     * The real checks against the server.
     *
     * @param partitionsOf the Kafka partitions of this task routed to a table
     */
    static TargetTables of(Client client, TableId stateTable, ToIntFunction<TableId> partitionsOf) {
        return (table, stateEngine) -> {
            String problem;
            RebuildCheck rebuilds;
            try {
                // A Distributed target's shards are read once for the three checks below.
                DistributedTable d = ClusterReader.read(client, table);
                Collection<ShardTable> shards = d == null ? null : ClusterReader.shardTables(client, d).values();
                problem = DedupCheck.problem(client, table, d, shards);
                if (problem == null) {
                    problem = StateEngineCheck.problem(client, table, stateTable, stateEngine);
                }
                if (problem == null) {
                    // per partition: the block awaiting its commit and the one in flight
                    DedupCheck.windowWarning(client, table, d, shards, 2, partitionsOf.applyAsInt(table));
                    rebuilds = RebuildCheck.forTable(client, table, shards);
                } else {
                    rebuilds = null;
                }
            } catch (RuntimeException e) {
                throw new RetriableException("Could not read the engine settings of " + table + ": "
                        + e.getMessage(), e);
            }
            if (problem != null) {
                throw new ConnectException(problem);
            }
            return rebuilds;
        };
    }
}
