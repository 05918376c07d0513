package io.chsink.connect.cdc;

import io.chsink.connect.offset.Origin;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * One Debezium change event as the sink needs it: what it does to its row, the image whose fields become the row,
 * and the row's version. Read from the envelope Debezium's connectors write ({@code before}, {@code after},
 * {@code source}, {@code op}, ...), as a Struct or a schemaless map, or from the flattened form of Debezium's
 * ExtractNewRecordState transform (the row's fields plus {@code __deleted} and/or {@code __op}, and the position
 * fields {@code add.fields} copies: {@code __lsn}, or {@code __file}, {@code __pos}, {@code __row}).
 */
final class ChangeEvent {
    enum Kind {
        /** Create, snapshot read or update: the after image is the row. */
        UPSERT,
        /** Delete: the before image (or the key) with the deleted flag. */
        DELETE,
        /** Truncate of the whole source table: no row. */
        TRUNCATE
    }

    /** Fields of the flattened form that say what the event did; they are not written as row fields. */
    static final String DELETED_FIELD = "__deleted";
    static final String OP_FIELD = "__op";

    final Kind kind;
    /** The image whose fields make the row (null for a truncate). */
    final FieldAccess image;
    /** The image's schema when it is a Struct, else null. */
    final Schema imageSchema;
    /**
     * The row's version ({@link ChangeVersion}); null for a truncate. Its field schema is
     * {@link RowVersion#schema()} (the rule's {@link ChangeVersion#bits()}), its value {@link RowVersion#toConnectValue()}.
     */
    final RowVersion version;
    /** Whether the image is the flattened record itself (its __deleted and __op fields are not row fields). */
    final boolean flattened;
    /**
     * The schema of the table's full rows' image: the envelope's before/after field schema (also for a delete whose
     * before is missing or key-only), the image's own schema in the flattened form; null without schemas.
     */
    final Schema fullSchema;
    /** An upsert's fields holding Debezium's placeholder, once {@link ChangeColumns} looked (null before). */
    List<String> placeholders;

    private ChangeEvent(Kind kind, FieldAccess image, Schema imageSchema, RowVersion version, boolean flattened) {
        this(kind, image, imageSchema, version, flattened, imageSchema);
    }

    private ChangeEvent(Kind kind, FieldAccess image, Schema imageSchema, RowVersion version, boolean flattened,
            Schema fullSchema) {
        this.kind = kind;
        this.image = image;
        this.imageSchema = imageSchema;
        this.version = version;
        this.flattened = flattened;
        this.fullSchema = fullSchema;
    }

