package io.chsink.connect.cdc;

import io.chsink.connect.schema.TableId;
import org.apache.kafka.connect.sink.SinkRecord;

/** {@code cdc.mode=none}: every record is a row, appended as it is. */
public final class AppendedRecords implements RowSource {
    @Override
    public SinkRecord toRow(SinkRecord record) {
        return record;
    }

    @Override
    public void checkTable(TableId table) {
    }

    @Override
    public boolean nullsTakeDefaults() {
        return false;
    }

    @Override
    public String name() {
        return "none";
    }
}
