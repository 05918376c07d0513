package io.chsink.connect.cdc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * Builds the row of a change: the image's fields (less the ones the connector fills and the flattened form's
 * markers) plus the version and deleted columns. For Struct images the row schema is made once per image schema and
 * reused, so the table mapping plans it once ({@code TableMapping} caches plans per value schema).
 */
final class RowShapes {
    private final String versionColumn;
    private final String deletedColumn;
    private final Map<Schema, Shape> byIdentity = new IdentityHashMap<>();
    private final Map<Schema, Shape> byEquality = new HashMap<>();
    private final Map<Schema, Map<List<String>, Shape>> deletes = new IdentityHashMap<>();

    RowShapes(String versionColumn, String deletedColumn) {
        this.versionColumn = versionColumn;
        this.deletedColumn = deletedColumn;
    }

    /** The row schema for images of {@code imageSchema} (the same instance every time). */
    Schema schemaFor(Schema imageSchema, boolean flattened) {
        return shape(imageSchema, flattened).schema;
    }

    /**
     * The row of an image. A delete with a key ({@code keyFields} not null) carries the key fields only: its other
     * columns take their defaults (Debezium's before image of a key-only delete holds placeholders there, e.g. "" for
     * a UUID, which need not fit the column).
     */
    Struct row(Struct image, boolean flattened, long version, boolean deleted, List<String> keyFields) {
        Shape s = deleted && keyFields != null ? deleteShape(image.schema(), flattened, keyFields)
                : shape(image.schema(), flattened);
        Struct row = new Struct(s.schema);
        for (int i = 0; i < s.from.length; i++) {
            row.put(s.to[i], image.get(s.from[i]));
        }
        row.put(s.version, version);
        row.put(s.deleted, deleted ? (byte) 1 : (byte) 0);
        return row;
    }

    Map<String, Object> row(Map<?, ?> image, boolean flattened, long version, boolean deleted,
            List<String> keyFields) {
        Map<String, Object> row = new LinkedHashMap<>(image.size() + 2);
        for (Map.Entry<?, ?> e : image.entrySet()) {
            String name = String.valueOf(e.getKey());
            if (!skipped(name, flattened) && (!deleted || keyFields == null || keyFields.contains(name))) {
                row.put(name, e.getValue());
            }
        }
        row.put(versionColumn, version);
        row.put(deletedColumn, deleted ? 1L : 0L);
        return row;
    }

    private Shape deleteShape(Schema image, boolean flattened, List<String> keyFields) {
        Map<List<String>, Shape> byKey = deletes.computeIfAbsent(image, k -> new HashMap<>());
        Shape s = byKey.get(keyFields);
        if (s == null || s.flattened != flattened) {
            s = new Shape(image, flattened, keyFields);
            byKey.put(keyFields, s);
        }
        return s;
    }

    private Shape shape(Schema image, boolean flattened) {
        Shape s = byIdentity.get(image);
        if (s == null || s.flattened != flattened) {
            s = byEquality.get(image);
            if (s == null || s.flattened != flattened) {
                s = new Shape(image, flattened, null);
                byEquality.put(image, s);
            }
            byIdentity.put(image, s);
        }
        return s;
    }

    /** Fields the connector fills itself, and the flattened form's markers, are not copied. */
    private boolean skipped(String name, boolean flattened) {
        return name.equals(versionColumn) || name.equals(deletedColumn)
                || flattened && (name.equals(ChangeEvent.DELETED_FIELD) || name.equals(ChangeEvent.OP_FIELD));
    }

    /** Names of the fields a row of this image schema carries besides version and deleted. */
    List<String> copiedFields(Schema image, boolean flattened) {
        List<String> out = new ArrayList<>();
        for (Field f : shape(image, flattened).from) {
            out.add(f.name());
        }
        return out;
    }

    private final class Shape {
        final boolean flattened;
        final Schema schema;
        final Field[] from;
        final Field[] to;
        final Field version;
        final Field deleted;

        Shape(Schema image, boolean flattened, List<String> keyFields) {
            this.flattened = flattened;
            SchemaBuilder b = SchemaBuilder.struct();
            if (image.name() != null) {
                b.name(image.name());
            }
            List<Field> copied = new ArrayList<>();
            for (Field f : image.fields()) {
                if (!skipped(f.name(), flattened) && (keyFields == null || keyFields.contains(f.name()))) {
                    b.field(f.name(), f.schema());
                    copied.add(f);
                }
            }
            b.field(versionColumn, Schema.INT64_SCHEMA);
            b.field(deletedColumn, Schema.INT8_SCHEMA);
            this.schema = b.build();
            this.from = copied.toArray(new Field[0]);
            this.to = new Field[from.length];
            for (int i = 0; i < from.length; i++) {
                to[i] = schema.field(from[i].name());
            }
            this.version = schema.field(versionColumn);
            this.deleted = schema.field(deletedColumn);
        }
    }
}
