package io.chsink.connect.writer;

import io.chsink.connect.block.TableBlock;
import java.util.Map;

/**
 * Server settings an insert of a block needs because of where its table sends rows (a Distributed target: a
 * synchronous insert, and the shard of a whole block); they override {@code clickhouse.settings}. Called on insert
 * threads.
 */
public interface TargetSettings {
    /** No table needs any: plain tables. */
    TargetSettings NONE = block -> Map.of();

    Map<String, String> forBlock(TableBlock block);
}
