package io.chsink.connect.writer;

import com.clickhouse.client.api.Client;
import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.block.TableBlock;
import io.chsink.connect.cluster.ClusterReader;
import io.chsink.connect.cluster.DistributedTable;
import io.chsink.connect.cluster.Routing;
import io.chsink.connect.cluster.ShardChecks;
import io.chsink.connect.cluster.ShardChoice;
import io.chsink.connect.schema.TableId;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inserts into Distributed targets. When the task loads a table ({@link #checkTable}, task thread) it reads
 * whether the table is Distributed, checks every shard's local table ({@link ShardChecks}) and keeps the table's
 * route; each insert then gets ({@link #forBlock}, insert threads):
 * <ul>
 *   <li>{@code distributed_foreground_insert = 1}: the insert returns once every shard has its rows, so a
 *       verified insert means the rows are on their shards (not queued on the initiator's disk);</li>
 *   <li>under {@link Routing#WHOLE_BLOCKS}, {@code insert_shard_id = N}: the whole block to the shard
 *       {@link ShardChoice} picks from the block's token (exactly_once: a rebuilt block meets its token on the
 *       same shard), or from the block itself (at_least_once).</li>
 * </ul>
 */
public final class ShardRouting implements TargetSettings {
    private static final Logger LOG = LoggerFactory.getLogger(ShardRouting.class);

    private final Client client;
    private final Map<TableId, DistributedTable> routes = new ConcurrentHashMap<>();

    public ShardRouting(Client client) {
        this.client = client;
    }

    /**
     * Reads the table's engine and, for a Distributed table, its shards; throws ConnectException when a shard cannot
     * take its inserts, RetriableException when a shard or the server cannot be read.
     */
    public void checkTable(TableId table) {
        DistributedTable d;
        String problem;
        try {
            d = ClusterReader.read(client, table);
            problem = d == null ? null : ClusterReader.shardProblem(client, d);
        } catch (RuntimeException e) {
            throw new RetriableException("Could not read the shards of " + table + " (a Distributed table's shards "
                    + "must answer through the server of clickhouse.url): " + e.getMessage(), e);
        }
        if (d == null) {
            routes.remove(table);
            return;
        }
        if (problem != null) {
            throw new ConnectException(problem);
        }
        routes.put(table, d);
        LOG.info("{}: {} shards; {}", d.describe(), d.shards().size(), d.routing() == Routing.BY_KEY
                ? "each block through the Distributed table, split by its sharding key " + d.shardingKey()
                : "each block whole to one shard (insert_shard_id), chosen from the block's token by the shards' "
                        + "weights, because " + d.wholeBlocksReason());
    }

    @Override
    public Map<String, String> forBlock(TableBlock block) {
        DistributedTable d = routes.get(block.table());
        if (d == null) {
            return Map.of();
        }
        Map<String, String> s = new HashMap<>();
        s.put(d.foregroundSetting(), "1");
        if (d.routing() == Routing.WHOLE_BLOCKS) {
            s.put("insert_shard_id", String.valueOf(ShardChoice.of(choiceKey(block), d.shards())));
        }
        return s;
    }

    /** The block's token (the same for its rebuild and for its narrowed parts), else the block itself. */
    private static String choiceKey(TableBlock block) {
        BlockManifest m = block.manifest();
        return m != null ? m.token()
                : block.table() + "/" + block.createdAtMs() + "/" + System.identityHashCode(block);
    }
}
