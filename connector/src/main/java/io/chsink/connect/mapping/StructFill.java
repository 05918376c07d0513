package io.chsink.connect.mapping;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * Makes a Struct of values that are already valid for their field schemas, without Connect validating each of them
 * again. {@code Struct.put} runs {@code ConnectSchema.validateValue} on every value, and on a Struct value validates
 * that whole Struct once more, field by field: a tenth of a task's time on Debezium envelopes, for values the caller
 * made valid itself (a converter reading a value by its field schema) or took from a Struct that validated them
 * under the same field schema. Here the values go straight into the Struct's own array (Connect's {@code Struct}
 * keeps them in its private field {@code values} in every version from 2.x to 4.1); where that field cannot be
 * reached, each value is put as before.
 *
 * <p>Contract: {@code values[i]} is null or a value {@code Struct.put} accepts for {@code schema.fields().get(i)}
 * (read by that field schema, or taken from a Struct under an equal one). The result is the Struct those puts make:
 * equal to it, and valid by {@code Struct.validate()}. A null in a required field (a Struct whose field was never set)
 * is put, so that Connect refuses it with its own DataException, as before.
 */
public final class StructFill {
    private static final VarHandle VALUES = find();

    private StructFill() {
    }

    private static VarHandle find() {
        try {
            VarHandle h = MethodHandles.privateLookupIn(Struct.class, MethodHandles.lookup())
                    .findVarHandle(Struct.class, "values", Object[].class);
            Schema probe = org.apache.kafka.connect.data.SchemaBuilder.struct()
                    .field("a", Schema.INT32_SCHEMA).field("b", Schema.OPTIONAL_STRING_SCHEMA).build();
            Struct s = new Struct(probe);
            Object[] own = (Object[]) h.get(s);
            if (own.length != 2) {
                return null;
            }
            own[0] = 1;
            own[1] = "x";
            s.validate();
            return s.equals(new Struct(probe).put("a", 1).put("b", "x")) ? h : null;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null; // another Struct than the one this was written against: put every value
        }
    }

    /** Whether values go straight into the Struct's array (false: each is put, and validated, by Connect). */
    public static boolean direct() {
        return VALUES != null;
    }

    /** A Struct of {@code schema} holding {@code values}, one per field in field order (see the contract above). */
    public static Struct of(Schema schema, Object[] values) {
        Struct s = new Struct(schema);
        List<Field> fields = schema.fields();
        if (VALUES != null && !nullInRequired(fields, values)) {
            Object[] own = (Object[]) VALUES.get(s);
            System.arraycopy(values, 0, own, 0, own.length);
            return s;
        }
        for (int i = 0; i < values.length; i++) {
            s.put(fields.get(i), values[i]); // a null in a required field: Connect's own DataException
        }
        return s;
    }

    /**
     * The Struct's own array of values, for a reader that fills it in place (the contract above holds for what it
     * puts there, and it must not hand the Struct on with a null in a required field: {@link #nullInRequired});
     * null where that array cannot be reached (use {@link #of}).
     */
    public static Object[] ownValues(Struct s) {
        return VALUES == null ? null : (Object[]) VALUES.get(s);
    }

    /** Whether a required field's value is null (a Struct that put() would refuse). */
    private static boolean nullInRequired(List<Field> fields, Object[] values) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null && !fields.get(i).schema().isOptional()) {
                return true;
            }
        }
        return false;
    }
}
