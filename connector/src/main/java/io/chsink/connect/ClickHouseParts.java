package io.chsink.connect;

import com.clickhouse.client.api.Client;
import io.chsink.connect.block.BlockBuffer;
import io.chsink.connect.cdc.RowSource;
import io.chsink.connect.cdc.RowSources;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.delivery.BlockOpener;
import io.chsink.connect.delivery.Deliveries;
import io.chsink.connect.delivery.Delivery;
import io.chsink.connect.evolve.Evolutions;
import io.chsink.connect.evolve.TableEvolution;
import io.chsink.connect.offset.Consumption;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchemaLoader;
import io.chsink.connect.schema.TableSchemaSource;
import io.chsink.connect.writer.BlockInserter;
import io.chsink.connect.writer.ClientFactory;
import io.chsink.connect.writer.InsertLimits;
import io.chsink.connect.writer.Inserter;
import io.chsink.connect.writer.ShardRouting;
import java.util.function.LongConsumer;
import java.util.function.ToIntFunction;

/**
 * The task's collaborators that talk to ClickHouse, made in this one place from the task's config: where tables'
 * columns come from, the insert of a block, the engines that limit inserts in flight, the delivery (exactly_once
 * keeps its state table in ClickHouse), the row source (cdc.mode=debezium reads current rows) and the table
 * evolution (auto.create and auto.evolve run DDL). A running task gets {@link #connect}: the real ones, on one
 * client-v2 client. {@code ClickHouseSinkTaskTest} gives the real task stand-ins instead, so that start, put,
 * preCommit and close are driven, and their offsets checked, without a server. Every method is called once, in
 * {@code start()}, on the task thread.
 */
interface ClickHouseParts {
    /** The real parts, on one client made from the config; {@link #close} closes it. */
    static ClickHouseParts connect(SinkConfig config) {
        return new OnClient(config, ClientFactory.create(config));
    }

    /** Where a table's columns come from ({@code system.columns}). */
    TableSchemaSource schemas();

    /** Sends and verifies one block; {@code beforeAttempt} runs on the insert thread before each attempt. */
    Inserter inserter(long timeoutMs, BlockInserter.BeforeInsert beforeAttempt);

    /**
     * When the table is a Distributed target: checks its shards and routes its inserts ({@link ShardRouting});
     * throws when a shard cannot take them. At each load of the table, before the delivery's own check.
     */
    void checkTarget(TableId table);

    /** How many inserts of each table may be in flight, from its engine; {@code perTable} is the delivery's. */
    InsertLimits limits(int perTable);

    /** The delivery.guarantee's {@link Delivery} (see {@link Deliveries}). */
    Delivery delivery(BlockBuffer buffer, BlockOpener opener, String connector, ToIntFunction<TableId> partitionsOf,
            Consumption consumption);

    /** The cdc.mode's {@link RowSource} (see {@link RowSources}). */
    RowSource rows(LongConsumer currentRowRead, Runnable cacheHit);

    /** What auto.create and auto.evolve allow (see {@link Evolutions}). */
    TableEvolution evolution();

    /** Releases what the parts hold (the client); at the task's stop. */
    void close();

    /** The real parts: everything on one client-v2 client. */
    final class OnClient implements ClickHouseParts {
        private final SinkConfig config;
        private final Client client;
        private final ShardRouting shards;

        OnClient(SinkConfig config, Client client) {
            this.config = config;
            this.client = client;
            this.shards = new ShardRouting(client);
        }

        @Override
        public TableSchemaSource schemas() {
            return new TableSchemaLoader(client);
        }

        @Override
        public Inserter inserter(long timeoutMs, BlockInserter.BeforeInsert beforeAttempt) {
            return new BlockInserter(client, config.insertSettings(), timeoutMs, beforeAttempt, shards);
        }

        @Override
        public void checkTarget(TableId table) {
            shards.checkTable(table);
        }

        @Override
        public InsertLimits limits(int perTable) {
            return new InsertLimits(client, perTable);
        }

        @Override
        public Delivery delivery(BlockBuffer buffer, BlockOpener opener, String connector,
                ToIntFunction<TableId> partitionsOf, Consumption consumption) {
            return Deliveries.create(config, client, buffer, opener, connector, partitionsOf, consumption);
        }

        @Override
        public RowSource rows(LongConsumer currentRowRead, Runnable cacheHit) {
            return RowSources.create(config, client, currentRowRead, cacheHit);
        }

        @Override
        public TableEvolution evolution() {
            return Evolutions.create(config, client);
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
