package io.chsink.connect.convert.avro;

import io.chsink.connect.mapping.StructFill;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.JsonProperties;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;

/**
 * Turns an Avro writer schema into the Connect schema Confluent's AvroData makes of it (with its settings
 * connect.meta.data, enhanced.avro.schema.support, scrub.invalid.names and flatten.singleton.unions;
 * generalized.sum.type.support=false) and, in the same
 * pass, into a {@link ValueReader} tree that decodes Avro binary written with that schema straight into the Connect
 * values AvroData would produce: no GenericRecord in between. The rules, type by type, are in docs/avro.md.
 * A recursive schema (a record that contains itself) is refused with a message naming the record.
 */
final class AvroTranslator {
    static final String NAMESPACE = "io.confluent.connect.avro";
    static final String UNION = NAMESPACE + ".Union";
    static final String ENUM = NAMESPACE + ".Enum";
    static final String DEFAULT_NAME = NAMESPACE + ".ConnectDefault";
    static final String MAP_ENTRY = "MapEntry";
    static final String RECORD_DOC = NAMESPACE + ".record.doc";
    static final String FIELD_DOC_PREFIX = NAMESPACE + ".field.doc.";
    static final String FIELD_DEFAULT_FLAG = NAMESPACE + ".field.default";
    static final String ENUM_DOC_PREFIX = NAMESPACE + ".enum.doc.";
    static final String ENUM_DEFAULT_PREFIX = NAMESPACE + ".enum.default.";
    static final String FIXED_SIZE = "connect.fixed.size";
    static final String DECIMAL_PRECISION = "connect.decimal.precision";
    /**
     * The precision AvroData leaves out of the Connect schema (AvroData.CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT; its
     * fromConnectSchema writes it back for a Decimal without connect.decimal.precision).
     */
    static final int DECIMAL_PRECISION_DEFAULT = 64;
    static final String CONNECT_NAME = "connect.name";
    static final String CONNECT_DOC = "connect.doc";
    static final String CONNECT_VERSION = "connect.version";
    static final String CONNECT_DEFAULT = "connect.default";
    static final String CONNECT_PARAMETERS = "connect.parameters";
    static final String CONNECT_TYPE = "connect.type";
    static final String CONNECT_INTERNAL_TYPE = "connect.internal.type";
    /** ConnectVariant.LOGICAL_NAME (Confluent's schema-converter module). */
    static final String VARIANT = "org.apache.kafka.connect.data.Variant";
    private static final long MILLIS_PER_DAY = 86_400_000L;

    /** Reads one value of a translated schema. */
    interface ValueReader {
        Object read(AvroInput in);
    }

    /** A Connect schema and the reader of values written with the Avro schema it came from. */
    static final class Translated {
        final Schema schema;
        final ValueReader reader;
        /** Where the reader finds the schema of the Structs it makes (null: it makes none). */
        final Holder built;

        Translated(Schema schema, ValueReader reader) {
            this(schema, reader, null);
        }

        Translated(Schema schema, ValueReader reader, Holder built) {
            this.schema = schema;
            this.reader = reader;
            this.built = built;
        }
    }

    private final boolean connectMetaData;
    private final boolean enhancedSchemaSupport;
    private final boolean scrubInvalidNames;
    private final boolean flattenSingletonUnions;
    /** Full names of the records being translated: one seen again inside itself is a recursive schema. */
    private final Set<String> open = new HashSet<>();

    AvroTranslator(boolean connectMetaData, boolean enhancedSchemaSupport) {
        this(connectMetaData, enhancedSchemaSupport, false, true);
    }

    /**
     * With AvroData's settings connect.meta.data, enhanced.avro.schema.support, scrub.invalid.names and
     * flatten.singleton.unions (AvroDataConfig; defaults true, false, false, true).
     */
    AvroTranslator(boolean connectMetaData, boolean enhancedSchemaSupport, boolean scrubInvalidNames,
            boolean flattenSingletonUnions) {
        this.connectMetaData = connectMetaData;
        this.enhancedSchemaSupport = enhancedSchemaSupport;
        this.scrubInvalidNames = scrubInvalidNames;
        this.flattenSingletonUnions = flattenSingletonUnions;
    }

    /** The Connect schema and reader of a top-level writer schema. */
    Translated translate(org.apache.avro.Schema schema) {
        open.clear();
        return node(schema, false, null, null);
    }

