package io.chsink.it.bench;

import static java.lang.invoke.MethodType.methodType;

import java.lang.invoke.MethodHandles;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;

/**
 * How the task sizes and cuts blocks under the default configuration, read from the connector's own classes (found
 * by {@link ConnectorClasses}) instead of copied here: the defaults from {@code SinkConfig.CONFIG_DEF}, a new block's
 * first capacity from {@code BlockSizing}. The in-process paths encode as the task does only while these agree.
 */
final class ConnectorDefaults {
    /** flush.max.rows: a block is cut once it holds this many rows. */
    static final int FLUSH_MAX_ROWS;
    /** flush.max.bytes: or once its encoded columns reach this many bytes. */
    static final long FLUSH_MAX_BYTES;
    /** The row capacity a new block starts with under {@link #FLUSH_MAX_ROWS} ({@code BlockSizing.initialRows}). */
    static final int INITIAL_ROWS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> sinkConfig = ConnectorClasses.load("io.chsink.connect.config.SinkConfig");
            Class<?> blockSizing = ConnectorClasses.load("io.chsink.connect.block.BlockSizing");
            ConfigDef def = (ConfigDef) lookup.findStaticGetter(sinkConfig, "CONFIG_DEF", ConfigDef.class).invoke();
            Map<String, Object> defaults = def.defaultValues();
            FLUSH_MAX_ROWS = (Integer) defaults.get("flush.max.rows");
            FLUSH_MAX_BYTES = (Long) defaults.get("flush.max.bytes");
            INITIAL_ROWS = (int) lookup.findStatic(blockSizing, "initialRows", methodType(int.class, int.class))
                    .invoke(FLUSH_MAX_ROWS);
        } catch (Throwable e) {
            throw new IllegalStateException("the connector's defaults cannot be read (see ConnectorClasses)", e);
        }
    }

    private ConnectorDefaults() {
    }

    /** For the reports: where the task cuts blocks, as "N rows / M MiB". */
    static String blockCut() {
        return String.format("%,d rows / %,d MiB", FLUSH_MAX_ROWS, FLUSH_MAX_BYTES >> 20);
    }
}
