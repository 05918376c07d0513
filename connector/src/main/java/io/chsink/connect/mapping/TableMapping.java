package io.chsink.connect.mapping;

import io.chsink.connect.encoder.NativeBlock;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.mapping.value.Writers;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Everything needed to turn records of one table into Native blocks: the columns a block carries (every
 * insertable column whose type the connector writes), their codecs, and one {@link RecordPlan} per record
 * value schema, resolved once and reused for every record of that schema.
 */
public final class TableMapping {
    private final TableSchema schema;
    private final ColumnCodec[] codecs;
    private final String[] names;
    private final String[] quotedNames;
    private final Map<String, Integer> columnIndex = new HashMap<>();
    /** Per block column: the record metadata it takes, or null when it takes a value field. */
    private final MetadataSource[] metadata;
    /** Value fields some written column takes (every column name but the metadata ones). */
    private final java.util.Set<String> knownFields = new java.util.HashSet<>();
    /** Columns the server computes (MATERIALIZED, ALIAS), by name. */
    private final Map<String, TableColumn> computed = new HashMap<>();
    private final boolean rejectUnknownFields;
    /** Per block column: whether its type is scalar (under Nullable and LowCardinality). */
    private final boolean[] scalar;
    private final List<TableColumn> unwritable = new ArrayList<>();
    private final SchemaMemo<RecordPlan> plansByIdentity = SchemaMemo.byIdentity();
    private final SchemaMemo<RecordPlan> plansByEquality = SchemaMemo.byEquality();
    private final NestedGroups nestedGroups;
    private RecordPlan schemalessPlan;
    /** Per value schema: whether it has fields that are no column of the table (auto.evolve). */
    private final SchemaMemo<Boolean> lacking = SchemaMemo.byIdentity();

    public TableMapping(TableSchema schema) {
        this(schema, false);
    }

    /**
     * @param rejectUnknownFields whether a record with a field that no column takes is a bad record (else the
     *     field is ignored)
     */
    public TableMapping(TableSchema schema, boolean rejectUnknownFields) {
        this(schema, rejectUnknownFields, false);
    }

    /**
     * @param nullsTakeDefaults whether a null or missing value for a non-Nullable column writes the column's default
     *     (its DEFAULT expression, else the type's default value) instead of making the record a bad record: what
     *     cdc.mode=debezium's delete rows need, which carry their key only
     */
    public TableMapping(TableSchema schema, boolean rejectUnknownFields, boolean nullsTakeDefaults) {
        this.schema = schema;
        this.rejectUnknownFields = rejectUnknownFields;
        List<ColumnCodec> cs = new ArrayList<>();
        for (TableColumn c : schema.columns()) {
            if (!c.insertable()) {
                computed.put(c.name(), c);
                continue;
            }
            ColumnCodec codec = ColumnCodec.forColumn(c, nullsTakeDefaults);
            if (codec == null) {
                unwritable.add(c);
                continue;
            }
            columnIndex.put(c.name(), cs.size());
            cs.add(codec);
        }
        this.codecs = cs.toArray(new ColumnCodec[0]);
        this.names = new String[codecs.length];
        this.quotedNames = new String[codecs.length];
        this.metadata = new MetadataSource[codecs.length];
        this.scalar = new boolean[codecs.length];
        for (int i = 0; i < codecs.length; i++) {
            names[i] = codecs[i].column().name();
            quotedNames[i] = io.chsink.connect.schema.TableId.quote(names[i]);
            metadata[i] = MetadataSource.forColumn(names[i]);
            io.chsink.connect.schema.ClickHouseType t = codecs[i].column().type();
            while (t.kind() == io.chsink.connect.schema.ClickHouseType.Kind.NULLABLE
                    || t.kind() == io.chsink.connect.schema.ClickHouseType.Kind.LOW_CARDINALITY) {
                t = t.inner();
            }
            scalar[i] = Writers.isScalar(t.kind());
            if (metadata[i] == null) {
                knownFields.add(names[i]);
            }
        }
        this.nestedGroups = new NestedGroups(codecs);
    }

    public TableSchema schema() {
        return schema;
    }

    /** Quoted column names, in block order, for the INSERT statement. */
    public List<String> quotedColumnNames() {
        return java.util.Arrays.asList(quotedNames);
    }

    public NativeBlock newBlock(int expectedRows) {
        NativeColumn[] cols = new NativeColumn[codecs.length];
        for (int i = 0; i < codecs.length; i++) {
            cols[i] = codecs[i].newColumn(expectedRows);
        }
        return new NativeBlock(names, cols);
    }

    /**
     * Appends one record as a row of {@code block}, or withdraws the partial row and throws
     * {@link RecordMappingException} naming the record, field, column and type.
     */
    public void append(SinkRecord record, NativeBlock block) {
        RecordPlan plan = planFor(record);
        Object value = record.value();
        if (!unwritable.isEmpty()) {
            rejectValuesForUnwritableColumns(record, value);
        }
        if (rejectUnknownFields) {
            rejectUnknownField(record, plan, value);
        }
        block.beginRow();
        int i = 0;
        Object v = null;
        boolean got = false;
        try {
            for (; i < codecs.length; i++) {
                got = false;
                MetadataSource m = metadata[i];
                v = m != null ? m.get(record) : plan.get(value, i);
                got = true;
                codecs[i].write(v, block.column(i));
            }
            i = nestedGroups.check(block);
            if (i >= 0) {
                v = plan.get(value, i);
                throw new ValueException("its array length differs from the other columns of Nested '"
                        + NestedGroups.prefix(names[i]) + "' (ClickHouse requires equal lengths)");
            }
        } catch (ValueException e) {
            block.rollbackRow();
            if (!got) {
                // Reading the value failed (an adapter or a Nested projection): report the record's own value.
                v = metadata[i] != null ? null : plan.source(value, i);
            }
            throw new RecordMappingException(describe(record, plan, i, v, e.getMessage()));
        } catch (RuntimeException e) {
            block.rollbackRow();
            throw e;
        }
        block.commitRow();
    }

