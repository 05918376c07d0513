package io.chsink.connect.convert.avro;

import io.chsink.connect.Version;
import io.chsink.connect.convert.avro.AvroTranslator.Translated;
import io.chsink.connect.convert.avro.RegistryClient.Failure;
import io.chsink.connect.convert.avro.RegistryClient.RegistryException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads Confluent-framed Avro (magic byte 0, a 4-byte big-endian schema id, Avro binary; or the schema id or GUID in
 * a {@code __value_schema_id} / {@code __key_schema_id} header and raw Avro binary, {@link SchemaIds}) into the
 * Connect data Confluent's AvroConverter produces, with Apache Avro and no Confluent code: writer schemas come from a
 * registry speaking the Confluent REST API ({@code GET /schemas/ids/{id}}, {@code GET /schemas/guids/{guid}}) and are
 * cached by id or GUID for the life of the task, so records whose schema is cached keep being read while the
 * registry is down. Each id gets its own Connect schema
 * and decoder ({@link AvroTranslator}); the decoder reads the bytes straight into Structs, lists, maps and values.
 * Works as key.converter and value.converter; takes Confluent's configuration keys ({@link AvroConverterConfig}).
 * Reading only: fromConnectData throws.
 */
public final class AvroConverter implements Converter, Versioned {
    private static final Logger log = LoggerFactory.getLogger(AvroConverter.class);

    /** By the subject of the id look-up ("" for none), then id: ids are per registry context. */
    private final Map<String, Map<Integer, Translated>> byId = new ConcurrentHashMap<>();
    private final Map<UUID, Translated> byGuid = new ConcurrentHashMap<>();
    private final AtomicLong records = new AtomicLong();
    private RegistryClient registry;
    private WriterSchemas schemas;
    private boolean isKey;
    private String idHeader;
    private AvroConverterConfig config;
    /** The last id read, its topic and its translation: most topics carry one schema at a time. */
    private int lastId = -1;
    private String lastTopic;
    private Translated last;

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        AvroConverterConfig config = new AvroConverterConfig(configs);
        this.config = config;
        this.isKey = isKey;
        this.idHeader = SchemaIds.headerName(isKey);
        this.registry = new RegistryClient(config);
        this.schemas = new WriterSchemas(registry, config.connectMetaData(), config.enhancedSchemaSupport(),
                config.scrubInvalidNames(), config.flattenSingletonUnions());
        log.info("AvroConverter ({}): schema registry {} (authentication: {})", isKey ? "key" : "value",
                registry.urls(), registry.authentication());
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        return toConnectData(topic, null, value);
    }

    /**
     * Reads a record whose writer schema is named by its {@code __value_schema_id} (or {@code __key_schema_id})
     * header, else by the prefix of its value ({@link SchemaIds}, as Confluent's DualSchemaIdDeserializer).
     */
    @Override
    public SchemaAndValue toConnectData(String topic, Headers headers, byte[] value) {
        if (value == null) {
            return SchemaAndValue.NULL;
        }
        records.lazySet(records.get() + 1); // one converter per task: only its thread counts
        SchemaIds.WriterId ref;
        try {
            ref = SchemaIds.of(headers, idHeader, value);
        } catch (DataException e) {
            throw bad(topic, e.getMessage(), null);
        }
        Translated writer = ref.guid != null ? writer(topic, ref)
                : ref.id == lastId && last != null && topic.equals(lastTopic) ? last : writer(topic, ref);
        AvroInput in = new AvroInput(value, ref.bodyStart, value.length);
        Object connect;
        try {
            connect = writer.reader.read(in);
        } catch (AvroInput.BadAvro | DataException | ArithmeticException | ClassCastException e) {
            throw bad(topic, "its bytes do not decode with writer " + ref.describe() + ": " + e.getMessage(), null);
        } catch (StackOverflowError e) {
            throw bad(topic, "its bytes do not decode with writer " + ref.describe() + ": the value is nested too deep "
                    + "for this thread's stack (raise the worker's -Xss)", null);
        }
        if (in.remaining() != 0) {
            throw bad(topic, "its bytes do not decode with writer " + ref.describe() + ": " + in.remaining()
                    + " bytes are left after the value", null);
        }
        return new SchemaAndValue(writer.schema, connect);
    }

    private Translated writer(String topic, SchemaIds.WriterId ref) {
        String subject = ref.guid == null ? config.lookupSubject(topic, isKey) : null;
        Map<Integer, Translated> ids = ref.guid == null
                ? byId.computeIfAbsent(subject == null ? "" : subject, s -> new ConcurrentHashMap<>()) : null;
        Translated t = ref.guid == null ? ids.get(ref.id) : byGuid.get(ref.guid);
        if (t == null) {
            try {
                t = ref.guid == null ? schemas.translate(ref.id, subject) : schemas.translate(ref.guid);
            } catch (RegistryException e) {
                String why = e.failure == Failure.NOT_FOUND ? "its " + ref.describe() + " is unknown to the registry ("
                        + e.getMessage() + ")" : "its writer " + ref.describe() + " could not be fetched: " + e.getMessage();
                throw bad(topic, why, null);
            } catch (WriterSchemas.NotAvro e) {
                throw bad(topic, e.getMessage(), null);
            } catch (DataException | org.apache.avro.AvroRuntimeException e) {
                throw bad(topic, "its writer " + ref.describe() + " cannot be read: " + e.getMessage(), null);
            } catch (StackOverflowError e) {
                throw bad(topic, "its writer " + ref.describe() + " is nested too deep to translate on this thread's "
                        + "stack (raise the worker's -Xss)", null);
            } catch (RuntimeException e) {
                // Avro's own code failing on a schema it parsed: a bad record, not a failed task.
                throw bad(topic, "its writer " + ref.describe() + " cannot be translated (" + e + ")", null);
            }
            if (ref.guid == null) {
                ids.put(ref.id, t);
            } else {
                byGuid.put(ref.guid, t);
            }
            log.info("AvroConverter ({}): writer {} cached for topic {} ({} cached)", isKey ? "key" : "value",
                    ref.describe(), topic, cachedSchemas());
        }
        if (ref.guid == null) {
            lastId = ref.id;
            lastTopic = topic;
            last = t;
        }
        return t;
    }

    private DataException bad(String topic, String why, Throwable cause) {
        return new DataException("AvroConverter cannot read the " + (isKey ? "key" : "value") + " of a record of topic "
                + topic + " (its partition and offset: Connect's error log and dead-letter headers): " + why, cause);
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        throw new DataException("io.chsink.connect.convert.avro.AvroConverter only reads (it is for sink connectors); "
                + "it cannot write topic " + topic);
    }

    @Override
    public ConfigDef config() {
        return AvroConverterConfig.CONFIG_DEF;
    }

    @Override
    public void close() {
        if (registry != null) {
            log.info("AvroConverter ({}) read {} records with {} writer schemas", isKey ? "key" : "value",
                    records.get(), cachedSchemas());
        }
    }

    @Override
    public String version() {
        return Version.get();
    }

    /** Records read (tombstones not counted). */
    public long records() {
        return records.get();
    }

    /** Writer schemas cached (by id and by GUID). */
    public int cachedSchemas() {
        int n = byGuid.size();
        for (Map<Integer, Translated> ids : byId.values()) {
            n += ids.size();
        }
        return n;
    }
}
