package io.chsink.connect.convert.avro;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The settings of {@link AvroConverter}: the names, meanings and defaults of Confluent's AvroConverter and schema
 * registry client, so a connector switches by changing the class name. Keys Confluent's converter has for writing
 * (auto.register.schemas, subject name strategies, ...) are accepted and ignored: this converter only reads.
 */
public final class AvroConverterConfig extends AbstractConfig {
    public static final String URL = "schema.registry.url";
    public static final String BASIC_AUTH_SOURCE = "basic.auth.credentials.source";
    public static final String USER_INFO = "basic.auth.user.info";
    public static final String USER_INFO_OLD = "schema.registry.basic.auth.user.info";
    public static final String BEARER_SOURCE = "bearer.auth.credentials.source";
    public static final String BEARER_TOKEN = "bearer.auth.token";
    public static final String CONNECT_TIMEOUT = "http.connect.timeout.ms";
    public static final String READ_TIMEOUT = "http.read.timeout.ms";
    public static final String MAX_RETRIES = "max.retries";
    public static final String RETRIES_WAIT = "retries.wait.ms";
    public static final String RETRIES_MAX_WAIT = "retries.max.wait.ms";
    public static final String CONNECT_META_DATA = "connect.meta.data";
    public static final String ENHANCED_SCHEMA_SUPPORT = "enhanced.avro.schema.support";
    public static final String SCRUB_INVALID_NAMES = "scrub.invalid.names";
    public static final String FLATTEN_SINGLETON_UNIONS = "flatten.singleton.unions";
    private static final String SSL = "schema.registry.ssl.";
    public static final String TRUSTSTORE_LOCATION = SSL + "truststore.location";
    public static final String TRUSTSTORE_PASSWORD = SSL + "truststore.password";
    public static final String TRUSTSTORE_TYPE = SSL + "truststore.type";
    public static final String KEYSTORE_LOCATION = SSL + "keystore.location";
    public static final String KEYSTORE_PASSWORD = SSL + "keystore.password";
    public static final String KEYSTORE_TYPE = SSL + "keystore.type";
    public static final String KEY_PASSWORD = SSL + "key.password";
    public static final String ENDPOINT_IDENTIFICATION = SSL + "endpoint.identification.algorithm";
    public static final String SSL_PROTOCOL = SSL + "protocol";
    static final String KEY_STRATEGY = "key.subject.name.strategy";
    static final String VALUE_STRATEGY = "value.subject.name.strategy";
    static final String CONTEXT_STRATEGY = "context.name.strategy";
    private static final String STRATEGIES = "io.confluent.kafka.serializers.subject.";
    static final String TOPIC_NAME_STRATEGY = STRATEGIES + "TopicNameStrategy";
    /** Confluent's strategies this converter reproduces for the id look-up; a custom one is refused. */
    private static final Set<String> SUBJECT_STRATEGIES = Set.of(TOPIC_NAME_STRATEGY,
            STRATEGIES + "RecordNameStrategy", STRATEGIES + "TopicRecordNameStrategy");
    private static final String NULL_CONTEXT_STRATEGY =
            "io.confluent.kafka.serializers.context.NullContextNameStrategy";
    /** AvroData options this converter does not implement: refused when true, so nothing is silently different. */
    private static final String[] UNSUPPORTED_WHEN_TRUE = {"generalized.sum.type.support",
        "discard.type.doc.default", "use.latest.version", "specific.avro.reader", "avro.reflection.allow.null"};

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(URL, Type.LIST, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH, "Comma-separated URLs of the schema "
                    + "registry, tried in turn. User information in a URL (http://user:password@host) is used with "
                    + "basic.auth.credentials.source=URL.")
            .define(BASIC_AUTH_SOURCE, Type.STRING, "URL", ConfigDef.CaseInsensitiveValidString.in("URL", "USER_INFO"),
                    Importance.MEDIUM, "Where basic authentication credentials come from: URL (those of "
                    + "schema.registry.url) or USER_INFO (basic.auth.user.info).")
            .define(USER_INFO, Type.PASSWORD, "", Importance.MEDIUM, "user:password for basic authentication with "
                    + "basic.auth.credentials.source=USER_INFO.")
            .define(USER_INFO_OLD, Type.PASSWORD, "", Importance.LOW, "Deprecated name of basic.auth.user.info.")
            .define(BEARER_SOURCE, Type.STRING, "STATIC_TOKEN", ConfigDef.CaseInsensitiveValidString.in("STATIC_TOKEN"),
                    Importance.LOW, "Where the bearer token comes from: STATIC_TOKEN (bearer.auth.token).")
            .define(BEARER_TOKEN, Type.PASSWORD, "", Importance.MEDIUM, "A bearer token, sent instead of "
                    + "basic authentication.")
            .define(CONNECT_TIMEOUT, Type.INT, 60000, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Timeout for connecting to the registry.")
            .define(READ_TIMEOUT, Type.INT, 60000, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Timeout for reading the registry's answer.")
            .define(MAX_RETRIES, Type.INT, 3, ConfigDef.Range.atLeast(0), Importance.LOW, "Retries of a registry "
                    + "request after a connection error, a timeout, or a 408, 429 or 5xx answer.")
            .define(RETRIES_WAIT, Type.LONG, 1000L, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Wait before the first retry; it doubles with every further one (with jitter).")
            .define(RETRIES_MAX_WAIT, Type.LONG, 20000L, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Longest wait between retries.")
            .define(CONNECT_META_DATA, Type.BOOLEAN, true, Importance.LOW, "Keep Avro docs, defaults and connect.* "
                    + "properties as Connect schema parameters (as Confluent's AvroData).")
            .define(ENHANCED_SCHEMA_SUPPORT, Type.BOOLEAN, false, Importance.LOW, "Name union branch fields of records, "
                    + "enums and fixed types by their full names (as Confluent's AvroData).")
            .define(SCRUB_INVALID_NAMES, Type.BOOLEAN, false, Importance.LOW, "Name union branch fields of records, "
                    + "enums and fixed types whose names have characters other than ASCII letters, digits and '_' "
                    + "by their scrubbed names (as Confluent's AvroData).")
            .define(FLATTEN_SINGLETON_UNIONS, Type.BOOLEAN, true, Importance.LOW, "Read a union of one type as "
                    + "that type; false: as a union Struct of one field (as Confluent's AvroData).")
            .define(TRUSTSTORE_LOCATION, Type.STRING, "", Importance.MEDIUM, "Trust store for https:// registry URLs. "
                    + "Empty: the JVM's default trust store.")
            .define(TRUSTSTORE_PASSWORD, Type.PASSWORD, "", Importance.MEDIUM, "Password of the trust store.")
            .define(TRUSTSTORE_TYPE, Type.STRING, "JKS", Importance.LOW, "Type of the trust store (JKS, PKCS12).")
            .define(KEYSTORE_LOCATION, Type.STRING, "", Importance.MEDIUM, "Key store with a client certificate for "
                    + "registries that require one.")
            .define(KEYSTORE_PASSWORD, Type.PASSWORD, "", Importance.MEDIUM, "Password of the key store.")
            .define(KEYSTORE_TYPE, Type.STRING, "JKS", Importance.LOW, "Type of the key store (JKS, PKCS12).")
            .define(KEY_PASSWORD, Type.PASSWORD, null, Importance.LOW, "Password of the private key, if it differs "
                    + "from the key store's.")
            .define(ENDPOINT_IDENTIFICATION, Type.STRING, "https", Importance.LOW, "'https' checks that the registry's "
                    + "certificate names its host; empty turns the check off.")
            .define(SSL_PROTOCOL, Type.STRING, "TLSv1.3", Importance.LOW, "The TLS protocol of the SSLContext.");

    public AvroConverterConfig(Map<?, ?> props) {
        super(CONFIG_DEF, props, false);
        for (String key : UNSUPPORTED_WHEN_TRUE) {
            Object v = props.get(key);
            if (v != null && Boolean.parseBoolean(v.toString().trim())) {
                throw new ConfigException(key + "=true is not supported by io.chsink.connect.convert.avro.AvroConverter");
            }
        }
        if (urls().isEmpty()) {
            throw new ConfigException(URL + " names no registry");
        }
        for (String key : new String[] {KEY_STRATEGY, VALUE_STRATEGY}) {
            String strategy = className(props.get(key));
            if (!strategy.isEmpty() && !SUBJECT_STRATEGIES.contains(strategy)) {
                throw new ConfigException(key + "=" + strategy + " is not supported by "
                        + "io.chsink.connect.convert.avro.AvroConverter (it names the subject of an id look-up as "
                        + "Confluent's TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy)");
            }
        }
        String context = className(props.get(CONTEXT_STRATEGY));
        if (!context.isEmpty() && !context.equals(NULL_CONTEXT_STRATEGY)) {
            throw new ConfigException(CONTEXT_STRATEGY + "=" + context + " is not supported by "
                    + "io.chsink.connect.convert.avro.AvroConverter (ids are looked up without a context prefix)");
        }
    }

    /** A class-valued setting (a Class or its name) as a class name; "" when unset. */
    private static String className(Object v) {
        return v == null ? "" : v instanceof Class ? ((Class<?>) v).getName() : v.toString().trim();
    }

    List<String> urls() {
        return getList(URL);
    }

    String basicAuthSource() {
        return getString(BASIC_AUTH_SOURCE).toUpperCase(java.util.Locale.ROOT);
    }

    String userInfo() {
        String v = getPassword(USER_INFO).value();
        return v.isEmpty() ? getPassword(USER_INFO_OLD).value() : v;
    }

    String bearerToken() {
        return getPassword(BEARER_TOKEN).value();
    }

    int connectTimeoutMs() {
        return getInt(CONNECT_TIMEOUT);
    }

    int readTimeoutMs() {
        return getInt(READ_TIMEOUT);
    }

    int maxRetries() {
        return getInt(MAX_RETRIES);
    }

    long retryWaitMs() {
        return getLong(RETRIES_WAIT);
    }

    long retryMaxWaitMs() {
        return getLong(RETRIES_MAX_WAIT);
    }

    /**
     * The subject the id look-up names for a record of {@code topic}, as Confluent's deserializer passes it to
     * {@code GET /schemas/ids/{id}?subject=...} (AbstractKafkaAvroDeserializer.schemaFromRegistry): with the
     * TopicNameStrategy, the default of {@code key.subject.name.strategy} / {@code value.subject.name.strategy},
     * {@code TOPIC-key} or {@code TOPIC-value}; with a strategy that needs the schema (RecordNameStrategy, ...) none,
     * as Confluent's then names only the context of its context.name.strategy, none by default.
     */
    String lookupSubject(String topic, boolean isKey) {
        String name = className(originals().get(isKey ? KEY_STRATEGY : VALUE_STRATEGY));
        boolean topicName = name.isEmpty() || name.equals(TOPIC_NAME_STRATEGY);
        return topicName ? topic + (isKey ? "-key" : "-value") : null;
    }

    boolean connectMetaData() {
        return getBoolean(CONNECT_META_DATA);
    }

    boolean enhancedSchemaSupport() {
        return getBoolean(ENHANCED_SCHEMA_SUPPORT);
    }

    boolean scrubInvalidNames() {
        return getBoolean(SCRUB_INVALID_NAMES);
    }

    boolean flattenSingletonUnions() {
        return getBoolean(FLATTEN_SINGLETON_UNIONS);
    }

    String truststoreLocation() {
        return getString(TRUSTSTORE_LOCATION).trim();
    }

    String truststorePassword() {
        return getPassword(TRUSTSTORE_PASSWORD).value();
    }

    String truststoreType() {
        return getString(TRUSTSTORE_TYPE);
    }

    String keystoreLocation() {
        return getString(KEYSTORE_LOCATION).trim();
    }

    String keystorePassword() {
        return getPassword(KEYSTORE_PASSWORD).value();
    }

    String keystoreType() {
        return getString(KEYSTORE_TYPE);
    }

    String keyPassword() {
        Password p = getPassword(KEY_PASSWORD);
        return p == null ? null : p.value();
    }

    String endpointIdentificationAlgorithm() {
        return getString(ENDPOINT_IDENTIFICATION).trim();
    }

    String sslProtocol() {
        return getString(SSL_PROTOCOL);
    }
}