    private Translated node(org.apache.avro.Schema schema, boolean forceOptional, Object fieldDefault, String docDefault) {
        String connectType = schema.getProp(CONNECT_TYPE);
        String logicalType = schema.getProp("logicalType");
        SchemaBuilder builder;
        ValueReader reader;
        // Set where the Connect schema is only known after build(): the readers that make Structs need it.
        Holder built = new Holder();
        switch (schema.getType()) {
            case BOOLEAN:
                builder = SchemaBuilder.bool();
                reader = AvroInput::readBoolean;
                break;
            case BYTES:
            case FIXED: {
                boolean fixed = schema.getType() == org.apache.avro.Schema.Type.FIXED;
                int size = fixed ? schema.getFixedSize() : -1;
                if ("decimal".equalsIgnoreCase(logicalType)) {
                    // As AvroData.toConnectSchema: "scale" from the Avro scale (0 when absent), and
                    // connect.decimal.precision only when the Avro schema has a precision other than 64.
                    Object scaleProp = schema.getObjectProp("scale");
                    int scale = scaleProp instanceof Number ? ((Number) scaleProp).intValue() : 0;
                    builder = Decimal.builder(scale);
                    Object precision = schema.getObjectProp("precision");
                    if (precision != null) {
                        if (!(precision instanceof Number)) {
                            throw new DataException("precision property must be a JSON Integer (Avro decimal)");
                        }
                        int p = ((Number) precision).intValue();
                        if (p != DECIMAL_PRECISION_DEFAULT) {
                            builder.parameter(DECIMAL_PRECISION, String.valueOf(p));
                        }
                    }
                    // The scale of the built schema, as AvroData's Decimal.toLogical takes it: connect.parameters
                    // (the type's or the field's) can overwrite it.
                    reader = in -> decimal(fixed ? in.readFixed(size) : in.readBytes(), built.decimalScale());
                } else {
                    builder = SchemaBuilder.bytes();
                    reader = fixed ? in -> ByteBuffer.wrap(in.readFixed(size)) : in -> ByteBuffer.wrap(in.readBytes());
                }
                if (fixed) {
                    builder.parameter(FIXED_SIZE, String.valueOf(size));
                }
                break;
            }
            case DOUBLE:
                builder = SchemaBuilder.float64();
                reader = AvroInput::readDouble;
                break;
            case FLOAT:
                builder = SchemaBuilder.float32();
                reader = AvroInput::readFloat;
                break;
            case INT:
                if (logicalType != null && "date".equalsIgnoreCase(logicalType)) {
                    builder = Date.builder();
                    reader = in -> new java.util.Date(in.readInt() * MILLIS_PER_DAY);
                } else if (logicalType != null && "time-millis".equalsIgnoreCase(logicalType)) {
                    builder = Time.builder();
                    reader = AvroTranslator::timeMillis;
                } else if (logicalType != null || connectType == null) {
                    builder = SchemaBuilder.int32();
                    reader = AvroInput::readInt;
                } else if ("int8".equals(connectType)) {
                    builder = SchemaBuilder.int8();
                    reader = in -> (byte) in.readInt();
                } else if ("int16".equals(connectType)) {
                    builder = SchemaBuilder.int16();
                    reader = in -> (short) in.readInt();
                } else {
                    throw new DataException("Connect type annotation for Avro int field is null");
                }
                break;
            case LONG:
                if ("timestamp-millis".equalsIgnoreCase(logicalType)) {
                    builder = Timestamp.builder();
                    reader = in -> new java.util.Date(in.readLong());
                } else {
                    builder = SchemaBuilder.int64();
                    reader = AvroInput::readLong;
                }
                break;
            case STRING:
                builder = SchemaBuilder.string();
                reader = AvroInput::readString;
                break;
            case ARRAY: {
                org.apache.avro.Schema items = schema.getElementType();
                if (isMapEntry(items)) {
                    if (items.getFields().size() != 2 || items.getField("key") == null || items.getField("value") == null) {
                        throw new DataException("Found map encoded as array of key-value pairs, but array elements "
                                + "do not match the expected format.");
                    }
                    // AvroData translates the key and value on their own (its top-level, cached translation): no
                    // field default or doc is passed down. The records around them stay open, and so does the
                    // MapEntry: one inside its own key or value is recursive (not an endless translation).
                    String entry = items.getFullName();
                    if (!open.add(entry)) {
                        throw new DataException("The Avro schema is recursive: record " + entry + " contains itself, "
                                + "which this converter does not read");
                    }
                    Translated key = node(items.getField("key").schema(), false, null, null);
                    Translated value = node(items.getField("value").schema(), false, null, null);
                    open.remove(entry);
                    builder = SchemaBuilder.map(key.schema, value.schema);
                    boolean keyFirst = items.getField("key").pos() == 0;
                    reader = in -> entryMap(in, keyFirst ? key.reader : value.reader, keyFirst ? value.reader : key.reader, keyFirst);
                } else {
                    Translated element = node(items, false, null, null);
                    builder = SchemaBuilder.array(element.schema);
                    reader = in -> array(in, element.reader);
                }
                break;
            }
            case MAP: {
                Translated value = node(schema.getValueType(), false, null, null);
                builder = SchemaBuilder.map(Schema.STRING_SCHEMA, value.schema);
                reader = in -> map(in, value.reader);
                break;
            }
            case RECORD: {
                if (isVariant(schema)) {
                    // AvroData.toConnectSchema case RECORD: a record with Confluent's logical type "variant" (two
                    // bytes fields, metadata and value: VariantLogicalType.isVariantSchema) is ConnectVariant's
                    // struct org.apache.kafka.connect.data.Variant (metadata, value: bytes), without docs; its values
                    // are the two fields' bytes, by name.
                    builder = SchemaBuilder.struct().name(VARIANT).field("metadata", Schema.BYTES_SCHEMA)
                            .field("value", Schema.BYTES_SCHEMA);
                    boolean metadataFirst = schema.getFields().get(0).name().equals("metadata");
                    reader = in -> {
                        ByteBuffer first = ByteBuffer.wrap(in.readBytes());
                        ByteBuffer second = ByteBuffer.wrap(in.readBytes());
                        return new Struct(built.schema).put("metadata", metadataFirst ? first : second)
                                .put("value", metadataFirst ? second : first);
                    };
                    break;
                }
                String name = schema.getFullName();
                if (!open.add(name)) {
                    throw new DataException("The Avro schema is recursive: record " + name + " contains itself, which "
                            + "this converter does not read");
                }
                builder = SchemaBuilder.struct();
                if (connectMetaData && schema.getDoc() != null) {
                    builder.parameter(RECORD_DOC, schema.getDoc());
                }
                List<org.apache.avro.Schema.Field> fields = schema.getFields();
                ValueReader[] readers = new ValueReader[fields.size()];
                for (int i = 0; i < readers.length; i++) {
                    org.apache.avro.Schema.Field f = fields.get(i);
                    if (connectMetaData && f.doc() != null) {
                        builder.parameter(FIELD_DOC_PREFIX + f.name(), f.doc());
                    }
                    Object defaultValue = null;
                    if (f.hasDefaultValue()) {
                        try {
                            defaultValue = f.defaultVal();
                        } catch (RuntimeException unreadable) {
                            // Avro cannot make a value of it (a default of an empty union throws an index error):
                            // ignored, like a default that does not convert below.
                        }
                    }
                    Translated field = node(f.schema(), false, defaultValue, f.doc());
                    if (connectMetaData) {
                        // As AvroData.toConnectSchema (case RECORD): a field's own connect.parameters are added to
                        // its schema's (applyFieldLevelParams).
                        Object fieldParameters = f.getObjectProp(CONNECT_PARAMETERS);
                        if (fieldParameters instanceof Map) {
                            field = withFieldParameters(field, (Map<?, ?>) fieldParameters);
                        }
                    }
                    builder.field(f.name(), field.schema);
                    readers[i] = field.reader;
                }
                open.remove(name);
                reader = in -> record(in, built.schema, readers);
                break;
            }
            case ENUM: {
                builder = SchemaBuilder.string();
                if (connectMetaData) {
                    if (schema.getDoc() != null) {
                        builder.parameter(ENUM_DOC_PREFIX + schema.getName(), schema.getDoc());
                    }
                    if (schema.getEnumDefault() != null) {
                        builder.parameter(ENUM_DEFAULT_PREFIX + schema.getName(), schema.getEnumDefault());
                    }
                }
                builder.parameter(ENUM, schema.getFullName());
                for (String symbol : schema.getEnumSymbols()) {
                    builder.parameter(ENUM + "." + symbol, symbol);
                }
                String[] symbols = schema.getEnumSymbols().toArray(new String[0]);
                reader = in -> symbols[in.readIndex(symbols.length, "enum symbol")];
                break;
            }
            case UNION: {
                List<org.apache.avro.Schema> branches = schema.getTypes();
                if (branches.size() == 1 && flattenSingletonUnions) {
                    Translated only = node(branches.get(0), false, null, docDefault);
                    return new Translated(only.schema, in -> {
                        in.readIndex(1, "union branch");
                        return only.reader.read(in);
                    }, only.built);
                }
                if (branches.size() == 2) {
                    int nullAt = branches.get(0).getType() == org.apache.avro.Schema.Type.NULL ? 0
                            : branches.get(1).getType() == org.apache.avro.Schema.Type.NULL ? 1 : -1;
                    if (nullAt >= 0) {
                        Translated value = node(branches.get(1 - nullAt), true, null, docDefault);
                        return new Translated(value.schema, in ->
                                in.readIndex(2, "union branch") == nullAt ? null : value.reader.read(in), value.built);
                    }
                }
                builder = SchemaBuilder.struct().name(UNION);
                Set<String> names = new HashSet<>();
                String[] fieldNames = new String[branches.size()];
                ValueReader[] readers = new ValueReader[branches.size()];
                for (int i = 0; i < branches.size(); i++) {
                    org.apache.avro.Schema branch = branches.get(i);
                    if (branch.getType() == org.apache.avro.Schema.Type.NULL) {
                        builder.optional();
                        continue;
                    }
                    String fieldName = unionFieldName(branch);
                    if (!names.add(fieldName)) {
                        throw new DataException("Multiple union schemas map to the Connect union field name");
                    }
                    Translated t = node(branch, true, null, null);
                    builder.field(fieldName, t.schema);
                    fieldNames[i] = fieldName;
                    readers[i] = t.reader;
                }
                Field[] fieldOf = new Field[branches.size()];
                // A bytes or fixed branch's value goes to the first field AvroData's toConnectData (case STRUCT, the
                // union case: isInstanceOfAvroSchemaTypeForSimpleSchema) finds for it, not always its own.
                int[] fixedSizes = new int[branches.size()];
                for (int i = 0; i < branches.size(); i++) {
                    org.apache.avro.Schema.Type t = branches.get(i).getType();
                    fixedSizes[i] = t == org.apache.avro.Schema.Type.FIXED ? branches.get(i).getFixedSize()
                            : t == org.apache.avro.Schema.Type.BYTES ? -1 : -2;
                }
                reader = in -> {
                    int i = in.readIndex(readers.length, "union branch");
                    if (readers[i] == null) {
                        return null;
                    }
                    if (fieldOf[i] == null) {
                        fieldOf[i] = built.schema.field(fieldNames[i]);
                    }
                    Struct s = new Struct(built.schema);
                    if (fixedSizes[i] == -2) {
                        s.put(fieldOf[i], readers[i].read(in));
                        return s;
                    }
                    byte[] bytes = fixedSizes[i] >= 0 ? in.readFixed(fixedSizes[i]) : in.readBytes();
                    Field target = bytesBranchField(built.schema, fieldOf[i], fixedSizes[i] >= 0, bytes.length);
                    s.put(target, Decimal.LOGICAL_NAME.equals(target.schema().name())
                            ? decimal(bytes, target.schema()) : ByteBuffer.wrap(bytes));
                    return s;
                };
                break;
            }
            case NULL:
                throw new DataException("Standalone null schemas are not supported by this converter");
            default:
                throw new DataException("Couldn't translate unsupported schema type " + schema.getType().getName() + ".");
        }

        String connectDoc = schema.getProp(CONNECT_DOC);
        if (connectMetaData && connectDoc != null) {
            builder.doc(connectDoc);
        }
        Object version = schema.getObjectProp(CONNECT_VERSION);
        if (version != null) {
            if (!(version instanceof Number)) {
                throw new DataException("Invalid Connect version found: " + version);
            }
            int v = ((Number) version).intValue();
            if (v >= 0) {
                builder.version(v);
            }
        }
        Object parameters = schema.getObjectProp(CONNECT_PARAMETERS);
        if (connectMetaData && parameters != null) {
            if (!(parameters instanceof Map)) {
                throw new DataException("Expected JSON object for schema parameters but found: " + parameters);
            }
            for (Map.Entry<?, ?> p : ((Map<?, ?>) parameters).entrySet()) {
                if (!(p.getValue() instanceof String)) {
                    throw new DataException("Expected schema parameter values to be strings but found: " + p.getValue());
                }
                builder.parameter(String.valueOf(p.getKey()), (String) p.getValue());
            }
        }
        for (Map.Entry<String, Object> prop : schema.getObjectProps().entrySet()) {
            if (prop.getKey().startsWith("avro")) {
                builder.parameter(prop.getKey(), prop.getValue().toString());
            }
        }
        Object connectDefault = schema.getObjectProp(CONNECT_DEFAULT);
        Object defaultValue = fieldDefault;
        if (defaultValue == null) {
            defaultValue = connectDefault;
        } else if (connectMetaData && connectDefault == null) {
            builder.parameter(FIELD_DEFAULT_FLAG, "true");
        }
        if (defaultValue != null) {
            try {
                // AvroData.defaultValueFromAvro: a field's default (Avro's Java object) goes through its toConnectData,
                // a connect.default (JSON) through its JSON rules; either then to the logical type.
                Object plain = fieldDefault != null ? avroDefault(builder, defaultValue, false)
                        : jsonDefault(builder, schema, defaultValue);
                builder.defaultValue(toConnectLogical(builder, plain));
            } catch (RuntimeException invalid) {
                // AvroData logs and ignores a default it cannot convert; so does this converter (quietly).
            }
        }
        String name = null;
        Object connectName = schema.getObjectProp(CONNECT_NAME);
        if (connectName != null) {
            if (!(connectName instanceof String)) {
                throw new DataException("Invalid schema name: " + connectName);
            }
            name = (String) connectName;
        } else if ((schema.getType() == org.apache.avro.Schema.Type.RECORD && !VARIANT.equals(builder.name()))
                || schema.getType() == org.apache.avro.Schema.Type.ENUM) {
            name = schema.getFullName();
        } else if (schema.getType() == org.apache.avro.Schema.Type.FIXED && !Decimal.LOGICAL_NAME.equals(builder.name())) {
            name = schema.getFullName();
        }
        if (name != null && !name.startsWith(DEFAULT_NAME)) {
            if (builder.name() == null) {
                builder.name(name);
            } else if (!name.equals(builder.name())) {
                throw new DataException("Mismatched names: name already added to SchemaBuilder (" + builder.name()
                        + ") differs from name in source schema (" + name + ")");
            }
        }
        if (forceOptional) {
            builder.optional();
        }
        built.set(builder.build());
        return new Translated(built.schema, reader, built);
    }

