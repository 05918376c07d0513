package io.chsink.it.stack;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * ClickHouse + Kafka + Connect, each either started here or an existing service:
 * {@code chsink.clickhouse.url} (with {@code chsink.clickhouse.user}, {@code chsink.clickhouse.password}),
 * {@code chsink.bootstrap.servers} and {@code chsink.connect.url}, as system properties or as environment
 * variables in upper case with underscores (CHSINK_CLICKHOUSE_URL, ...). A Connect worker given by URL must
 * have this connector installed and reach the same Kafka and ClickHouse.
 */
public final class Stack implements AutoCloseable {
    private static Stack shared;

    private final ClickHouseServer clickhouse;
    private final KafkaBroker kafka;
    private final ConnectWorker connect;
    private final Path workDir;
    private PostgresServer postgres;

    private Stack(ClickHouseServer clickhouse, KafkaBroker kafka, ConnectWorker connect, Path workDir) {
        this.clickhouse = clickhouse;
        this.kafka = kafka;
        this.connect = connect;
        this.workDir = workDir;
    }

    public static Stack start(Path workDir) {
        ClickHouseServer ch = null;
        KafkaBroker kb = null;
        try {
            String chUrl = setting("chsink.clickhouse.url");
            ch = chUrl != null
                    ? ClickHouseServer.external(chUrl, orDefault(setting("chsink.clickhouse.user"), "default"),
                            orDefault(setting("chsink.clickhouse.password"), ""))
                    : ClickHouseServer.embedded(workDir.resolve("clickhouse"));
            String bootstrap = setting("chsink.bootstrap.servers");
            kb = bootstrap != null ? KafkaBroker.external(bootstrap) : new KafkaBroker().start(workDir.resolve("broker"));
            String connectUrl = setting("chsink.connect.url");
            ConnectWorker cw = connectUrl != null ? ConnectWorker.external(connectUrl)
                    : new ConnectWorker().start(workDir.resolve("worker"), kb.bootstrapServers());
            return new Stack(ch, kb, cw, workDir);
        } catch (RuntimeException e) {
            if (kb != null) {
                kb.close();
            }
            if (ch != null) {
                ch.close();
            }
            throw e;
        }
    }

    /** One stack for every test class of a test JVM, stopped when the JVM exits. */
    public static synchronized Stack shared() {
        if (shared == null) {
            String dir = System.getProperty("chsink.work.dir", System.getProperty("java.io.tmpdir") + "/chsink-stack");
            shared = start(Paths.get(dir, "shared"));
            Runtime.getRuntime().addShutdownHook(new Thread(shared::close, "chsink-stack-stop"));
        }
        return shared;
    }

    public ClickHouseServer clickhouse() {
        return clickhouse;
    }

    public KafkaBroker kafka() {
        return kafka;
    }

    public ConnectWorker connect() {
        return connect;
    }

    /**
     * The PostgreSQL server of the CDC tests, started on first use (logical replication on, see
     * {@link PostgresServer}) and stopped with the stack.
     */
    public synchronized PostgresServer postgres() {
        if (postgres == null) {
            postgres = PostgresServer.start(workDir.resolve("postgres"));
        }
        return postgres;
    }

    /** The ClickHouse URL as the Connect worker should use it. */
    public String clickhouseUrl() {
        return clickhouse.url();
    }

    static String setting(String property) {
        String v = System.getProperty(property);
        if (v == null || v.isEmpty()) {
            v = System.getenv(property.toUpperCase(java.util.Locale.ROOT).replace('.', '_'));
        }
        return v == null || v.isEmpty() ? null : v;
    }

    private static String orDefault(String v, String d) {
        return v == null ? d : v;
    }

    @Override
    public void close() {
        connect.close();
        synchronized (this) {
            if (postgres != null) {
                postgres.close();
            }
        }
        kafka.close();
        clickhouse.close();
    }
}
