package io.chsink.connect.exactlyonce;

import com.clickhouse.client.api.Client;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.writer.ClientFactory;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * exactly_once, offsets altered or reset through Connect's REST API ({@code PATCH} or {@code DELETE
 * /connectors/NAME/offsets}, KIP-875) while the connector is stopped: the state table is brought in line before
 * Connect moves the offsets (docs/exactly-once.md, "Offsets reset through the REST API"). Each altered partition's
 * recorded blocks are deleted and its epoch raised ({@link StateStore#reset}), so the records consumed from the new
 * offset are inserted once more instead of being rebuilt under, or colliding with, the tokens of their earlier
 * insert.
 */
public final class OffsetsReset {
    private static final Logger LOG = LoggerFactory.getLogger(OffsetsReset.class);
    static final Comparator<TopicPartition> ORDER = Comparator.comparing(TopicPartition::topic)
            .thenComparingInt(TopicPartition::partition);

    private OffsetsReset() {
    }

    /**
     * @param offsets the partitions Connect is about to alter, to their new offset (null: reset)
     * @throws ConnectException naming the state table and the cause when ClickHouse cannot be reached or refuses;
     *     the REST request then fails and Connect leaves the offsets as they were
     */
    public static void apply(SinkConfig config, String connector, Map<TopicPartition, Long> offsets, long nowMs) {
        if (offsets.isEmpty()) {
            return; // a reset of a connector that never committed: nothing recorded can be behind an offset
        }
        Map<TopicPartition, Long> sorted = new TreeMap<>(ORDER);
        sorted.putAll(offsets);
        TableId stateTable = new TableId(config.database(), config.exactlyOnceStateTable());
        Map<TopicPartition, StateStore.Reset> done;
        try (Client client = ClientFactory.create(config)) {
            done = StateStore.open(client, stateTable, connector).reset(sorted.keySet(), nowMs);
        } catch (RuntimeException e) {
            throw new ConnectException("Could not alter the offsets of connector " + connector + " (exactly_once): "
                    + "its state table " + stateTable.quoted() + " on " + config.url() + " was not updated for "
                    + sorted.keySet() + ": " + cause(e) + ". The offsets are unchanged; retry once ClickHouse "
                    + "answers.", e);
        }
        for (Map.Entry<TopicPartition, StateStore.Reset> d : done.entrySet()) {
            Long to = sorted.get(d.getKey());
            StateStore.Reset r = d.getValue();
            LOG.info("Connector {}: offsets of {} {} through the REST API (exactly_once): {} recorded blocks deleted "
                    + "from {}, epoch {} -> {}", connector, d.getKey(), to == null ? "reset" : "altered to " + to,
                    r.deletedBlocks, stateTable.quoted(), r.previousEpoch, r.epoch);
        }
    }

    /** The innermost message, one line: client-v2 wraps the I/O error that says what happened. */
    static String cause(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        String m = c.getMessage() == null ? "" : c.getMessage();
        int nl = m.indexOf('\n');
        return c.getClass().getSimpleName() + (m.isEmpty() ? "" : ": " + (nl < 0 ? m : m.substring(0, nl)));
    }
}
