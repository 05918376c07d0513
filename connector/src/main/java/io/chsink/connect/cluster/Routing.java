package io.chsink.connect.cluster;

/** How the blocks of a Distributed target reach its shards. */
public enum Routing {
    /**
     * Through the Distributed table, which splits each block by its sharding key: the key is deterministic (or the
     * cluster has one shard), so a rebuilt block is split the same way and each shard deduplicates its part by the
     * block's token.
     */
    BY_KEY,
    /**
     * Each block whole to one shard ({@code insert_shard_id}), chosen from the block's token and the shards' weights
     * ({@link ShardChoice}): the sharding key is not deterministic ({@code rand()}, ...) or there is none and the
     * cluster has several shards, so ClickHouse would split a rebuilt block differently.
     */
    WHOLE_BLOCKS
}
