package io.chsink.connect.convert;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.chsink.connect.Version;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.json.JsonConverterConfig;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.ConverterConfig;
import org.apache.kafka.connect.storage.ConverterType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A drop-in replacement for Kafka's JsonConverter when reading: the same configuration, the same SchemaAndValue for
 * every input, faster. Each record is read in one streaming pass; with schemas.enable=true the envelope's "schema"
 * is looked up by its raw bytes ({@link SchemaBytesCache}) instead of being parsed, hashed and compared as a tree,
 * and the payload is read straight into Connect values ({@link SchemaValueReader}); without schemas the JSON is read
 * straight into maps, lists and values ({@link SchemalessValueReader}). Anything the fast path does not reproduce
 * exactly (an unusual token, "payload" before "schema", a null schema, repeated keys, trailing content, malformed
 * JSON, ...) hands the whole record to an inner JsonConverter, so results and errors there are JsonConverter's own,
 * with one exception on both paths: float32 and float64 fields. JsonConverter writes NaN, Infinity and -Infinity as the
 * JSON strings "NaN", "Infinity", "-Infinity" but reads them, and any other string, boolean or container in a float
 * field, as 0.0; this converter reads the three strings as the values they stand for and rejects anything else that
 * is not a number (DataException), see {@link FallbackFloats}. Writing (fromConnectData) is the inner JsonConverter's.
 *
 * <p>replace.null.with.default: when it is set, it is honoured as JsonConverter does. When it is not set, a Debezium
 * change event (a value schema {@link ChangeEventSchemas#isEnvelope}) is read as with {@code false}, its nulls as
 * nulls (a column set to NULL in the source must not land as its default), and every other record as with
 * JsonConverter's default, {@code true}. The fast path decides once per cached schema; the fallback converts with the
 * inner JsonConverter the topic's last record needed and again with the other one when the schema says otherwise.
 */
public final class JsonEnvelopeConverter implements Converter, Versioned {
    private static final Logger log = LoggerFactory.getLogger(JsonEnvelopeConverter.class);
    private static final String SCHEMA = "schema";
    private static final String PAYLOAD = "payload";
    /** How an envelope written without whitespace starts, and what follows its schema. */
    private static final byte[] HEAD = "{\"schema\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MIDDLE = ",\"payload\":".getBytes(StandardCharsets.US_ASCII);

    private static final ConfigDef CONFIG_DEF = configDef();

    private final JsonConverter inner = new JsonConverter();
    /**
     * replace.null.with.default unset: the JsonConverter (with it false) that reads change events the fast path hands
     * on; null when the key is set (inner reads every record then).
     */
    private JsonConverter changeEvents;
    /** Topics whose last record the fallback read was a change event (read by {@link #changeEvents} first). */
    private final Set<String> changeEventTopics = ConcurrentHashMap.newKeySet();
    private KafkaJson json;
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong fallbacks = new AtomicLong();
    private final Set<String> loggedTopics = ConcurrentHashMap.newKeySet();
    private boolean schemasEnabled;
    private SchemaValueReader reader;
    /** The reader of change events: {@link #reader} when replace.null.with.default is set, else one keeping nulls. */
    private SchemaValueReader changeEventReader;
    private FallbackFloats floats;
    private FallbackFloats changeEventFloats;
    private SchemaBytesCache schemas;

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        inner.configure(configs, isKey);
        Map<String, Object> conf = new HashMap<>(configs);
        conf.put(ConverterConfig.TYPE_CONFIG, (isKey ? ConverterType.KEY : ConverterType.VALUE).getName());
        JsonConverterConfig config = new JsonConverterConfig(conf);
        schemasEnabled = config.schemasEnabled();
        schemas = new SchemaBytesCache(config.schemaCacheSize());
        floats = schemasEnabled ? new FallbackFloats(inner) : null;
        boolean keepChangeEventNulls = schemasEnabled && config.replaceNullWithDefault()
                && !configs.containsKey(JsonConverterConfig.REPLACE_NULL_WITH_DEFAULT_CONFIG);
        changeEvents = null;
        changeEventFloats = floats;
        if (keepChangeEventNulls) {
            Map<String, Object> keep = new HashMap<>(configs);
            keep.put(JsonConverterConfig.REPLACE_NULL_WITH_DEFAULT_CONFIG, false);
            changeEvents = new JsonConverter();
            changeEvents.configure(keep, isKey);
            changeEventFloats = new FallbackFloats(changeEvents);
        }
        try {
            reader = new SchemaValueReader(config.replaceNullWithDefault());
            changeEventReader = keepChangeEventNulls ? new SchemaValueReader(false) : reader;
            json = new KafkaJson();
        } catch (LinkageError older) {
            // A worker whose connect-json or Jackson predates what the fast path calls (Kafka 4.1, Jackson 2.15+).
            json = null;
            log.warn("JsonEnvelopeConverter: this worker's connect-json or Jackson is older than the fast path needs "
                    + "({}); every record is read by JsonConverter", older.toString());
        }
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        if (value == null) {
            return inner.toConnectData(topic, null);
        }
        records.lazySet(records.get() + 1); // one converter per task: only its thread counts
        try {
            if (json == null) {
                return fallBack(topic, value, FastPathMiss.INSTANCE);
            }
            try {
                return schemasEnabled ? readEnvelope(topic, value) : readPlain(value);
            } catch (IOException | RuntimeException e) {
                return fallBack(topic, value, e);
            }
        } catch (StackOverflowError deep) {
            // Jackson allows 1000 levels of nesting; JsonConverter (the fallback) and the fast path read them by
            // recursion, which a thread with a small stack may not hold (the converters' fuzz test met it).
            throw new DataException("JsonEnvelopeConverter cannot read a record of topic " + topic + ": its JSON is "
                    + "nested too deep for this thread's stack (raise the worker's -Xss, or nest the data less)");
        }
    }

    @Override
    public SchemaAndValue toConnectData(String topic, Headers headers, byte[] value) {
        return toConnectData(topic, value);
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        return inner.fromConnectData(topic, schema, value);
    }

    @Override
    public byte[] fromConnectData(String topic, Headers headers, Schema schema, Object value) {
        return inner.fromConnectData(topic, headers, schema, value);
    }

    /** JsonConverter's keys, with replace.null.with.default documented as this converter reads it. */
    @Override
    public ConfigDef config() {
        return CONFIG_DEF;
    }

    private static ConfigDef configDef() {
        ConfigDef def = new ConfigDef();
        for (ConfigDef.ConfigKey k : JsonConverterConfig.configDef().configKeys().values()) {
            String doc = k.name.equals(JsonConverterConfig.REPLACE_NULL_WITH_DEFAULT_CONFIG) ? REPLACE_NULL_DOC
                    : k.documentation;
            def.define(k.name, k.type, k.hasDefault() ? k.defaultValue : ConfigDef.NO_DEFAULT_VALUE, k.validator,
                    k.importance, doc, k.group, k.orderInGroup, k.width, k.displayName, k.dependents, k.recommender);
        }
        return def;
    }

    private static final String REPLACE_NULL_DOC = "Whether a null or absent field that has a default in its "
            + "schema reads as that default (true) or as null (false), for every record. Not set: Debezium change "
            + "events (a value schema that is a struct named *.Envelope with the fields before, after and op) read "
            + "their nulls as nulls, so that a column set to NULL in the source stays NULL, and every other record "
            + "reads the default, as JsonConverter does.";

    /** Logs what this converter read (Connect closes a task's converters when the task stops). */
    @Override
    public void close() {
        if (schemas != null) {
            log.info("JsonEnvelopeConverter read {} records, {} of them by JsonConverter, {} schemas cached",
                    records.get(), fallbacks.get(), schemas.size());
        }
        inner.close();
        if (changeEvents != null) {
            changeEvents.close();
        }
    }

    /** Records read (tombstones not counted). */
    public long records() {
        return records.get();
    }

    @Override
    public String version() {
        return Version.get();
    }

    /** Records converted by the inner JsonConverter because the fast path did not take them (errors included). */
    public long fallbacks() {
        return fallbacks.get();
    }

    /** Schemas cached by their bytes. */
    public int cachedSchemas() {
        return schemas.size();
    }

    private SchemaAndValue readEnvelope(String topic, byte[] value) throws IOException {
        SchemaAndValue same = readWithLastSchema(topic, value);
        return same != null ? same : readWholeEnvelope(topic, value);
    }

    /**
     * The common case: {"schema":S,"payload":P} without whitespace, S byte for byte the schema last seen on this topic.
     * S is then not parsed at all (those bytes were a complete, valid JSON object before); only P is, as the one
     * value between the two literals and the closing brace. Null if the record does not have that shape.
     */
    private SchemaAndValue readWithLastSchema(String topic, byte[] value) throws IOException {
        SchemaBytesCache.Cached last = schemas.last(topic);
        if (last == null || !startsWith(value, 0, HEAD)) {
            return null;
        }
        int from = HEAD.length;
        int to = from + last.bytes.length;
        int payloadFrom = to + MIDDLE.length;
        int end = value.length - 1;
        if (payloadFrom >= end || value[end] != '}' || !last.matches(value, from, to) || !startsWith(value, to, MIDDLE)) {
            return null;
        }
        try (JsonParser p = json.nestedParser(value, payloadFrom, end)) {
            p.nextToken();
            Object payload = readerOf(last).read(p, last.schema, last.names);
            if (p.nextToken() != null) {
                throw FastPathMiss.INSTANCE;
            }
            return new SchemaAndValue(last.schema, payload);
        }
    }

    private static boolean startsWith(byte[] value, int at, byte[] literal) {
        return value.length - at >= literal.length && Arrays.equals(value, at, at + literal.length, literal, 0, literal.length);
    }

    private SchemaAndValue readWholeEnvelope(String topic, byte[] value) throws IOException {
        try (JsonParser p = json.parser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT || !SCHEMA.equals(p.nextFieldName())
                    || p.nextToken() != JsonToken.START_OBJECT) {
                throw FastPathMiss.INSTANCE;
            }
            int from = (int) p.getTokenLocation().getByteOffset();
            p.skipChildren();
            int to = (int) p.getCurrentLocation().getByteOffset();
            SchemaBytesCache.Cached schema = schema(topic, value, from, to);
            if (!PAYLOAD.equals(p.nextFieldName())) {
                throw FastPathMiss.INSTANCE;
            }
            p.nextToken();
            Object payload = readerOf(schema).read(p, schema.schema, schema.names);
            if (p.nextToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw FastPathMiss.INSTANCE;
            }
            return new SchemaAndValue(schema.schema, payload);
        }
    }

    private SchemaAndValue readPlain(byte[] value) throws IOException {
        try (JsonParser p = json.parser(value)) {
            p.nextToken();
            Object payload = SchemalessValueReader.read(p);
            if (p.nextToken() != null) {
                throw FastPathMiss.INSTANCE;
            }
            return new SchemaAndValue(null, payload);
        }
    }

    /** The reader of records with this schema: change events keep their nulls when the key is not set. */
    private SchemaValueReader readerOf(SchemaBytesCache.Cached schema) {
        return schema.changeEvent ? changeEventReader : reader;
    }

    private SchemaBytesCache.Cached schema(String topic, byte[] value, int from, int to) throws IOException {
        if (from < 0 || to > value.length || from >= to || value[from] != '{' || value[to - 1] != '}') {
            throw FastPathMiss.INSTANCE;
        }
        SchemaBytesCache.Cached cached = schemas.get(topic, value, from, to);
        if (cached != null) {
            return cached;
        }
        Schema made = inner.asConnectSchema(json.tree(value, from, to));
        if (made == null) {
            throw FastPathMiss.INSTANCE;
        }
        return schemas.put(topic, value, from, to, made);
    }

    private SchemaAndValue fallBack(String topic, byte[] value, Exception why) {
        fallbacks.incrementAndGet();
        if (log.isDebugEnabled() && loggedTopics.add(String.valueOf(topic))) {
            log.debug("JsonEnvelopeConverter: a record of topic {} is converted by JsonConverter ({}); further ones on "
                    + "this topic are not logged", topic, why == FastPathMiss.INSTANCE ? "a shape the fast path does "
                    + "not read" : why.toString());
        }
        if (changeEvents == null) {
            return repaired(floats, value, byJsonConverter(inner, topic, value));
        }
        // replace.null.with.default unset: a change event is read with it false, any other record with it true. The
        // converter the topic's last record needed goes first; the schema it reads says whether that was right.
        String key = String.valueOf(topic);
        boolean guess = changeEventTopics.contains(key);
        SchemaAndValue read;
        try {
            read = byJsonConverter(guess ? changeEvents : inner, topic, value);
        } catch (DataException e) {
            if (!guess) {
                throw e; // true accepts every null false accepts: false would fail as well
            }
            SchemaAndValue other = byJsonConverter(inner, topic, value);
            if (ChangeEventSchemas.isEnvelope(other.schema())) {
                throw e;
            }
            changeEventTopics.remove(key);
            return repaired(floats, value, other);
        }
        boolean changeEvent = ChangeEventSchemas.isEnvelope(read.schema());
        if (changeEvent != guess) {
            if (changeEvent) {
                changeEventTopics.add(key);
            } else {
                changeEventTopics.remove(key);
            }
            read = byJsonConverter(changeEvent ? changeEvents : inner, topic, value);
        }
        return repaired(changeEvent ? changeEventFloats : floats, value, read);
    }

    private static SchemaAndValue repaired(FallbackFloats floats, byte[] value, SchemaAndValue read) {
        return floats == null ? read : floats.repair(value, read);
    }

    private static SchemaAndValue byJsonConverter(JsonConverter converter, String topic, byte[] value) {
        try {
            return converter.toConnectData(topic, value);
        } catch (DataException e) {
            throw e;
        } catch (RuntimeException e) {
            // JsonConverter fails otherwise on some schemas: a logical type's name on another type, with a default,
            // is a ClassCastException (Date is not a List) where it checks the default.
            throw new DataException("JsonEnvelopeConverter cannot read a record of topic " + topic + ": Kafka's "
                    + "JsonConverter fails on its schema or value (" + e + ")", e);
        }
    }
}
