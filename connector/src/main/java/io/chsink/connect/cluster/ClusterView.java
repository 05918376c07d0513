package io.chsink.connect.cluster;

import com.clickhouse.client.api.Client;
import io.chsink.connect.schema.TableId;
import java.util.Map;

/** What the server says of Distributed targets ({@link ClusterReader} on a client; tests: a stand-in). */
public interface ClusterView {
    /** No table is Distributed. */
    ClusterView NONE = new ClusterView() {
        @Override
        public DistributedTable read(TableId table) {
            return null;
        }

        @Override
        public Map<Integer, ShardTable> shardTables(DistributedTable d) {
            return Map.of();
        }
    };

    /** The table as a Distributed table, or null when it is not one. */
    DistributedTable read(TableId table);

    /** Every shard's local table by shard number; a shard without it is absent. */
    Map<Integer, ShardTable> shardTables(DistributedTable d);

    static ClusterView of(Client client) {
        return new ClusterView() {
            @Override
            public DistributedTable read(TableId table) {
                return ClusterReader.read(client, table);
            }

            @Override
            public Map<Integer, ShardTable> shardTables(DistributedTable d) {
                return ClusterReader.shardTables(client, d);
            }
        };
    }
}
