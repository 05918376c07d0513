package io.chsink.connect.convert.avro;

import io.chsink.connect.convert.avro.AvroTranslator.Translated;
import io.chsink.connect.convert.avro.RegistryClient.Failure;
import io.chsink.connect.convert.avro.RegistryClient.Reference;
import io.chsink.connect.convert.avro.RegistryClient.RegistryException;
import io.chsink.connect.convert.avro.RegistryClient.SchemaText;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.avro.NameValidator;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.kafka.connect.errors.DataException;

/**
 * A writer schema by its registry id or GUID: fetched, its references (named types in other subjects) parsed first,
 * then parsed with Apache Avro and translated. Only AVRO schemas are read; a PROTOBUF or JSON schema id is a
 * {@link NotAvro}.
 */
final class WriterSchemas {
    private final RegistryClient registry;
    private final boolean connectMetaData;
    private final boolean enhancedSchemaSupport;
    private final boolean scrubInvalidNames;
    private final boolean flattenSingletonUnions;

    WriterSchemas(RegistryClient registry, boolean connectMetaData, boolean enhancedSchemaSupport) {
        this(registry, connectMetaData, enhancedSchemaSupport, false, true);
    }

    WriterSchemas(RegistryClient registry, boolean connectMetaData, boolean enhancedSchemaSupport,
            boolean scrubInvalidNames, boolean flattenSingletonUnions) {
        this.registry = registry;
        this.connectMetaData = connectMetaData;
        this.enhancedSchemaSupport = enhancedSchemaSupport;
        this.scrubInvalidNames = scrubInvalidNames;
        this.flattenSingletonUnions = flattenSingletonUnions;
    }

    /** A writer schema by its id, looked up for {@code subject} (null: none). */
    Translated translate(int id, String subject) {
        return translate(registry.schemaById(id, subject), "schema id " + id);
    }

    /**
     * A writer schema by its GUID. Its references are resolved from the default context: Confluent's client parses a
     * schema fetched by GUID without a subject (CachedSchemaRegistryClient.getSchemaByGuidFromRegistry).
     */
    Translated translate(UUID guid) {
        SchemaText text = registry.schemaByGuid(guid);
        return translate(new SchemaText(text.schema, text.type, text.references, null), "schema guid " + guid);
    }

    private Translated translate(SchemaText text, String what) {
        if (!"AVRO".equalsIgnoreCase(text.type)) {
            throw new NotAvro("its " + what + " is a " + text.type + " schema, not Avro");
        }
        return translate(parse(text));
    }

    Translated translate(Schema schema) {
        return new AvroTranslator(connectMetaData, enhancedSchemaSupport, scrubInvalidNames, flattenSingletonUnions)
                .translate(schema);
    }

    /**
     * Parses a schema after the schemas it references, in one parser so their named types are known, as Confluent's
     * AbstractSchemaProvider.resolveReferences collects them: depth first (a referenced schema's own references
     * before it), each reference's subject qualified with the context of the subject of the schema that names it
     * ({@link Subjects#qualifyWithParent}; a top-level schema's is the "subject" of the registry's answer), its
     * version fetched with soft-deleted versions included, and one schema per reference name: a name met again is
     * skipped, whatever subject or version it names there. Avro's parser refuses most bad schemas with a
     * SchemaParseException, but some with other exceptions (a type name it does not know is an AvroTypeException
     * or, where it is resolved late, a NullPointerException): those are a SchemaParseException here too, so that
     * the record is a DataException that says why.
     */
    Schema parse(SchemaText text) {
        Map<String, String> resolved = new LinkedHashMap<>();
        resolve(text.subject, text.references, resolved, new HashSet<>(), new HashMap<>());
        try {
            // As Confluent's AvroSchema reads a registered schema (validateAsNew false): parsed without name
            // validation (getParser: NameValidator.NO_VALIDATION, no default validation), then the names of the
            // schema itself, not its namespaces or references, checked (AvroSchemaUtils.validateNames).
            Schema.Parser parser = new Schema.Parser(NameValidator.NO_VALIDATION).setValidateDefaults(false);
            for (String referenced : resolved.values()) {
                parser.parse(referenced);
            }
            Schema schema = parser.parse(text.schema);
            validateNames(schema, java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
            return schema;
        } catch (SchemaParseException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SchemaParseException("Avro's schema parser fails on it (" + e + ")");
        } catch (StackOverflowError e) {
            throw new SchemaParseException("it is nested too deep for Avro's schema parser");
        }
    }

    /** AvroSchemaUtils.validateNames: record, field, enum, symbol and fixed names by Avro's UTF_VALIDATOR. */
    private static void validateNames(Schema schema, Set<Schema> seen) {
        if (schema == null || !seen.add(schema)) {
            return;
        }
        switch (schema.getType()) {
            case RECORD:
                validateName(schema.getName());
                for (Schema.Field field : schema.getFields()) {
                    validateName(field.name());
                    validateNames(field.schema(), seen);
                }
                break;
            case ENUM:
                validateName(schema.getName());
                for (String symbol : schema.getEnumSymbols()) {
                    validateName(symbol);
                }
                break;
            case FIXED:
                validateName(schema.getName());
                break;
            case ARRAY:
                validateNames(schema.getElementType(), seen);
                break;
            case MAP:
                validateNames(schema.getValueType(), seen);
                break;
            case UNION:
                for (Schema branch : schema.getTypes()) {
                    validateNames(branch, seen);
                }
                break;
            default:
                break;
        }
    }

    private static void validateName(String name) {
        NameValidator.Result result = NameValidator.UTF_VALIDATOR.validate(name);
        if (!result.isOK()) {
            throw new SchemaParseException(result.getErrors());
        }
    }

    private void resolve(String parent, List<Reference> references, Map<String, String> resolved, Set<String> names,
            Map<String, SchemaText> fetched) {
        for (Reference r : references) {
            String subject = Subjects.qualifyWithParent(parent, r.subject);
            // Fetched before the name is checked, as Confluent's client does; each subject and version only once.
            SchemaText referenced = fetched.get(subject + '\0' + r.version);
            if (referenced == null) {
                try {
                    referenced = registry.schemaOf(subject, r.version);
                } catch (RegistryException e) {
                    if (e.failure != Failure.NOT_FOUND) {
                        throw e;
                    }
                    // The record's schema is known; what is missing is a version it references.
                    throw new DataException("a version it references (reference name '" + r.name + "') is missing "
                            + "from the registry: " + e.getMessage());
                }
                fetched.put(subject + '\0' + r.version, referenced);
            }
            if (!names.add(r.name)) {
                continue;
            }
            resolve(referenced.subject, referenced.references, resolved, names, fetched);
            resolved.put(r.name, referenced.schema);
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
