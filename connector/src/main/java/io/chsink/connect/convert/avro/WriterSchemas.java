package io.chsink.connect.convert.avro;

import io.chsink.connect.convert.avro.AvroTranslator.Translated;
import io.chsink.connect.convert.avro.RegistryClient.Reference;
import io.chsink.connect.convert.avro.RegistryClient.SchemaText;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.apache.avro.Schema;

/**
 * A writer schema by its registry id or GUID: fetched, its references (named types in other subjects) parsed first,
 * then parsed with Apache Avro and translated. Only AVRO schemas are read; a PROTOBUF or JSON schema id is a
 * {@link NotAvro}.
 */
final class WriterSchemas {
    private final RegistryClient registry;
    private final boolean connectMetaData;
    private final boolean enhancedSchemaSupport;

    WriterSchemas(RegistryClient registry, boolean connectMetaData, boolean enhancedSchemaSupport) {
        this.registry = registry;
        this.connectMetaData = connectMetaData;
        this.enhancedSchemaSupport = enhancedSchemaSupport;
    }

    Translated translate(int id) {
        return translate(registry.schemaById(id), "schema id " + id);
    }

    /** A writer schema by its GUID ({@code GET /schemas/guids/{guid}}). */
    Translated translate(UUID guid) {
        return translate(registry.schemaByGuid(guid), "schema guid " + guid);
    }

    private Translated translate(SchemaText text, String what) {
        if (!"AVRO".equalsIgnoreCase(text.type)) {
            throw new NotAvro("its " + what + " is a " + text.type + " schema, not Avro");
        }
        return translate(parse(text));
    }

    Translated translate(Schema schema) {
        return new AvroTranslator(connectMetaData, enhancedSchemaSupport).translate(schema);
    }

    /** Parses a schema after the schemas it references, in one parser so their named types are known. */
    Schema parse(SchemaText text) {
        Schema.Parser parser = new Schema.Parser().setValidateDefaults(false);
        parseReferences(parser, text, new HashSet<>());
        return parser.parse(text.schema);
    }

    private void parseReferences(Schema.Parser parser, SchemaText text, Set<String> seen) {
        for (Reference r : text.references) {
            if (!seen.add(r.subject + "/" + r.version)) {
                continue;
            }
            SchemaText referenced = registry.schemaOf(r.subject, r.version);
            parseReferences(parser, referenced, seen);
            parser.parse(referenced.schema);
        }
    }

    /** A schema id whose schema is not Avro. */
    static final class NotAvro extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotAvro(String message) {
            super(message);
        }
    }
}
