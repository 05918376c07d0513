package io.chsink.connect.convert.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.chsink.connect.config.KeyStoreFiles;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.common.config.ConfigException;

/**
 * The part of the Confluent Schema Registry REST API a reader needs: {@code GET /schemas/ids/{id}},
 * {@code GET /schemas/guids/{guid}} and, for schema references, {@code GET /subjects/{subject}/versions/{version}}.
 * The URLs of {@code schema.registry.url} are tried in turn; connection errors, timeouts, 408, 429 and 5xx answers
 * are retried up to {@code max.retries} times with exponential backoff and jitter. Credentials (basic auth from the
 * URL or {@code basic.auth.user.info}, or a static bearer token) go only into the Authorization header: every message
 * names the registry by its URL without user information, never a secret.
 */
final class RegistryClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ACCEPT = "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; "
            + "qs=0.9, application/json; qs=0.5";

    /** A schema as the registry returns it. */
    static final class SchemaText {
        final String schema;
        final String type;
        final List<Reference> references;
        /** The "subject" of the answer (qualified with its context), or null when it names none. */
        final String subject;

        SchemaText(String schema, String type, List<Reference> references, String subject) {
            this.schema = schema;
            this.type = type;
            this.references = references;
            this.subject = subject;
        }
    }

    /** A schema reference: a named type defined in another subject's version. */
    static final class Reference {
        final String name;
        final String subject;
        final int version;

        Reference(String name, String subject, int version) {
            this.name = name;
            this.subject = subject;
            this.version = version;
        }
    }

    /** Why the registry gave no schema. */
    enum Failure { NOT_FOUND, UNAUTHORIZED, UNAVAILABLE, BAD_RESPONSE }

    /** A failed request; the message names the registry (its URL without user information) and the status. */
    static final class RegistryException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final Failure failure;

        RegistryException(Failure failure, String message) {
            super(message);
            this.failure = failure;
        }
    }

    private final List<String> urls;
    private final String authorization;
    private final SSLSocketFactory sslFactory;
    private final boolean verifyHostname;
    private final int connectTimeoutMs;
    private final int readTimeoutMs;
    private final int maxRetries;
    private final long retryWaitMs;
    private final long retryMaxWaitMs;

    RegistryClient(AvroConverterConfig config) {
        List<String> clean = new ArrayList<>();
        String urlUserInfo = null;
        for (String raw : config.urls()) {
            URI u = parse(raw);
            if (u.getRawUserInfo() != null && urlUserInfo == null) {
                urlUserInfo = URLDecoder.decode(u.getRawUserInfo(), StandardCharsets.UTF_8);
            }
            clean.add(withoutUserInfo(u));
        }
        this.urls = Collections.unmodifiableList(clean);
        this.authorization = authorization(config, urlUserInfo);
        this.sslFactory = clean.stream().anyMatch(u -> u.startsWith("https:")) ? sslFactory(config) : null;
        this.verifyHostname = !config.endpointIdentificationAlgorithm().isEmpty();
        this.connectTimeoutMs = config.connectTimeoutMs();
        this.readTimeoutMs = config.readTimeoutMs();
        this.maxRetries = config.maxRetries();
        this.retryWaitMs = config.retryWaitMs();
        this.retryMaxWaitMs = config.retryMaxWaitMs();
    }

    /** The registry URLs without user information (what messages name). */
    List<String> urls() {
        return urls;
    }

    /** Authentication in use, for the log: "basic", "bearer" or "none", never the credentials. */
    String authentication() {
        return authorization == null ? "none" : authorization.startsWith("Basic ") ? "basic" : "bearer";
    }

    /**
     * {@code GET /schemas/ids/{id}}, with {@code ?subject=} when there is one (as Confluent's RestService.getId): a
     * registry with contexts looks the id up in that subject's context, and names the subject it found in its answer.
     */
    SchemaText schemaById(int id, String subject) {
        return schema(get("/schemas/ids/" + id + (subject == null ? "" : "?subject=" + encode(subject)),
                "schema id " + id));
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** {@code GET /schemas/guids/{guid}}, as Confluent's RestService.getByGuid. */
    SchemaText schemaByGuid(UUID guid) {
        return schema(get("/schemas/guids/" + guid, "schema guid " + guid));
    }

    /**
     * A version of a subject, soft-deleted ones included ({@code ?deleted=true}): Confluent's client looks up the
     * versions a schema references that way when it reads (AbstractSchemaProvider.resolveReferences with
     * lookupDeletedSchema = !validateAsNew, RestService.getVersion's "deleted" query parameter).
     */
    SchemaText schemaOf(String subject, int version) {
        String path = "/subjects/" + encode(subject) + "/versions/" + version + "?deleted=true";
        return schema(get(path, "subject '" + subject + "' version " + version));
    }

    private static SchemaText schema(JsonNode n) {
        JsonNode text = n.get("schema");
        if (text == null || !text.isTextual()) {
            throw new RegistryException(Failure.BAD_RESPONSE, "the registry's answer has no \"schema\" string");
        }
        List<Reference> refs = new ArrayList<>();
        for (JsonNode r : n.path("references")) {
            JsonNode name = r.get("name");
            JsonNode subject = r.get("subject");
            JsonNode version = r.get("version");
            if (name == null || !name.isTextual() || subject == null || !subject.isTextual() || version == null
                    || !version.canConvertToInt()) {
                // Confluent's resolveReferences refuses these too ("Invalid reference").
                throw new RegistryException(Failure.BAD_RESPONSE, "the registry's answer has a schema reference without "
                        + "a name, subject or version: " + r);
            }
            refs.add(new Reference(name.asText(), subject.asText(), version.asInt()));
        }
        JsonNode subject = n.get("subject");
        return new SchemaText(text.asText(), n.path("schemaType").asText("AVRO"), refs,
                subject != null && subject.isTextual() ? subject.asText() : null);
    }

    private JsonNode get(String path, String what) {
        RegistryException last = null;
        for (int attempt = 0; attempt <= maxRetries; attempt++) {
            if (attempt > 0) {
                sleep(backoff(attempt));
            }
            for (String base : urls) {
                try {
                    return request(base, path, what);
                } catch (RegistryException e) {
                    if (e.failure != Failure.UNAVAILABLE) {
                        throw e;
                    }
                    last = e;
                }
            }
        }
        throw new RegistryException(Failure.UNAVAILABLE, last.getMessage() + " (" + (maxRetries + 1) + " attempts "
                + "over " + urls.size() + " URL(s), max.retries=" + maxRetries + ")");
    }

    private long backoff(int attempt) {
        long wait = Math.min(retryMaxWaitMs, retryWaitMs << Math.min(attempt - 1, 20));
        return wait / 2 + ThreadLocalRandom.current().nextLong(wait / 2 + 1);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryException(Failure.UNAVAILABLE, "interrupted while waiting to retry the registry");
        }
    }

    private JsonNode request(String base, String path, String what) {
        HttpURLConnection c = null;
        try {
            c = (HttpURLConnection) new URL(base + path).openConnection();
            if (c instanceof HttpsURLConnection && sslFactory != null) {
                HttpsURLConnection https = (HttpsURLConnection) c;
                https.setSSLSocketFactory(sslFactory);
                if (!verifyHostname) {
                    https.setHostnameVerifier((host, session) -> true);
                }
            }
            c.setConnectTimeout(connectTimeoutMs);
            c.setReadTimeout(readTimeoutMs);
            c.setRequestProperty("Accept", ACCEPT);
            if (authorization != null) {
                c.setRequestProperty("Authorization", authorization);
            }
            int status = c.getResponseCode();
            if (status == 200) {
                try (InputStream in = c.getInputStream()) {
                    return JSON.readTree(in);
                }
            }
            String message = errorMessage(c);
            String says = "the schema registry at " + base + " answered " + status + " for " + what
                    + (message.isEmpty() ? "" : ": " + message);
            if (status == 404) {
                throw new RegistryException(Failure.NOT_FOUND, says);
            }
            if (status == 401 || status == 403) {
                throw new RegistryException(Failure.UNAUTHORIZED, says + " (check basic.auth.credentials.source, "
                        + "basic.auth.user.info or bearer.auth.token)");
            }
            if (status == 408 || status == 429 || status >= 500) {
                throw new RegistryException(Failure.UNAVAILABLE, says);
            }
            throw new RegistryException(Failure.BAD_RESPONSE, says);
        } catch (IOException e) {
            throw new RegistryException(Failure.UNAVAILABLE, "the schema registry at " + base + " cannot be reached for "
                    + what + ": " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        } finally {
            if (c != null) {
                c.disconnect();
            }
        }
    }

    /** The registry's "message" (Confluent's error body), cut short; the body never holds credentials. */
    private static String errorMessage(HttpURLConnection c) {
        try (InputStream in = c.getErrorStream()) {
            if (in == null) {
                return "";
            }
            byte[] body = in.readNBytes(2048);
            try {
                JsonNode n = JSON.readTree(body);
                String m = n.path("message").asText("");
                int code = n.path("error_code").asInt(0);
                return code == 0 ? m : m + " (error_code " + code + ")";
            } catch (IOException notJson) {
                return "";
            }
        } catch (IOException e) {
            return "";
        }
    }

    private static URI parse(String raw) {
        try {
            URI u = new URI(raw.trim());
            if (u.getScheme() == null || u.getHost() == null
                    || !(u.getScheme().equals("http") || u.getScheme().equals("https"))) {
                throw new ConfigException("schema.registry.url: '" + withoutUserInfo(raw) + "' is not an http:// or "
                        + "https:// URL");
            }
            return u;
        } catch (URISyntaxException e) {
            throw new ConfigException("schema.registry.url: '" + withoutUserInfo(raw) + "' is not a URL");
        }
    }

    private static String withoutUserInfo(URI u) {
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        return u.getScheme() + "://" + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort()) + path;
    }

    /** A URL string with anything between "//" and "@" taken out (for messages about unparsable URLs). */
    static String withoutUserInfo(String raw) {
        return raw.replaceAll("//[^/@]*@", "//");
    }

    private static String authorization(AvroConverterConfig config, String urlUserInfo) {
        String bearer = config.bearerToken();
        if (!bearer.isEmpty()) {
            return "Bearer " + bearer;
        }
        String userInfo;
        switch (config.basicAuthSource()) {
            case "USER_INFO":
                userInfo = config.userInfo();
                if (userInfo.isEmpty()) {
                    throw new ConfigException("basic.auth.credentials.source=USER_INFO needs basic.auth.user.info "
                            + "(user:password)");
                }
                break;
            case "URL":
                userInfo = urlUserInfo;
                break;
            default:
                throw new ConfigException("basic.auth.credentials.source=" + config.basicAuthSource()
                        + " is not supported by this converter (URL or USER_INFO)");
        }
        if (userInfo == null || userInfo.isEmpty()) {
            return null;
        }
        return "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
    }

    private static SSLSocketFactory sslFactory(AvroConverterConfig config) {
        try {
            TrustManagerFactory tmf = null;
            if (!config.truststoreLocation().isEmpty()) {
                KeyStore trust = load(config.truststoreLocation(), config.truststoreType(), config.truststorePassword(),
                        "schema.registry.ssl.truststore.location");
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trust);
            }
            KeyManagerFactory kmf = null;
            if (!config.keystoreLocation().isEmpty()) {
                KeyStore keys = load(config.keystoreLocation(), config.keystoreType(), config.keystorePassword(),
                        "schema.registry.ssl.keystore.location");
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                String keyPassword = config.keyPassword() != null ? config.keyPassword() : config.keystorePassword();
                kmf.init(keys, keyPassword.toCharArray());
            }
            SSLContext ctx = SSLContext.getInstance(config.sslProtocol());
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            return ctx.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new ConfigException("schema.registry.ssl.*: cannot set up TLS for the schema registry: "
                    + e.getClass().getSimpleName());
        }
    }

    private static KeyStore load(String file, String type, String password, String key) {
        return KeyStoreFiles.open(file, type, password, key, ConfigException::new);
    }
}
