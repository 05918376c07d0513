package io.chsink.connect.delivery;

import com.clickhouse.client.api.Client;
import io.chsink.connect.block.BlockBuffer;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.exactlyonce.ExactlyOnceDelivery;
import io.chsink.connect.exactlyonce.RecordedBlocks;
import io.chsink.connect.exactlyonce.StateStore;
import io.chsink.connect.exactlyonce.TargetTables;
import io.chsink.connect.offset.Consumption;
import io.chsink.connect.schema.TableId;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/** The one place where delivery.guarantee is looked at: the task gets its {@link Delivery} here, at start. */
public final class Deliveries {
    private Deliveries() {
    }

    /**
     * @param partitionsOf the Kafka partitions of this task routed to a table (for the dedup window check)
     * @param consumption Connect's consumer, for the seeks exactly_once makes to check handled marks
     */
    public static Delivery create(SinkConfig config, Client client, BlockBuffer buffer, BlockOpener opener,
            String connector, ToIntFunction<TableId> partitionsOf, Consumption consumption) {
        TableId stateTable = new TableId(config.database(), config.exactlyOnceStateTable());
        return create(config, buffer, opener, () -> StateStore.open(client, stateTable, connector),
                TargetTables.of(client, stateTable, partitionsOf), connector, consumption);
    }

    /**
     * The same choice with exactly_once's state table and target-table checks given: the real ones above, in-memory
     * stand-ins in {@code ClickHouseSinkTaskTest}.
     *
     * @param store opens the state table on first use (exactly_once only)
     * @param targets the checks of a target table when the task first reads it (exactly_once only)
     */
    public static Delivery create(SinkConfig config, BlockBuffer buffer, BlockOpener opener,
            Supplier<? extends RecordedBlocks> store, TargetTables targets, String connector,
            Consumption consumption) {
        switch (config.deliveryGuarantee()) {
            case EXACTLY_ONCE:
                return new ExactlyOnceDelivery(buffer, opener, store, targets, connector, consumption);
            case AT_LEAST_ONCE:
                return new AtLeastOnceDelivery(buffer, opener);
            default:
                throw new IllegalArgumentException(config.deliveryGuarantee().toString());
        }
    }
}
