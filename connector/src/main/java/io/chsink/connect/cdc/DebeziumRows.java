package io.chsink.connect.cdc;

import com.clickhouse.client.api.Client;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.config.TableRouter;
import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code cdc.mode=debezium}: a record is a Debezium change event and becomes one row of a
 * ReplacingMergeTree(version, is_deleted) table: creates, snapshot reads and updates write the after image with
 * deleted = 0, deletes the key (the key fields of the before image, or the record key; the other columns take
 * their defaults, see {@link #nullsTakeDefaults}; a record without a key: the whole before image) with
 * deleted = 1, both with the version
 * of {@link ChangeVersion}. Tombstones (the null value Debezium writes after a delete) and truncates
 * ({@code cdc.truncate.behavior=skip}) write no row. The row depends on the record alone: the same record always
 * gives the same row and version (exactly_once rebuilds stay identical, replays collapse).
 */
public final class DebeziumRows implements RowSource {
    private static final Logger LOG = LoggerFactory.getLogger(DebeziumRows.class);

    private final RowShapes shapes;
    private final boolean failOnTruncate;
    private final TableRouter router;
    private final Consumer<TableId> tableCheck;
    private final Map<Schema, List<String>> keyNames = new IdentityHashMap<>();

    public DebeziumRows(SinkConfig config, Client client) {
        this(config.cdcVersionColumn(), config.cdcDeletedColumn(), config.failOnTruncate(), new TableRouter(config),
                t -> ReplacingTableCheck.require(client, t, config.cdcVersionColumn(), config.cdcDeletedColumn()));
    }

    DebeziumRows(String versionColumn, String deletedColumn, boolean failOnTruncate, TableRouter router,
            Consumer<TableId> tableCheck) {
        this.shapes = new RowShapes(versionColumn, deletedColumn);
        this.failOnTruncate = failOnTruncate;
        this.router = router;
        this.tableCheck = tableCheck;
    }

    @Override
    public SinkRecord toRow(SinkRecord record) {
        if (record.value() == null) {
            return null; // the tombstone after a delete: the delete event itself wrote the row
        }
        ChangeEvent e;
        try {
            e = ChangeEvent.read(record);
        } catch (ChangeEvent.Malformed m) {
            throw new RecordMappingException(describe(record) + ": malformed Debezium change event: " + m.getMessage());
        }
        if (e.kind == ChangeEvent.Kind.TRUNCATE) {
            return truncate(record);
        }
        boolean deleted = e.kind == ChangeEvent.Kind.DELETE;
        Object image = e.image.value();
        List<String> keyFields = deleted ? keyFields(record.key()) : null;
        if (image instanceof Struct) {
            Struct row = shapes.row((Struct) image, e.flattened, e.version, deleted, keyFields);
            return record.newRecord(record.topic(), record.kafkaPartition(), record.keySchema(), record.key(),
                    row.schema(), row, record.timestamp(), record.headers());
        }
        Map<String, Object> row = shapes.row((Map<?, ?>) image, e.flattened, e.version, deleted, keyFields);
        return record.newRecord(record.topic(), record.kafkaPartition(), record.keySchema(), record.key(), null, row,
                record.timestamp(), record.headers());
    }

    /** The names of the record key's fields (Debezium keys by primary key), or null for a key without fields. */
    private List<String> keyFields(Object key) {
        if (key instanceof Struct) {
            Schema s = ((Struct) key).schema();
            List<String> names = keyNames.get(s);
            if (names == null) {
                names = new ArrayList<>();
                for (org.apache.kafka.connect.data.Field f : s.fields()) {
                    names.add(f.name());
                }
                keyNames.put(s, names);
            }
            return names;
        }
        if (key instanceof Map) {
            List<String> names = new ArrayList<>();
            for (Object k : ((Map<?, ?>) key).keySet()) {
                names.add(String.valueOf(k));
            }
            return names;
        }
        return null;
    }

    private SinkRecord truncate(SinkRecord record) {
        TableId table = router.tableFor(record.topic());
        if (failOnTruncate) {
            throw new RecordMappingException(describe(record) + ": a truncate event (op 't') and "
                    + SinkConfig.CDC_TRUNCATE_BEHAVIOR + "=fail");
        }
        LOG.warn("Skipping a truncate event (op 't') at topic={} partition={} offset={} ({}=skip): the rows of {} "
                        + "stay in ClickHouse; run TRUNCATE TABLE {} there if they should go too", record.topic(),
                record.kafkaPartition(), record.kafkaOffset(), SinkConfig.CDC_TRUNCATE_BEHAVIOR, table.quoted(),
                table.quoted());
        return null;
    }

    private String describe(SinkRecord record) {
        return String.format("Cannot read record topic=%s partition=%d offset=%d for table %s as a Debezium change "
                        + "event (cdc.mode=debezium)", record.topic(), record.kafkaPartition(), record.kafkaOffset(),
                router.tableFor(record.topic()));
    }

    /** The row schema made for images of this schema (for tests: one instance per image schema). */
    Schema rowSchemaFor(Schema imageSchema) {
        return shapes.schemaFor(imageSchema, false);
    }

    @Override
    public void checkTable(TableId table) {
        tableCheck.accept(table);
    }

    /** Delete rows carry the key only: the table's other columns take their defaults (FINAL hides the row anyway). */
    @Override
    public boolean nullsTakeDefaults() {
        return true;
    }

    @Override
    public String name() {
        return "debezium";
    }
}
