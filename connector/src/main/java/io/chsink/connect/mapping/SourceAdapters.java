package io.chsink.connect.mapping;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * Values whose meaning is in their Connect schema's name rather than their Java type: Avro multi-type unions
 * ({@code io.confluent.connect.avro.Union} Structs, one branch set) and Protobuf oneofs (Structs named
 * {@code io.confluent.connect.protobuf.Union.<name>}), Debezium's temporal types (numbers of
 * days, ms, µs or ns) and its VariableScaleDecimal. Each becomes the value the column writers understand
 * (LocalDate, Instant, Duration, BigDecimal). Resolved once per field schema; plain schemas get no adapter.
 */
public final class SourceAdapters {
    public static final String AVRO_UNION = "io.confluent.connect.avro.Union";
    /** Protobuf oneofs: Structs named {@code io.confluent.connect.protobuf.Union.<oneof name>}. */
    public static final String PROTOBUF_ONEOF_PREFIX = "io.confluent.connect.protobuf.Union";
    static final String DEBEZIUM_VARIABLE_SCALE_DECIMAL = "io.debezium.data.VariableScaleDecimal";

    private SourceAdapters() {
    }

    /** The adapter for values of {@code schema}, or null when they are written as they are. */
    static UnaryOperator<Object> forSchema(Schema schema) {
        String name = schema.name();
        if (name == null) {
            return null;
        }
        if (name.startsWith(PROTOBUF_ONEOF_PREFIX) && schema.type() == Schema.Type.STRUCT) {
            return union(schema);
        }
        switch (name) {
            case AVRO_UNION:
                return union(schema);
            case DEBEZIUM_VARIABLE_SCALE_DECIMAL:
                return SourceAdapters::variableScaleDecimal;
            case "io.debezium.time.Date":
                return v -> LocalDate.ofEpochDay(((Number) v).longValue());
            case "io.debezium.time.Timestamp":
                return v -> Instant.ofEpochMilli(((Number) v).longValue());
            case "io.debezium.time.MicroTimestamp":
                return v -> epochFraction(((Number) v).longValue(), 1_000_000L);
            case "io.debezium.time.NanoTimestamp":
                return v -> epochFraction(((Number) v).longValue(), 1_000_000_000L);
            case "io.debezium.time.Time":
                return v -> Duration.ofMillis(((Number) v).longValue());
            case "io.debezium.time.MicroTime":
                return v -> Duration.ofNanos(Math.multiplyExact(((Number) v).longValue(), 1000L));
            case "io.debezium.time.NanoTime":
                return v -> Duration.ofNanos(((Number) v).longValue());
            default:
                return null;
        }
    }

    private static Instant epochFraction(long amount, long perSecond) {
        long nanosPerUnit = 1_000_000_000L / perSecond;
        return Instant.ofEpochSecond(Math.floorDiv(amount, perSecond), Math.floorMod(amount, perSecond) * nanosPerUnit);
    }

    /** The one branch of an Avro union that is set, adapted by its own schema. */
    private static UnaryOperator<Object> union(Schema schema) {
        List<Field> fields = schema.fields();
        @SuppressWarnings("unchecked")
        UnaryOperator<Object>[] branches = new UnaryOperator[fields.size()];
        for (int i = 0; i < branches.length; i++) {
            branches[i] = forSchema(fields.get(i).schema());
        }
        return v -> {
            if (!(v instanceof Struct)) {
                return v;
            }
            Struct s = (Struct) v;
            for (int i = 0; i < branches.length; i++) {
                Object b = StructValues.get(s, fields.get(i));
                if (b != null) {
                    return branches[i] == null ? b : branches[i].apply(b);
                }
            }
            return null;
        };
    }

    private static Object variableScaleDecimal(Object v) {
        if (!(v instanceof Struct)) {
            return v;
        }
        Struct s = (Struct) v;
        Object scale = StructValues.get(s, "scale");
        Object bytes = StructValues.get(s, "value");
        if (!(scale instanceof Number) || bytes == null) {
            throw new ValueException("VariableScaleDecimal without scale or value");
        }
        byte[] b;
        if (bytes instanceof ByteBuffer) {
            ByteBuffer d = ((ByteBuffer) bytes).duplicate();
            b = new byte[d.remaining()];
            d.get(b);
        } else {
            b = (byte[]) bytes;
        }
        return new BigDecimal(new BigInteger(b), ((Number) scale).intValue());
    }
}
