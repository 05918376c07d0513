package io.chsink.it.stack;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * ClickHouse + Kafka + Connect, each either started here or an existing service:
 * {@code chsink.clickhouse.url} (with {@code chsink.clickhouse.user}, {@code chsink.clickhouse.password}),
 * {@code chsink.bootstrap.servers} and {@code chsink.connect.url}, as system properties or as environment
 * variables in upper case with underscores (CHSINK_CLICKHOUSE_URL, ...). A Connect worker given by URL must
 * have this connector installed and reach the same Kafka and ClickHouse.
 *
 * <p>With {@code chsink.stack=containers} (what {@code mvn -B verify -Pcontainers} sets) all three are Docker
 * containers started through Testcontainers instead ({@code ContainerStack}, compiled only in that profile, from
 * system-tests/src/containers/java); without a Docker engine that stops at once with a message saying so.
 */
public final class Stack implements AutoCloseable {
    /** System property (or CHSINK_STACK) choosing the stack: {@code local} (the default) or {@code containers}. */
    public static final String MODE_PROPERTY = "chsink.stack";
    private static final String CONTAINER_STACK = "io.chsink.it.stack.ContainerStack";
    private static Stack shared;
    private static RuntimeException sharedFailure;

    private final ClickHouseServer clickhouse;
    private final KafkaBroker kafka;
    private final ConnectWorker connect;
    private final Path workDir;
    private PostgresServer postgres;
    private MariaDbServer mariadb;
    private final AutoCloseable owner;

    private Stack(ClickHouseServer clickhouse, KafkaBroker kafka, ConnectWorker connect, Path workDir) {
        this(clickhouse, kafka, connect, workDir, null);
    }

    /**
     * A stack of services started elsewhere; {@code owner} (e.g. the containers) is closed last by {@link #close()};
     * {@code workDir} is where services started on demand (PostgreSQL) keep their data.
     */
    static Stack of(ClickHouseServer clickhouse, KafkaBroker kafka, ConnectWorker connect, Path workDir,
            AutoCloseable owner) {
        return new Stack(clickhouse, kafka, connect, workDir, owner);
    }

    private Stack(ClickHouseServer clickhouse, KafkaBroker kafka, ConnectWorker connect, Path workDir,
            AutoCloseable owner) {
        this.clickhouse = clickhouse;
        this.kafka = kafka;
        this.connect = connect;
        this.workDir = workDir;
        this.owner = owner;
    }

    public static Stack start(Path workDir) {
        String mode = orDefault(setting(MODE_PROPERTY), "local");
        if (mode.equals("containers")) {
            return containers(workDir);
        }
        if (!mode.equals("local")) {
            throw new IllegalArgumentException(MODE_PROPERTY + "=" + mode + ": expected local or containers");
        }
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

    /** The Testcontainers stack, loaded by name: its class and Testcontainers exist only in the containers profile. */
    private static Stack containers(Path workDir) {
        Class<?> type;
        try {
            type = Class.forName(CONTAINER_STACK);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(MODE_PROPERTY + "=containers needs the containers profile, which compiles "
                    + "the Testcontainers stack and puts Testcontainers on the test classpath: mvn -B verify -Pcontainers", e);
        }
        try {
            return (Stack) type.getMethod("start", Path.class).invoke(null, workDir);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause()
                    : new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot start " + CONTAINER_STACK, e);
        }
    }

    /** The directory {@code name} under the stacks' work root: {@code chsink.work.dir}, else {@code <tmp>/chsink-stack}. */
    public static Path workDir(String name) {
        return Paths.get(System.getProperty("chsink.work.dir", System.getProperty("java.io.tmpdir") + "/chsink-stack"),
                name);
    }

    /**
     * One stack for every test class of a test JVM, stopped when the JVM exits. A stack that failed to start is not
     * tried again: every later caller gets the same failure at once.
     */
    public static synchronized Stack shared() {
        if (sharedFailure != null) {
            throw new IllegalStateException("the shared stack did not start: " + sharedFailure.getMessage(), sharedFailure);
        }
        if (shared == null) {
            try {
                shared = start(workDir("shared"));
            } catch (RuntimeException e) {
                sharedFailure = e;
                throw e;
            }
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

    /**
     * The MariaDB server of the binlog CDC tests, started on first use (log_bin, ROW images, see
     * {@link MariaDbServer}) and stopped with the stack.
     */
    public synchronized MariaDbServer mariadb() {
        if (mariadb == null) {
            mariadb = MariaDbServer.start(workDir.resolve("mariadb"));
        }
        return mariadb;
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
            if (mariadb != null) {
                mariadb.close();
            }
        }
        kafka.close();
        clickhouse.close();
        if (owner != null) {
            try {
                owner.close();
            } catch (Exception e) {
                System.getLogger(Stack.class.getName()).log(System.Logger.Level.WARNING, "cannot stop " + owner, e);
            }
        }
    }
}
