package io.chsink.connect.cdc;

import io.chsink.connect.mapping.SchemaMemo;
import io.chsink.connect.mapping.StructFill;
import io.chsink.connect.mapping.StructValues;
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
 * reused, so the table mapping plans it once ({@code TableMapping} caches plans per value schema). A null field
 * value stays null: the field schema's default is not put in its place (the source wrote null).
 */
final class RowShapes {
    private final String versionColumn;
    private final String deletedColumn;
    private final Schema versionSchema;
    private final SchemaMemo<Shape> byIdentity = SchemaMemo.byIdentity();
    private final SchemaMemo<Shape> byEquality = SchemaMemo.byEquality();
    private final Map<List<Object>, DeleteShape> deletes = new HashMap<>();
    /** Delete row schema to the row schema of the table's full rows (for auto.create from a delete). */
    private final Map<Schema, Schema> fullOfDelete = new IdentityHashMap<>();

    RowShapes(String versionColumn, String deletedColumn, int versionBits) {
        this.versionColumn = versionColumn;
        this.deletedColumn = deletedColumn;
        this.versionSchema = RowVersion.schema(versionBits);
    }

    /** The row schema for images of {@code imageSchema} (the same instance every time). */
    Schema schemaFor(Schema imageSchema, boolean flattened) {
        return shape(imageSchema, flattened).schema;
    }

    /** The row of an upsert (or of a delete without a key: its whole image). */
    Struct row(Struct image, boolean flattened, RowVersion version, boolean deleted) {
        Shape s = shape(image.schema(), flattened);
        // The image's values passed its field schemas, which the row's fields share (StructFill's contract).
        Object[] values = new Object[s.from.length + 2];
        for (int i = 0; i < s.from.length; i++) {
            values[s.to[i].index()] = StructValues.get(image, s.from[i]);
        }
        values[s.version.index()] = version.toConnectValue();
        values[s.deleted.index()] = deleted ? (byte) 1 : (byte) 0;
        return StructFill.of(s.schema, values);
    }

    /**
     * The row of a delete: the key fields of {@code image} (a before image or the record key), the given extra
     * columns (those the table's sorting and partition keys read), version and deleted = 1. The table's other
     * columns take their defaults (FINAL hides the row).
     *
     * @param extraSchemas per extra column, its field schema
     * @param fullImage the schema of the table's full rows' image (auto.create from a delete makes those), or null
     */
    Struct deleteRow(Struct image, boolean flattened, RowVersion version, List<String> keyFields, List<String> extra,
            Schema[] extraSchemas, Object[] extraValues, Schema fullImage) {
        List<Object> id = new ArrayList<>(3 + extra.size() * 2);
        id.add(new IdentityKey(image.schema()));
        id.add(flattened);
        id.add(keyFields);
        for (int i = 0; i < extra.size(); i++) {
            id.add(extra.get(i));
            id.add(new IdentityKey(extraSchemas[i]));
        }
        DeleteShape s = deletes.get(id);
        if (s == null) {
            if (deletes.size() >= 10_000) {
                deletes.clear(); // schemas made anew per record by a converter without a cache: do not hoard them
                fullOfDelete.clear();
            }
            s = new DeleteShape(image.schema(), flattened, keyFields, extra, extraSchemas);
            deletes.put(id, s);
            if (fullImage != null) {
                fullOfDelete.put(s.schema, shape(fullImage, flattened).schema);
            }
        }
        Struct row = new Struct(s.schema);
        for (int i = 0; i < s.from.length; i++) {
            row.put(s.to[i], StructValues.get(image, s.from[i]));
        }
        for (int i = 0; i < s.extra.length; i++) {
            row.put(s.extra[i], extraValues[i]);
        }
        row.put(s.version, version.toConnectValue());
        row.put(s.deleted, (byte) 1);
        return row;
    }

    /** For a delete row's schema, the schema of the table's full rows, when known; else null. */
    Schema fullRowSchema(Schema deleteRowSchema) {
        return fullOfDelete.get(deleteRowSchema);
    }

    /** A schemaless row: the image's entries (a delete: the key entries and {@code extra}), version, deleted. */
    Map<String, Object> row(Map<?, ?> image, boolean flattened, RowVersion version, boolean deleted,
            List<String> keyFields, Map<String, Object> extra) {
        Map<String, Object> row = new LinkedHashMap<>(image.size() + 2);
        for (Map.Entry<?, ?> e : image.entrySet()) {
            String name = String.valueOf(e.getKey());
            if (!skipped(name, flattened) && (!deleted || keyFields == null || keyFields.contains(name))) {
                row.put(name, e.getValue());
            }
        }
        if (extra != null) {
            row.putAll(extra);
        }
        row.put(versionColumn, version.toConnectValue());
        row.put(deletedColumn, deleted ? 1L : 0L);
        return row;
    }

    private Shape shape(Schema image, boolean flattened) {
        Shape s = byIdentity.get(image);
        if (s == null || s.flattened != flattened) {
            s = byEquality.get(image);
            if (s == null || s.flattened != flattened) {
                s = new Shape(image, flattened);
                byEquality.put(image, s);
            }
            byIdentity.put(image, s);
        }
        return s;
    }

    /** Fields the connector fills itself, and the flattened form's markers, are not copied. */
    boolean skipped(String name, boolean flattened) {
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

        Shape(Schema image, boolean flattened) {
            this.flattened = flattened;
            SchemaBuilder b = SchemaBuilder.struct();
            if (image.name() != null) {
                b.name(image.name());
            }
            List<Field> copied = new ArrayList<>();
            for (Field f : image.fields()) {
                if (!skipped(f.name(), flattened)) {
                    b.field(f.name(), f.schema());
                    copied.add(f);
                }
            }
            b.field(versionColumn, versionSchema);
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

    private final class DeleteShape {
        final Schema schema;
        final Field[] from;
        final Field[] to;
        final Field[] extra;
        final Field version;
        final Field deleted;

        DeleteShape(Schema image, boolean flattened, List<String> keyFields, List<String> extraColumns,
                Schema[] extraSchemas) {
            SchemaBuilder b = SchemaBuilder.struct();
            if (image.name() != null) {
                b.name(image.name());
            }
            List<Field> copied = new ArrayList<>();
            for (Field f : image.fields()) {
                if (!skipped(f.name(), flattened) && keyFields.contains(f.name())
                        && !extraColumns.contains(f.name())) {
                    b.field(f.name(), f.schema());
                    copied.add(f);
                }
            }
            for (int i = 0; i < extraColumns.size(); i++) {
                b.field(extraColumns.get(i), extraSchemas[i]);
            }
            b.field(versionColumn, versionSchema);
            b.field(deletedColumn, Schema.INT8_SCHEMA);
            this.schema = b.build();
            this.from = copied.toArray(new Field[0]);
            this.to = new Field[from.length];
            for (int i = 0; i < from.length; i++) {
                to[i] = schema.field(from[i].name());
            }
            this.extra = new Field[extraColumns.size()];
            for (int i = 0; i < extra.length; i++) {
                extra[i] = schema.field(extraColumns.get(i));
            }
            this.version = schema.field(versionColumn);
            this.deleted = schema.field(deletedColumn);
        }
    }

    /** A map key that compares schemas by identity (schemas of a converter's cache are reused instances). */
    private static final class IdentityKey {
        final Object o;

        IdentityKey(Object o) {
            this.o = o;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof IdentityKey && ((IdentityKey) other).o == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(o);
        }
    }
}
