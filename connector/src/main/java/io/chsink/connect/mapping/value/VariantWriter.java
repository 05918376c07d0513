package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.encoder.VariantColumn;
import io.chsink.connect.mapping.SourceAdapters;
import io.chsink.connect.mapping.StructValues;
import io.chsink.connect.mapping.ValueException;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.ClickHouseType.Kind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * Variant(T1, ..., Tn). An Avro union ({@code io.confluent.connect.avro.Union} Struct: one non-null field) or a
 * Protobuf oneof is
 * unwrapped to its branch; a branch named exactly like a variant type picks that variant. Otherwise the value's
 * kind picks the variant: the candidate types for that kind are tried in a fixed order (e.g. for an integer:
 * Int64, Int32, ..., UInt64, ..., then Float64, Decimal) and the first that holds the value exactly wins.
 */
final class VariantWriter implements ValueWriter {
    /** An Avro union or a Protobuf oneof as the Confluent converters present them: a Struct with one branch set. */
    static boolean isUnion(Object v) {
        if (!(v instanceof Struct)) {
            return false;
        }
        String name = ((Struct) v).schema().name();
        return name != null && (name.equals(SourceAdapters.AVRO_UNION)
                || name.startsWith(SourceAdapters.PROTOBUF_ONEOF_PREFIX));
    }

    private static final List<Kind> INTEGRAL = Arrays.asList(Kind.INT64, Kind.INT32, Kind.INT16, Kind.INT8,
            Kind.UINT64, Kind.UINT32, Kind.UINT16, Kind.UINT8, Kind.INT128, Kind.INT256, Kind.UINT128, Kind.UINT256,
            Kind.FLOAT64, Kind.FLOAT32, Kind.DECIMAL);
    private static final List<Kind> FLOATING = Arrays.asList(Kind.FLOAT64, Kind.FLOAT32, Kind.DECIMAL);
    private static final List<Kind> DECIMAL = Arrays.asList(Kind.DECIMAL, Kind.FLOAT64, Kind.FLOAT32);
    private static final List<Kind> BOOLEAN = Arrays.asList(Kind.BOOL);
    private static final List<Kind> TEXT = Arrays.asList(Kind.STRING, Kind.LOW_CARDINALITY, Kind.FIXED_STRING);
    private static final List<Kind> TIME = Arrays.asList(Kind.DATETIME64, Kind.DATETIME, Kind.DATE32, Kind.DATE);
    private static final List<Kind> LIST = Arrays.asList(Kind.ARRAY, Kind.TUPLE, Kind.POINT, Kind.RING,
            Kind.LINE_STRING, Kind.MULTI_LINE_STRING, Kind.POLYGON, Kind.MULTI_POLYGON);
    private static final List<Kind> OBJECT = Arrays.asList(Kind.MAP, Kind.TUPLE, Kind.JSON);

    private final ClickHouseType type;
    private final List<ClickHouseType> variants;
    private final ValueWriter[] writers;
    private final NativeColumn[] scratch;

    VariantWriter(ClickHouseType type) {
        this.type = type;
        this.variants = Composites.sortedVariants(type);
        this.writers = new ValueWriter[variants.size()];
        this.scratch = new NativeColumn[variants.size()];
        for (int i = 0; i < writers.length; i++) {
            writers[i] = Writers.writerFor(variants.get(i));
            scratch[i] = Writers.newColumn(variants.get(i), 1);
        }
    }

    @Override
    public void write(Object v, NativeColumn c) {
        VariantColumn vc = (VariantColumn) c;
        Object value = v;
        if (isUnion(v)) {
            Struct u = (Struct) v;
            Field branch = null;
            Object branchValue = null;
            for (Field f : u.schema().fields()) {
                Object b = StructValues.get(u, f);
                if (b != null) {
                    if (branch != null) {
                        throw new ValueException("union Struct has more than one non-null branch");
                    }
                    branch = f;
                    branchValue = b;
                }
            }
            if (branch == null) {
                vc.putNull();
                return;
            }
            value = branchValue;
            for (int i = 0; i < variants.size(); i++) {
                if (variants.get(i).text().equals(branch.name())) {
                    put(vc, i, value);
                    return;
                }
            }
        }
        for (int i : candidates(value)) {
            if (fits(i, value)) {
                put(vc, i, value);
                return;
            }
        }
        throw new ValueException("no variant of " + type.text() + " holds a " + ValueException.kindOf(value)
                + " value exactly");
    }

    private void put(VariantColumn vc, int i, Object value) {
        CompositeWriters.element(variants.get(i), writers[i], value, vc.select(i), "variant " + variants.get(i));
    }

    private boolean fits(int i, Object value) {
        NativeColumn s = scratch[i];
        s.markRow();
        try {
            writers[i].write(value, s);
            return true;
        } catch (ValueException | ClassCastException e) {
            return false;
        } finally {
            s.rollbackRow();
        }
    }

    private List<Integer> candidates(Object v) {
        List<Kind> order;
        boolean thenOthers = false;
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte
                || v instanceof BigInteger) {
            order = INTEGRAL;
        } else if (v instanceof Double || v instanceof Float) {
            order = FLOATING;
        } else if (v instanceof BigDecimal) {
            order = DECIMAL;
        } else if (v instanceof Boolean) {
            order = BOOLEAN;
        } else if (v instanceof CharSequence) {
            order = TEXT;
            thenOthers = true; // then every other variant that parses the text (UUID, dates, numbers, enums...)
        } else if (v instanceof byte[] || v instanceof ByteBuffer) {
            order = TEXT;
        } else if (v instanceof java.util.Date) {
            order = TIME;
        } else if (v instanceof Collection) {
            order = LIST;
        } else if (v instanceof Map || v instanceof Struct) {
            order = OBJECT;
        } else {
            order = java.util.Collections.emptyList();
            thenOthers = true;
        }
        List<Integer> out = new ArrayList<>();
        for (Kind k : order) {
            for (int i = 0; i < variants.size(); i++) {
                if (variants.get(i).kind() == k) {
                    out.add(i);
                }
            }
        }
        if (thenOthers) {
            for (int i = 0; i < variants.size(); i++) {
                if (!out.contains(i) && !LIST.contains(variants.get(i).kind())
                        && !OBJECT.contains(variants.get(i).kind())) {
                    out.add(i);
                }
            }
        }
        return out;
    }
}
