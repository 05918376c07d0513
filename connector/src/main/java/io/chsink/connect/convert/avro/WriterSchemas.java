package io.chsink.connect.convert.avro;

import io.chsink.connect.convert.avro.AvroTranslator.Translated;
import io.chsink.connect.convert.avro.RegistryClient.Reference;
import io.chsink.connect.convert.avro.RegistryClient.RegistryException;
import io.chsink.connect.convert.avro.RegistryClient.SchemaText;
import java.util.HashSet;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * A writer schema by its registry id: fetched, its references (named types in other subjects) parsed first, then
 * parsed with Apache Avro and translated. Only AVRO schemas are read; a PROTOBUF or JSON schema id is a
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
        SchemaText text = registry.schemaById(id);
        if (!"AVRO".equalsIgnoreCase(text.type)) {
            throw new NotAvro("its schema id " + id + " is a " + text.type + " schema, not Avro");
        }
        return translate(parse(text));
    }

    Translated translate(Schema schema) {
        return new AvroTranslator(connectMetaData, enhancedSchemaSupport).translate(schema);
    }

    /**
     * Parses a schema after the schemas it references, in one parser so their named types are known. Avro's parser
     * refuses most bad schemas with a SchemaParseException, but some with other exceptions (a type name it does not
     * know is an AvroTypeException or, where it is resolved late, a NullPointerException): those are a
     * SchemaParseException here too, so that the record is a DataException that says why.
     */
    Schema parse(SchemaText text) {
        try {
            Schema.Parser parser = new Schema.Parser().setValidateDefaults(false);
            parseReferences(parser, text, new HashSet<>());
            return parser.parse(text.schema);
        } catch (SchemaParseException | RegistryException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SchemaParseException("Avro's schema parser fails on it (" + e + ")");
        } catch (StackOverflowError e) {
            throw new SchemaParseException("it is nested too deep for Avro's schema parser");
        }
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