    static final class Holder {
        Schema schema;
        /** The scale parameter of a Decimal schema; null if it is not a number. */
        private Integer scale;

        void set(Schema s) {
            schema = s;
            if (Decimal.LOGICAL_NAME.equals(s.name())) {
                try {
                    scale = Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD));
                } catch (NumberFormatException e) {
                    scale = null;
                }
            }
        }

        int decimalScale() {
            if (scale == null) {
                throw notANumber(Decimal.SCALE_FIELD);
            }
            return scale;
        }
    }

    /**
     * A field's schema with the field's own connect.parameters added, as AvroData.applyFieldLevelParams: unchanged
     * when each is already a parameter of the same value; otherwise rebuilt with name, version, doc, optional,
     * default, parameters (the field's last) and fields. Two deliberate differences: an array or map keeps its
     * element, key and value schemas (AvroData's rebuilt schema has none, and its values then fail), and a struct's
     * default is dropped (AvroData's SchemaBuilder refuses it, failing the whole schema).
     */
    private static Translated withFieldParameters(Translated t, Map<?, ?> fieldParameters) {
        Schema original = t.schema;
        Map<String, String> params = original.parameters() != null ? original.parameters() : Map.of();
        boolean same = true;
        for (Map.Entry<?, ?> e : fieldParameters.entrySet()) {
            if (!String.valueOf(e.getValue()).equals(params.get(String.valueOf(e.getKey())))) {
                same = false;
                break;
            }
        }
        if (same) {
            return t;
        }
        SchemaBuilder b = original.type() == Schema.Type.ARRAY ? SchemaBuilder.array(original.valueSchema())
                : original.type() == Schema.Type.MAP ? SchemaBuilder.map(original.keySchema(), original.valueSchema())
                : new SchemaBuilder(original.type());
        if (original.name() != null) {
            b.name(original.name());
        }
        if (original.version() != null) {
            b.version(original.version());
        }
        if (original.doc() != null) {
            b.doc(original.doc());
        }
        if (original.isOptional()) {
            b.optional();
        }
        if (original.defaultValue() != null && original.type() != Schema.Type.STRUCT) {
            b.defaultValue(original.defaultValue());
        }
        for (Map.Entry<String, String> e : params.entrySet()) {
            b.parameter(e.getKey(), e.getValue());
        }
        for (Map.Entry<?, ?> e : fieldParameters.entrySet()) {
            b.parameter(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
        }
        if (original.type() == Schema.Type.STRUCT) {
            for (Field f : original.fields()) {
                b.field(f.name(), f.schema());
            }
        }
        Schema rebuilt = b.build();
        if (t.built != null) {
            t.built.set(rebuilt); // the reader's Structs (and decimals) take the rebuilt schema, as AvroData's
        }
        return new Translated(rebuilt, t.reader, t.built);
    }

    /**
     * The field of a union Struct that AvroData's toConnectData gives a bytes or fixed branch's value: the first
     * bytes field (in branch order) that is not a fixed type, or is one of the value's size (a bytes value) or name
     * (a fixed value) (isInstanceOfAvroSchemaTypeForSimpleSchema, fixedValueSizeMatch). When none is (a fixed decimal,
     * whose Connect name is Decimal, never matches a fixed value), AvroData fails the record; this converter keeps the
     * branch's own field.
     */
    private Field bytesBranchField(Schema union, Field own, boolean fixedValue, int size) {
        String ownName = fixedValue ? own.name() : null;
        for (Field f : union.fields()) {
            Schema fs = f.schema();
            if (fs.type() != Schema.Type.BYTES) {
                continue;
            }
            boolean fixedField = fs.name() != null && fs.parameters() != null && fs.parameters().containsKey(FIXED_SIZE);
            if (!fixedField) {
                return f;
            }
            if (fixedValue ? connectUnionFieldName(fs).equals(ownName)
                    : intParameter(fs, FIXED_SIZE) == size) {
                return f;
            }
        }
        return own;
    }

    /** AvroData.unionMemberFieldName(Schema, int) of a named (struct, enum or fixed) Connect schema. */
    private String connectUnionFieldName(Schema s) {
        String name = s.name();
        if (name == null) {
            return "";
        }
        if (enhancedSchemaSupport) {
            return scrubFullName(name);
        }
        String[] parts = name.split("\\.");
        return scrub(parts[parts.length - 1]);
    }

    private String scrubFullName(String name) {
        if (!scrubInvalidNames) {
            return name;
        }
        String[] parts = name.split("\\.");
        for (int i = 0; i < parts.length; i++) {
            parts[i] = scrub(parts[i]);
        }
        return String.join(".", parts);
    }

    private String scrub(String name) {
        return scrubInvalidNames ? scrubName(name) : name;
    }

    /**
     * AvroData.doScrubName: a name of ASCII letters, digits and '_' that does not start with a digit is kept; any
     * other is URL-encoded (UTF-8), prefixed with 'x' if that starts with a digit, and every character other than
     * ASCII letters, digits and '_' replaced by '_'.
     */
    static String scrubName(String name) {
        if (name == null || name.isEmpty()) {
            return name;
        }
        boolean ok = name.charAt(0) < '0' || name.charAt(0) > '9';
        for (int i = 0; i < name.length() && ok; i++) {
            ok = validNameChar(name.charAt(i));
        }
        if (ok) {
            return name;
        }
        String encoded = java.net.URLEncoder.encode(name, StandardCharsets.UTF_8);
        if (encoded.charAt(0) >= '0' && encoded.charAt(0) <= '9') {
            encoded = "x" + encoded;
        }
        StringBuilder sb = new StringBuilder(encoded);
        for (int i = 0; i < sb.length(); i++) {
            if (!validNameChar(sb.charAt(i))) {
                sb.setCharAt(i, '_');
            }
        }
        return sb.toString();
    }

    private static boolean validNameChar(char ch) {
        return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
    }

    /**
     * A record of Confluent's logical type "variant" as AvroData sees it: logicalType "variant" on a record of exactly
     * two fields, metadata and value, both bytes (VariantLogicalType.isVariantSchema; any other record keeps the
     * logical type off, as Avro drops a logical type its validate() refuses).
     */
    private static boolean isVariant(org.apache.avro.Schema schema) {
        if (!"variant".equals(schema.getProp("logicalType")) || schema.getFields().size() != 2) {
            return false;
        }
        org.apache.avro.Schema.Field metadata = schema.getField("metadata");
        org.apache.avro.Schema.Field value = schema.getField("value");
        return metadata != null && metadata.schema().getType() == org.apache.avro.Schema.Type.BYTES
                && value != null && value.schema().getType() == org.apache.avro.Schema.Type.BYTES;
    }

    private static boolean isMapEntry(org.apache.avro.Schema items) {
        if (items.getType() != org.apache.avro.Schema.Type.RECORD) {
            return false;
        }
        return (NAMESPACE.equals(items.getNamespace()) && MAP_ENTRY.equals(items.getName()))
                || MAP_ENTRY.equals(items.getProp(CONNECT_INTERNAL_TYPE));
    }

    /** AvroData.unionMemberFieldName(org.apache.avro.Schema, int). */
    private String unionFieldName(org.apache.avro.Schema branch) {
        switch (branch.getType()) {
            case RECORD:
            case ENUM:
            case FIXED:
                return enhancedSchemaSupport ? branch.getFullName() : scrub(branch.getName());
            default:
                return branch.getType().getName();
        }
    }

    /**
     * A size or scale parameter of a schema as an int. connect.parameters can overwrite it with text;
     * AvroData's Integer.parseInt then fails the record, and so does this converter.
     */
    private static int intParameter(Schema s, String name) {
        try {
            return Integer.parseInt(s.parameters().get(name));
        } catch (NumberFormatException e) {
            throw notANumber(name);
        }
    }

    private static AvroInput.BadAvro notANumber(String parameter) {
        return new AvroInput.BadAvro("the parameter " + parameter + " of a Decimal or fixed schema is not a number "
                + "(connect.parameters overwrote it; Confluent's AvroData fails too)");
    }

    private static Object decimal(byte[] unscaled, Schema decimal) {
        return decimal(unscaled, intParameter(decimal, Decimal.SCALE_FIELD));
    }

    private static Object decimal(byte[] unscaled, int scale) {
        if (unscaled.length == 0) {
            throw new AvroInput.BadAvro("a decimal of zero bytes");
        }
        return new BigDecimal(new BigInteger(unscaled), scale);
    }

    private static Object timeMillis(AvroInput in) {
        int ms = in.readInt();
        if (ms < 0 || ms > MILLIS_PER_DAY) {
            // Connect's Time.toLogical refuses these too.
            throw new AvroInput.BadAvro("a time-millis of " + ms + " ms (a time of day is 0 to 86400000 ms)");
        }
        return new java.util.Date(ms);
    }

    private static Struct record(AvroInput in, Schema schema, ValueReader[] readers) {
        // Each reader reads its value by its field's schema (StructFill's contract).
        Object[] values = new Object[readers.length];
        for (int i = 0; i < readers.length; i++) {
            values[i] = readers[i].read(in);
        }
        return StructFill.of(schema, values);
    }

    private static List<Object> array(AvroInput in, ValueReader element) {
        long n = in.readBlockCount();
        List<Object> out = new ArrayList<>((int) Math.min(n, 1024));
        while (n > 0) {
            for (long i = 0; i < n; i++) {
                out.add(element.read(in));
            }
            n = in.readBlockCount();
        }
        return out;
    }

    private static Map<Object, Object> map(AvroInput in, ValueReader value) {
        long n = in.readBlockCount();
        Map<Object, Object> out = new HashMap<>();
        while (n > 0) {
            for (long i = 0; i < n; i++) {
                String k = in.readString();
                out.put(k, value.read(in));
            }
            n = in.readBlockCount();
        }
        return out;
    }

    private static Map<Object, Object> entryMap(AvroInput in, ValueReader first, ValueReader second, boolean keyFirst) {
        long n = in.readBlockCount();
        Map<Object, Object> out = new HashMap<>();
        while (n > 0) {
            for (long i = 0; i < n; i++) {
                Object a = first.read(in);
                Object b = second.read(in);
                out.put(keyFirst ? a : b, keyFirst ? b : a);
            }
            n = in.readBlockCount();
        }
        return out;
    }

    /**
     * A field's default, Avro's {@code Field.defaultVal()} (Integer, Long, Float, Double, Boolean, String, byte[],
     * List, Map, JsonProperties.NULL_VALUE, typed by the field's schema, a union's by its first branch), as AvroData's
     * toConnectData(schema, value, context, doLogicalConversion) makes a Connect value of it: each Connect type takes
     * only its Java class (an int8 or int16 an Integer); a struct takes a Map whose missing fields take their own
     * Connect default, converted again (so a nested default that is a Struct, a Date or a BigDecimal, a Byte or Short,
     * fails); a union struct takes the value into its first field of a matching Java class. A failure is a
     * DataException or ClassCastException: the default is ignored.
     */
    private Object avroDefault(Schema schema, Object value, boolean logical) {
        if (value == null && !schema.isOptional()) {
            throw new BadDefault("Found null value for non-optional schema");
        }
        if (value == null || value == JsonProperties.NULL_VALUE) {
            return null;
        }
        Object converted;
        switch (schema.type()) {
            case INT32:
                converted = (Integer) value;
                break;
            case INT64:
                converted = (Long) value;
                break;
            case FLOAT32:
                converted = (Float) value;
                break;
            case FLOAT64:
                converted = (Double) value;
                break;
            case BOOLEAN:
                converted = (Boolean) value;
                break;
            case INT8:
                converted = ((Integer) value).byteValue();
                break;
            case INT16:
                converted = ((Integer) value).shortValue();
                break;
            case STRING:
                if (!(value instanceof CharSequence || value instanceof org.apache.avro.generic.GenericEnumSymbol
                        || value instanceof Enum)) {
                    throw new BadDefault("Invalid class for string type");
                }
                converted = value.toString();
                break;
            case BYTES:
                if (value instanceof byte[]) {
                    converted = ByteBuffer.wrap((byte[]) value);
                } else if (value instanceof ByteBuffer) {
                    converted = value;
                } else if (value instanceof org.apache.avro.generic.GenericFixed) {
                    converted = ByteBuffer.wrap(((org.apache.avro.generic.GenericFixed) value).bytes());
                } else {
                    throw new BadDefault("Invalid class for bytes type");
                }
                break;
            case ARRAY: {
                List<Object> out = new ArrayList<>();
                for (Object e : (Collection<?>) value) {
                    out.add(avroDefault(schema.valueSchema(), e, true));
                }
                converted = out;
                break;
            }
            case MAP: {
                if (schema.keySchema().type() != Schema.Type.STRING || schema.keySchema().isOptional()) {
                    // AvroData reads such a map as a collection of MapEntry records: a default Map is not one.
                    throw new BadDefault("Invalid default for a map with non-string keys");
                }
                Map<Object, Object> out = new HashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                    out.put(e.getKey().toString(), avroDefault(schema.valueSchema(), e.getValue(), true));
                }
                converted = out;
                break;
            }
            case STRUCT: {
                if (UNION.equals(schema.name())) {
                    converted = unionDefault(schema, value);
                    break;
                }
                Map<?, ?> fields = (Map<?, ?>) value;
                Struct s = new Struct(schema);
                for (Field f : schema.fields()) {
                    String name = scrub(f.name());
                    Object v = fields.containsKey(name) ? fields.get(name) : f.schema().defaultValue();
                    s.put(f, avroDefault(f.schema(), v, true));
                }
                return s;
            }
            default:
                throw new BadDefault("Unknown Connect schema type: " + schema.type());
        }
        return logical ? toConnectLogical(schema, converted) : converted;
    }

    /** The union case of AvroData.toConnectData for a default: the first field whose Java class the value is. */
    private Object unionDefault(Schema union, Object value) {
        for (Field f : union.fields()) {
            Schema fs = f.schema();
            if (simpleInstance(fs, value)) {
                Struct s = new Struct(union);
                boolean named = fs.type() == Schema.Type.STRUCT || isEnum(fs) || isFixed(fs);
                String name = named ? connectUnionFieldName(fs) : fs.type() == Schema.Type.INT32 ? "int"
                        : fs.type() == Schema.Type.INT64 ? "long" : fs.type() == Schema.Type.FLOAT32 ? "float"
                        : fs.type() == Schema.Type.FLOAT64 ? "double" : fs.type().getName();
                s.put(name, avroDefault(fs, value, true));
                return s;
            }
        }
        throw new BadDefault("Did not find matching union field for data");
    }

    /** AvroData.isInstanceOfAvroSchemaTypeForSimpleSchema for the Java objects of a default. */
    private static boolean simpleInstance(Schema fs, Object value) {
        if (isEnum(fs)) {
            return value.getClass().getName().equals(fs.parameters().get(ENUM));
        }
        switch (fs.type()) {
            case INT32:
                return value instanceof Integer;
            case INT64:
                return value instanceof Long;
            case FLOAT32:
                return value instanceof Float;
            case FLOAT64:
                return value instanceof Double;
            case BOOLEAN:
                return value instanceof Boolean;
            case STRING:
                return value instanceof CharSequence;
            case ARRAY:
                return value instanceof Collection;
            case MAP:
                return value instanceof Map;
            case BYTES: {
                int size;
                if (value instanceof byte[]) {
                    size = ((byte[]) value).length;
                } else if (value instanceof ByteBuffer) {
                    size = ((ByteBuffer) value).remaining();
                } else {
                    return false;
                }
                return !isFixed(fs) || intParameter(fs, FIXED_SIZE) == size;
            }
            default:
                return false;
        }
    }

    private static boolean isEnum(Schema s) {
        return s.type() == Schema.Type.STRING && s.parameters() != null && s.parameters().containsKey(ENUM);
    }

    private static boolean isFixed(Schema s) {
        return s.type() == Schema.Type.BYTES && s.name() != null && s.parameters() != null
                && s.parameters().containsKey(FIXED_SIZE);
    }

    /**
     * A {@code connect.default} (its JSON as Avro's getObjectProp gives it: Integer, Long, Double, Boolean, String,
     * List, Map, JsonProperties.NULL_VALUE) as AvroData.defaultValueFromAvroWithoutLogical takes a JsonNode, by the
     * Avro type: numbers as Jackson's intValue/longValue/doubleValue (0 for a value that is not a number), booleans as
     * asBoolean, strings and enum symbols as asText, bytes as the ISO-8859-1 bytes of a string (null otherwise), a
     * record's missing fields as null, a union's value null if its first branch is null (any other union default is
     * refused, as AvroData's bare branch value is by the union's Struct).
     */
    private Object jsonDefault(Schema schema, org.apache.avro.Schema avro, Object value) {
        if (value == null || value == JsonProperties.NULL_VALUE) {
            return null;
        }
        switch (avro.getType()) {
            case INT:
                if (schema.type() == Schema.Type.INT8) {
                    return (byte) jsonNumber(value).intValue();
                } else if (schema.type() == Schema.Type.INT16) {
                    return jsonNumber(value).shortValue();
                } else if (schema.type() == Schema.Type.INT32) {
                    return jsonNumber(value).intValue();
                }
                return null;
            case LONG:
                return jsonNumber(value).longValue();
            case FLOAT:
                return (float) jsonNumber(value).doubleValue();
            case DOUBLE:
                return jsonNumber(value).doubleValue();
            case BOOLEAN:
                if (value instanceof Boolean) {
                    return value;
                }
                if (value instanceof Integer || value instanceof Long) {
                    return ((Number) value).longValue() != 0;
                }
                return value instanceof String && "true".equals(((String) value).trim());
            case NULL:
                return null;
            case STRING:
            case ENUM:
                return value instanceof Map || value instanceof List ? "" : value.toString();
            case BYTES:
            case FIXED:
                return value instanceof String
                        ? ByteBuffer.wrap(((String) value).getBytes(StandardCharsets.ISO_8859_1)) : null;
            case ARRAY: {
                if (!(value instanceof List)) {
                    throw new BadDefault("Invalid JSON for array default value");
                }
                List<Object> out = new ArrayList<>();
                for (Object e : (List<?>) value) {
                    out.add(toConnectLogical(schema.valueSchema(), jsonDefault(schema.valueSchema(), avro.getElementType(), e)));
                }
                return out;
            }
            case MAP: {
                if (!(value instanceof Map)) {
                    throw new BadDefault("Invalid JSON for map default value");
                }
                Map<Object, Object> out = new HashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                    out.put(e.getKey().toString(), toConnectLogical(schema.valueSchema(),
                            jsonDefault(schema.valueSchema(), avro.getValueType(), e.getValue())));
                }
                return out;
            }
            case RECORD: {
                if (!(value instanceof Map)) {
                    throw new BadDefault("Invalid JSON for record default value");
                }
                Map<?, ?> fields = (Map<?, ?>) value;
                Struct s = new Struct(schema);
                for (org.apache.avro.Schema.Field af : avro.getFields()) {
                    Field f = schema.field(af.name());
                    s.put(af.name(), toConnectLogical(f.schema(), jsonDefault(f.schema(), af.schema(), fields.get(f.name()))));
                }
                return s;
            }
            case UNION:
                if (avro.getTypes().get(0).getType() == org.apache.avro.Schema.Type.NULL) {
                    return null;
                }
                throw new BadDefault("A union's connect.default is its first branch's bare value, not the union's");
            default:
                return null;
        }
    }

    private static Number jsonNumber(Object value) {
        return value instanceof Number ? (Number) value : Integer.valueOf(0);
    }

    /** AvroData.toConnectLogical: the TO_CONNECT_LOGICAL_CONVERTERS, each taking only its underlying class. */
    private static Object toConnectLogical(Schema schema, Object value) {
        if (value == null || schema.name() == null) {
            return value;
        }
        switch (schema.name()) {
            case Decimal.LOGICAL_NAME:
                if (value instanceof byte[]) {
                    return Decimal.toLogical(schema, (byte[]) value);
                } else if (value instanceof ByteBuffer) {
                    return Decimal.toLogical(schema, ((ByteBuffer) value).array());
                }
                throw new BadDefault("Invalid type for Decimal");
            case Date.LOGICAL_NAME:
                return Date.toLogical(schema, (Integer) value);
            case Time.LOGICAL_NAME:
                return Time.toLogical(schema, (Integer) value);
            case Timestamp.LOGICAL_NAME:
                return Timestamp.toLogical(schema, (Long) value);
            default:
                return value;
        }
    }

    /** A default AvroData would not convert (it logs and ignores it; so does this converter, quietly). */
    private static final class BadDefault extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadDefault(String message) {
            super(message, null, false, false);
        }
    }
}
