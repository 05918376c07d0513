package io.chsink.connect.convert.avro;

import io.chsink.connect.Version;
import io.chsink.connect.convert.avro.AvroTranslator.Translated;
import io.chsink.connect.convert.avro.RegistryClient.Failure;
import io.chsink.connect.convert.avro.RegistryClient.RegistryException;
import java.util.Map;
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
 * Reads Confluent-framed Avro (magic byte 0, a 4-byte big-endian schema id, Avro binary) into the Connect data
 * Confluent's AvroConverter produces, with Apache Avro and no Confluent code: writer schemas come from a registry
 * speaking the Confluent REST API ({@code GET /schemas/ids/{id}}) and are cached by id for the life of the task, so
 * records whose schema is cached keep being read while the registry is down. Each id gets its own Connect schema
 * and decoder ({@link AvroTranslator}); the decoder reads the bytes straight into Structs, lists, maps and values.
 * Works as key.converter and value.converter; takes Confluent's configuration keys ({@link AvroConverterConfig}).
 * Reading only: fromConnectData throws.
 */
public final class AvroConverter implements Converter, Versioned {
    private static final Logger log = LoggerFactory.getLogger(AvroConverter.class);
    private static final byte MAGIC = 0;

    private final Map<Integer, Translated> byId = new ConcurrentHashMap<>();
    private final AtomicLong records = new AtomicLong();
    private RegistryClient registry;
    private WriterSchemas schemas;
    private boolean isKey;
    /** The last id read and its translation: most topics carry one schema at a time. */
    private int lastId = -1;
    private Translated last;

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        AvroConverterConfig config = new AvroConverterConfig(configs);
        this.isKey = isKey;
        this.registry = new RegistryClient(config);
        this.schemas = new WriterSchemas(registry, config.connectMetaData(), config.enhancedSchemaSupport());
        log.info("AvroConverter ({}): schema registry {} (authentication: {})", isKey ? "key" : "value",
                registry.urls(), registry.authentication());
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        if (value == null) {
            return SchemaAndValue.NULL;
        }
        records.lazySet(records.get() + 1); // one converter per task: only its thread counts
        if (value.length < 5) {
            throw bad(topic, "it has " + value.length + " bytes, fewer than the 5 of the Confluent wire format header "
                    + "(magic byte 0 and a 4-byte schema id)", null);
        }
        if (value[0] != MAGIC) {
            throw bad(topic, "its first byte is " + (value[0] & 0xFF) + ", not the magic byte 0 of the Confluent wire "
                    + "format (is the topic Avro written with a schema registry serializer?)", null);
        }
        int id = (value[1] & 0xFF) << 24 | (value[2] & 0xFF) << 16 | (value[3] & 0xFF) << 8 | (value[4] & 0xFF);
        Translated writer = id == lastId && last != null ? last : writer(topic, id); // -1 is an id too
        AvroInput in = new AvroInput(value, 5, value.length);
        Object connect;
        try {
            connect = writer.reader.read(in);
        } catch (AvroInput.BadAvro | DataException | ArithmeticException | ClassCastException e) {
            throw bad(topic, "its bytes do not decode with writer schema id " + id + ": " + e.getMessage(), null);
        } catch (StackOverflowError e) {
            throw bad(topic, "its bytes do not decode with writer schema id " + id + ": the value is nested too deep "
                    + "for this thread's stack (raise the worker's -Xss)", null);
        }
        if (in.remaining() != 0) {
            throw bad(topic, "its bytes do not decode with writer schema id " + id + ": " + in.remaining()
                    + " bytes are left after the value", null);
        }
        return new SchemaAndValue(writer.schema, connect);
    }

    private Translated writer(String topic, int id) {
        Translated t = byId.get(id);
        if (t == null) {
            try {
                t = schemas.translate(id);
            } catch (RegistryException e) {
                String why = e.failure == Failure.NOT_FOUND ? "its schema id " + id + " is unknown to the registry ("
                        + e.getMessage() + ")" : "its writer schema id " + id + " could not be fetched: " + e.getMessage();
                throw bad(topic, why, null);
            } catch (WriterSchemas.NotAvro e) {
                throw bad(topic, e.getMessage(), null);
            } catch (DataException | org.apache.avro.AvroRuntimeException e) {
                throw bad(topic, "its writer schema id " + id + " cannot be read: " + e.getMessage(), null);
            } catch (StackOverflowError e) {
                throw bad(topic, "its writer schema id " + id + " is nested too deep to translate on this thread's "
                        + "stack (raise the worker's -Xss)", null);
            } catch (RuntimeException e) {
                // Avro's own code failing on a schema it parsed: a bad record, not a failed task.
                throw bad(topic, "its writer schema id " + id + " cannot be translated (" + e + ")", null);
            }
            byId.put(id, t);
            log.info("AvroConverter ({}): writer schema id {} cached for topic {} ({} cached)", isKey ? "key" : "value",
                    id, topic, byId.size());
        }
        lastId = id;
        last = t;
        return t;
    }

    private DataException bad(String topic, String why, Throwable cause) {
        return new DataException("AvroConverter cannot read the " + (isKey ? "key" : "value") + " of a record of topic "
                + topic + " (its partition and offset: Connect's error log and dead-letter headers): " + why, cause);
    }

    @Override
    public SchemaAndValue toConnectData(String topic, Headers headers, byte[] value) {
        return toConnectData(topic, value);
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
                    records.get(), byId.size());
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

    /** Writer schemas cached. */
    public int cachedSchemas() {
        return byId.size();
    }
}