    /** A change event that cannot be read: the reason, for {@link DebeziumRows} to name the record. */
    static final class Malformed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Malformed(String reason) {
            super(reason, null, false, false);
        }
    }

    /** {@link #read(SinkRecord, ChangeVersion)} with 64-bit versions of epoch 0. */
    static ChangeEvent read(SinkRecord record) {
        return read(record, ChangeVersion.DEFAULT);
    }

    /**
     * Reads a record whose value is not null, its version by {@code rule}; throws {@link Malformed} for one that is
     * no readable change event or whose position does not fit the rule's version.
     */
    static ChangeEvent read(SinkRecord record, ChangeVersion rule) {
        FieldAccess value = FieldAccess.of(record.value());
        if (value == null) {
            throw new Malformed("the record value is " + kindOf(record.value())
                    + "; a change event is a Struct or a map (schemaless JSON)");
        }
        return isEnvelope(value) ? fromEnvelope(record, value, rule) : fromFlattened(record, value, rule);
    }

    /** An envelope has an op and a before or after part; anything else is taken for the flattened form. */
    static boolean isEnvelope(FieldAccess value) {
        return value.has("op") && (value.has("after") || value.has("before"));
    }

    private static ChangeEvent fromEnvelope(SinkRecord record, FieldAccess envelope, ChangeVersion rule) {
        String op = text(envelope.get("op"), "op");
        switch (op) {
            case "c":
            case "r":
            case "u": {
                FieldAccess after = FieldAccess.of(envelope.get("after"));
                if (after == null) {
                    throw new Malformed("op '" + op + "' without an after image (after is "
                            + kindOf(envelope.get("after")) + ")");
                }
                return new ChangeEvent(Kind.UPSERT, after, schemaOf(after), version(record, envelope, rule), false);
            }
            case "d": {
                FieldAccess before = FieldAccess.of(envelope.get("before"));
                if (before == null) {
                    // REPLICA IDENTITY NOTHING and the like: the record key still names the row.
                    before = FieldAccess.of(record.key());
                    if (before == null) {
                        throw new Malformed("a delete (op 'd') with neither a before image nor a Struct or map key");
                    }
                }
                return new ChangeEvent(Kind.DELETE, before, schemaOf(before), version(record, envelope, rule), false,
                        imageSchemaOf(envelope));
            }
            case "t":
                return new ChangeEvent(Kind.TRUNCATE, null, null, null, false);
            case "m":
                throw new Malformed("op 'm' is a logical decoding message, not a row change: route its topic to "
                        + "no table of this connector");
            default:
                throw new Malformed("unknown op '" + printable(op) + "' (expected c, r, u, d or t)");
        }
    }

    private static ChangeEvent fromFlattened(SinkRecord record, FieldAccess row, ChangeVersion rule) {
        Kind kind = Kind.UPSERT;
        if (row.has(OP_FIELD) && row.get(OP_FIELD) != null) {
            String op = text(row.get(OP_FIELD), OP_FIELD);
            switch (op) {
                case "c":
                case "r":
                case "u":
                    break;
                case "d":
                    kind = Kind.DELETE;
                    break;
                case "t":
                    return new ChangeEvent(Kind.TRUNCATE, null, null, null, true);
                default:
                    throw new Malformed("unknown " + OP_FIELD + " '" + printable(op) + "' (expected c, r, u, d or t)");
            }
        }
        if (row.has(DELETED_FIELD) && deletedFlag(row.get(DELETED_FIELD))) {
            kind = Kind.DELETE;
        }
        return new ChangeEvent(kind, row, schemaOf(row), flattenedVersion(record, row, rule), true);
    }

    private static boolean deletedFlag(Object v) {
        if (v == null) {
            return false;
        }
        if (v instanceof Boolean) {
            return (Boolean) v;
        }
        if (v instanceof String) {
            String s = ((String) v).trim().toLowerCase(Locale.ROOT);
            if (s.equals("true")) {
                return true;
            }
            if (s.equals("false")) {
                return false;
            }
        }
        throw new Malformed(DELETED_FIELD + " is " + kindOf(v) + ", not \"true\", \"false\" or a boolean");
    }

    /** The version from the envelope's source block, by the rule of its connector ({@link ChangeVersion}). */
    private static RowVersion version(SinkRecord record, FieldAccess envelope, ChangeVersion rule) {
        FieldAccess source = FieldAccess.of(envelope.get("source"));
        if (source == null) {
            throw new Malformed("no source block (source is " + kindOf(envelope.get("source")) + ")");
        }
        Object connector = source.get("connector");
        String c = connector instanceof String ? (String) connector : "";
        String topic = record.topic();
        try {
            switch (c) {
                case "postgresql":
                    return rule.postgres(topic, number(source.get("lsn"), "source.lsn"));
                case "mysql":
                case "mariadb":
                    return rule.binlog(topic, file(source.get("file"), "source.file"),
                            number(source.get("pos"), "source.pos"), rowOrZero(source.get("row"), "source.row"));
                default:
                    return rule.kafkaOffset(topic, Origin.offset(record));
            }
        } catch (IllegalArgumentException e) {
            throw new Malformed(e.getMessage());
        }
    }

    /**
     * The flattened form: __lsn (add.fields=lsn; or __source_lsn) for PostgreSQL, __file and __pos (and __row) for
     * MySQL, else the Kafka offset.
     */
    private static RowVersion flattenedVersion(SinkRecord record, FieldAccess row, ChangeVersion rule) {
        String topic = record.topic();
        try {
            for (String f : new String[] {"__lsn", "__source_lsn"}) {
                if (row.has(f)) {
                    return rule.postgres(topic, number(row.get(f), f));
                }
            }
            for (String p : new String[] {"__", "__source_"}) {
                if (row.has(p + "file") && row.has(p + "pos")) {
                    return rule.binlog(topic, file(row.get(p + "file"), p + "file"),
                            number(row.get(p + "pos"), p + "pos"), rowOrZero(row.get(p + "row"), p + "row"));
                }
            }
            return rule.kafkaOffset(topic, Origin.offset(record));
        } catch (IllegalArgumentException e) {
            throw new Malformed(e.getMessage());
        }
    }

    private static long number(Object v, String field) {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof String) {
            try {
                return Long.parseLong(((String) v).trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(field + " is a string that is not an integer");
            }
        }
        throw new IllegalArgumentException(field + " is " + kindOf(v) + ", not an integer");
    }

    private static long rowOrZero(Object v, String field) {
        return v == null ? 0 : number(v, field);
    }

    private static String file(Object v, String field) {
        if (!(v instanceof String)) {
            throw new IllegalArgumentException(field + " is " + kindOf(v) + ", not a binlog file name");
        }
        return (String) v;
    }

    private static String text(Object v, String field) {
        if (!(v instanceof String)) {
            throw new Malformed(field + " is " + kindOf(v) + ", not a string");
        }
        return (String) v;
    }

    /** The envelope's before (or after) field schema when it is a struct schema, else null. */
    private static Schema imageSchemaOf(FieldAccess envelope) {
        Object v = envelope.value();
        if (!(v instanceof org.apache.kafka.connect.data.Struct)) {
            return null;
        }
        Schema s = ((org.apache.kafka.connect.data.Struct) v).schema();
        for (String f : new String[] {"before", "after"}) {
            org.apache.kafka.connect.data.Field field = s.field(f);
            if (field != null && field.schema().type() == Schema.Type.STRUCT) {
                return field.schema();
            }
        }
        return null;
    }

    private static Schema schemaOf(FieldAccess image) {
        Object v = image.value();
        return v instanceof org.apache.kafka.connect.data.Struct ? ((org.apache.kafka.connect.data.Struct) v).schema()
                : null;
    }

    /** An op is one letter; anything longer is cut, so a message never carries much of a bad value. */
    private static String printable(String op) {
        String s = op.length() > 8 ? op.substring(0, 8) + "..." : op;
        return s.replaceAll("[^\\x20-\\x7e]", "?");
    }

    static String kindOf(Object v) {
        return v == null ? "null" : v.getClass().getSimpleName();
    }
}
