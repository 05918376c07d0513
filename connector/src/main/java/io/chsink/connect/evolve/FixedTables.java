package io.chsink.connect.evolve;

import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * auto.create=false, auto.evolve=false: the tables are the user's. A missing table fails the task (or its records
 * go to the error reporter); a field no column takes follows unknown.fields.behavior.
 */
public final class FixedTables implements TableEvolution {
    @Override
    public boolean createsTables() {
        return false;
    }

    @Override
    public TableSchema create(TableId table, SinkRecord row) {
        throw new IllegalStateException("auto.create is off");
    }

    @Override
    public boolean mustEvolve(TableMapping mapping, SinkRecord row) {
        return false;
    }

    @Override
    public TableSchema evolve(TableId table, TableMapping seen, SinkRecord row) {
        throw new IllegalStateException("auto.evolve is off");
    }

    @Override
    public String name() {
        return "none";
    }
}