    private void rejectUnknownField(SinkRecord record, RecordPlan plan, Object value) {
        String field = plan.unknownField(value, knownFields);
        if (field == null) {
            return;
        }
        TableColumn c = computed.get(field);
        String why = c != null
                ? "column '" + field + "' (ClickHouse type " + c.type().text() + ") is " + c.defaultKind()
                        + ": the server computes it and it is never written"
                : MetadataSource.forColumn(field) != null && columnIndex.containsKey(field)
                        ? "column '" + field + "' takes record metadata, not this field"
                        : "the table has no column '" + field + "'";
        throw new RecordMappingException(String.format("Cannot write record topic=%s partition=%d offset=%d into "
                        + "table %s: field '%s' -> %s (unknown.fields.behavior=error)", Origin.topic(record),
                Origin.partition(record), Origin.offset(record), schema.table(), field, why));
    }

    private RecordPlan planFor(SinkRecord record) {
        Object value = record.value();
        Schema s = record.valueSchema();
        if (value instanceof Struct) {
            Schema structSchema = ((Struct) value).schema();
            RecordPlan p = plansByIdentity.get(structSchema);
            if (p == null) {
                p = plansByEquality.computeIfAbsent(structSchema, k -> RecordPlan.forStruct(k, names, scalar, knownFields));
                plansByIdentity.put(structSchema, p);
            }
            return p;
        }
        if (value instanceof Map) {
            if (schemalessPlan == null) {
                schemalessPlan = RecordPlan.forMap(names);
            }
            return schemalessPlan;
        }
        throw new RecordMappingException(String.format(
                "Cannot write record topic=%s partition=%d offset=%d into table %s: the record value is %s "
                        + "(schema %s); expected a Struct or a map (schemaless JSON)",
                Origin.topic(record), Origin.partition(record), Origin.offset(record), schema.table(),
                ValueException.kindOf(value), s == null ? "none" : s.type()));
    }

    private String describe(SinkRecord record, RecordPlan plan, int i, Object v, String reason) {
        ColumnCodec codec = codecs[i];
        String field = metadata[i] != null ? "(record metadata)" : plan.fieldName(i);
        return String.format("Cannot write record topic=%s partition=%d offset=%d into table %s: field '%s' -> "
                        + "column '%s' (ClickHouse type %s): value is %s: %s",
                Origin.topic(record), Origin.partition(record), Origin.offset(record), schema.table(),
                field == null ? "(absent)" : field, codec.column().name(), codec.column().type().text(),
                field == null || (v == null && metadata[i] == null && !present(record.value(), field))
                        ? "missing" : ValueException.kindOf(v), reason);
    }

    private static boolean present(Object value, String field) {
        return value instanceof Map ? ((Map<?, ?>) value).containsKey(field) : true;
    }

    /** A value for a column the connector cannot write would be lost silently: that is an error instead. */
    private void rejectValuesForUnwritableColumns(SinkRecord record, Object value) {
        for (TableColumn c : unwritable) {
            Object v;
            if (value instanceof Struct) {
                Struct st = (Struct) value;
                v = StructValues.get(st, c.name());
            } else {
                v = ((Map<?, ?>) value).get(c.name());
            }
            if (v != null) {
                throw new RecordMappingException(String.format("Cannot write record topic=%s partition=%d offset=%d "
                        + "into table %s: field '%s' -> column '%s' (ClickHouse type %s): value is %s: this "
                        + "connector version does not write %s columns yet", Origin.topic(record), Origin.partition(record),
                        Origin.offset(record), schema.table(), c.name(), c.name(), c.type().text(),
                        ValueException.kindOf(v), c.type().kind()));
            }
        }
    }

    /**
     * Whether a Struct schema has fields that are no column of the table, of any kind (see {@link #missingFields});
     * answered once per schema instance, for auto.evolve's look at every row.
     */
    public boolean lacksColumnsFor(Schema structSchema) {
        Boolean b = lacking.get(structSchema);
        if (b == null) {
            b = !missingFields(structSchema).isEmpty();
            lacking.put(structSchema, b);
        }
        return b;
    }

    /**
     * The fields of a Struct schema that no column of the table is named after (of any kind: computed and unwritable
     * columns count as there), in field order. A field that feeds flattened Nested columns ({@code n} for
     * {@code n.a}, {@code n.b}) is there; a field named like record metadata ({@code _topic}, {@code _key}, ...)
     * never counts as missing, as no column of that name would take the field.
     */
    public List<org.apache.kafka.connect.data.Field> missingFields(Schema structSchema) {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (TableColumn c : schema.columns()) {
            names.add(c.name());
            int dot = c.name().indexOf('.');
            if (dot > 0) {
                names.add(c.name().substring(0, dot));
            }
        }
        List<org.apache.kafka.connect.data.Field> out = new ArrayList<>();
        for (org.apache.kafka.connect.data.Field f : structSchema.fields()) {
            if (!names.contains(f.name()) && MetadataSource.forColumn(f.name()) == null) {
                out.add(f);
            }
        }
        return out;
    }

    /** Whether a column of this name takes record metadata instead of a value field. */
    public static boolean isMetadataName(String column) {
        return MetadataSource.forColumn(column) != null;
    }

    /** Columns without a writer yet: left to their defaults, and a record with a value for one is rejected. */
    public List<TableColumn> unwritableColumns() {
        return unwritable;
    }
}
