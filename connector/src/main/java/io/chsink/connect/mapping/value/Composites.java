package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.ArrayColumn;
import io.chsink.connect.encoder.DynamicColumn;
import io.chsink.connect.encoder.JsonColumn;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.encoder.TupleColumn;
import io.chsink.connect.encoder.VariantColumn;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.ClickHouseType.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The composite and semi-structured types (Array, Map, Tuple, Nested, JSON, Variant, Dynamic, geo types,
 * SimpleAggregateFunction): which of them the connector writes, their column buffers, their value writers and
 * what a null means for them. {@link Writers} delegates here; element types recurse back into it.
 */
final class Composites {
    private Composites() {
    }

    static boolean supported(ClickHouseType t) {
        switch (t.kind()) {
            case ARRAY:
                return elementSupported(t.inner());
            case MAP: case TUPLE: case NESTED: case VARIANT:
                for (ClickHouseType p : t.params()) {
                    if (!elementSupported(p)) {
                        return false;
                    }
                }
                return true;
            case SIMPLE_AGGREGATE_FUNCTION:
                return Writers.supported(t.inner());
            case JSON:
                for (ClickHouseType p : t.typedPaths().values()) {
                    if (!elementSupported(p)) {
                        return false;
                    }
                }
                return true;
            default:
                return true; // Dynamic, geo types
        }
    }

    /** Inside a composite, LowCardinality is written only over String (the client-side dictionary). */
    private static boolean elementSupported(ClickHouseType e) {
        if (e.kind() == Kind.LOW_CARDINALITY) {
            ClickHouseType in = e.inner().kind() == Kind.NULLABLE ? e.inner().inner() : e.inner();
            return in.kind() == Kind.STRING;
        }
        return Writers.supported(e);
    }

    /** The kinds handled here; none of them can travel inside Nullable(...). */
    static boolean isComposite(ClickHouseType t) {
        switch (t.kind()) {
            case ARRAY: case MAP: case TUPLE: case NESTED: case JSON: case VARIANT: case DYNAMIC:
            case SIMPLE_AGGREGATE_FUNCTION: case POINT: case RING: case LINE_STRING: case MULTI_LINE_STRING:
            case POLYGON: case MULTI_POLYGON:
                return true;
            default:
                return false;
        }
    }

    /**
     * Types that cannot be inside Nullable but have a value meaning "nothing", which a null (or a missing field)
     * writes: the empty Array/Map/Nested/geo shape, NULL of Variant and Dynamic, the empty JSON object.
     */
    static boolean handlesNull(ClickHouseType t) {
        switch (t.kind()) {
            case ARRAY: case MAP: case NESTED: case JSON: case VARIANT: case DYNAMIC:
            case RING: case LINE_STRING: case MULTI_LINE_STRING: case POLYGON: case MULTI_POLYGON:
                return true;
            default:
                return false;
        }
    }

    static void writeNull(ClickHouseType t, NativeColumn c) {
        c.putDefault(); // empty array/map/object, NULL variant and dynamic
    }

    static NativeColumn newColumn(ClickHouseType t, int rows) {
        switch (t.kind()) {
            case ARRAY:
                return new ArrayColumn(t.text(), Writers.newColumn(t.inner(), rows), rows);
            case MAP: {
                ClickHouseType k = t.params().get(0);
                ClickHouseType v = t.params().get(1);
                TupleColumn entries = new TupleColumn("Tuple(" + k.text() + ", " + v.text() + ")",
                        new NativeColumn[] {Writers.newColumn(k, rows), Writers.newColumn(v, rows)});
                return new ArrayColumn(t.text(), entries, rows);
            }
            case TUPLE: {
                NativeColumn[] elements = new NativeColumn[t.params().size()];
                for (int i = 0; i < elements.length; i++) {
                    elements[i] = Writers.newColumn(t.params().get(i), rows);
                }
                return new TupleColumn(t.text(), elements);
            }
            case NESTED: // sent as Array(Tuple(name T, ...)), the same layout
            case SIMPLE_AGGREGATE_FUNCTION: // sent as T; the server converts to its own type
                return Writers.newColumn(t.structure(), rows);
            case POINT: case RING: case LINE_STRING: case MULTI_LINE_STRING: case POLYGON: case MULTI_POLYGON:
                return renamed(t.structure(), t.text(), rows);
            case VARIANT: {
                List<ClickHouseType> vs = sortedVariants(t);
                NativeColumn[] cols = new NativeColumn[vs.size()];
                for (int i = 0; i < cols.length; i++) {
                    cols[i] = Writers.newColumn(vs.get(i), rows);
                }
                return new VariantColumn(t.text(), cols, rows);
            }
            case DYNAMIC:
                return new DynamicColumn(t.text(), rows);
            case JSON: {
                Map<String, NativeColumn> typed = new LinkedHashMap<>();
                for (Map.Entry<String, ClickHouseType> e : t.typedPaths().entrySet()) {
                    typed.put(e.getKey(), Writers.newColumn(e.getValue(), rows));
                }
                return new JsonColumn(t.text(), typed, rows);
            }
            default:
                throw new IllegalArgumentException("not a composite type: " + t.text());
        }
    }

    /** A geo type's column: its structure's layout under the geo type's own name. */
    private static NativeColumn renamed(ClickHouseType structure, String wireType, int rows) {
        NativeColumn c = Writers.newColumn(structure, rows);
        if (c instanceof ArrayColumn) {
            return new ArrayColumn(wireType, ((ArrayColumn) c).nested(), rows);
        }
        TupleColumn tc = (TupleColumn) c;
        NativeColumn[] els = new NativeColumn[tc.size()];
        for (int i = 0; i < els.length; i++) {
            els[i] = tc.element(i);
        }
        return new TupleColumn(wireType, els);
    }

    /** Variant discriminators number the variants in the order of their sorted type names. */
    static List<ClickHouseType> sortedVariants(ClickHouseType t) {
        List<ClickHouseType> vs = new ArrayList<>(t.params());
        vs.sort(Comparator.comparing(ClickHouseType::text));
        return vs;
    }

    static ValueWriter writerFor(ClickHouseType t) {
        switch (t.kind()) {
            case ARRAY:
                return CompositeWriters.array(t);
            case MAP:
                return CompositeWriters.map(t);
            case TUPLE:
                return CompositeWriters.tuple(t);
            case NESTED: case SIMPLE_AGGREGATE_FUNCTION:
            case POINT: case RING: case LINE_STRING: case MULTI_LINE_STRING: case POLYGON: case MULTI_POLYGON:
                return Writers.writerFor(t.structure());
            case VARIANT:
                return new VariantWriter(t);
            case DYNAMIC:
                return new DynamicWriter();
            case JSON:
                return new JsonWriter(t);
            default:
                throw new IllegalArgumentException("not a composite type: " + t.text());
        }
    }
}
