package io.chsink.it.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL server for the CDC tests: Debian's {@code postgresql} package (15; {@code .ci/run} installs it),
 * initialised into a fresh data directory on tmpfs ({@code /dev/shm}, or system property
 * {@value #DATA_ROOT_PROPERTY}) and started with {@code wal_level=logical} on a free loopback port, trust
 * authentication for user {@code postgres}. PostgreSQL refuses to run as root, so as root every server command runs
 * as the {@code postgres} user ({@code runuser -u postgres}). The binaries come from system property
 * {@value #BIN_PROPERTY}, else the newest {@code /usr/lib/postgresql/N/bin}, else the PATH. {@link #close()} stops
 * the server and deletes its data. Log: {@code postgres.log} in the data directory while it runs, copied to the
 * work dir when it stops.
 */
public final class PostgresServer implements AutoCloseable {
    public static final String BIN_PROPERTY = "chsink.postgres.bin";
    public static final String DATA_ROOT_PROPERTY = "chsink.postgres.data.root";
    public static final String USER = "postgres";
    public static final String DATABASE = "postgres";
    private static final System.Logger LOG = System.getLogger(PostgresServer.class.getName());

    private final Path bin;
    private final Path workDir;
    private final boolean asRoot;
    private Path dataDir;
    private int port;

    private PostgresServer(Path bin, Path workDir) {
        this.bin = bin;
        this.workDir = workDir;
        this.asRoot = "root".equals(System.getProperty("user.name"));
    }

    /** initdb into a fresh tmpfs directory, then start; {@code workDir} gets the log when it stops. */
    public static PostgresServer start(Path workDir) {
        PostgresServer s = new PostgresServer(binDir(), workDir.toAbsolutePath());
        s.initAndStart();
        return s;
    }

    public int port() {
        return port;
    }

    public String host() {
        return "127.0.0.1";
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
    }

    /** A new JDBC connection as {@value #USER} (auto-commit on). */
    public Connection connect() {
        try {
            return DriverManager.getConnection(jdbcUrl(), USER, "");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to PostgreSQL at " + jdbcUrl() + ": " + e.getMessage(), e);
        }
    }

    /** The server's own version string (SELECT version()). */
    public String version() {
        try (Connection c = connect(); var st = c.createStatement(); var rs = st.executeQuery("SELECT version()")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public Path dataDir() {
        return dataDir;
    }

    private void initAndStart() {
        try {
            Files.createDirectories(workDir);
            dataDir = LocalServerFiles.newDataDir(DATA_ROOT_PROPERTY, workDir, "chsink-postgres-");
            if (asRoot) {
                run(List.of("chown", "postgres:postgres", dataDir.toString()), "chown of the data directory");
            }
            run(server("initdb", "-D", dataDir.toString(), "-U", USER, "--auth=trust", "--encoding=UTF8",
                    "--no-locale", "--no-sync"), "initdb");
            port = LocalPorts.free();
            String options = "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + dataDir
                    + " -c wal_level=logical -c max_wal_senders=20 -c max_replication_slots=20"
                    + " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50"
                    + " -c shared_buffers=128MB -c timezone=UTC";
            long begin = System.nanoTime();
            run(server("pg_ctl", "-D", dataDir.toString(), "-l", dataDir.resolve("postgres.log").toString(), "-o",
                    options, "-w", "-t", "120", "start"), "pg_ctl start");
            LOG.log(Level.INFO, "PostgreSQL up at {0} in {1} ms (data {2})", jdbcUrl(),
                    (System.nanoTime() - begin) / 1_000_000, dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A server binary's command line, as the postgres user when this JVM runs as root. */
    private List<String> server(String tool, String... args) {
        List<String> cmd = new ArrayList<>();
        if (asRoot) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.add(bin.resolve(tool).toString());
        cmd.addAll(List.of(args));
        return cmd;
    }

    private void run(List<String> cmd, String what) {
        LocalServerFiles.run(cmd, what, workDir, "pg-", () -> {
            Path log = dataDir == null ? null : dataDir.resolve("postgres.log");
            try {
                return log != null && Files.exists(log) ? "\n--- postgres.log:\n" + Files.readString(log) : "";
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Debian's layout (/usr/lib/postgresql/N/bin, newest N), unless {@value #BIN_PROPERTY} names the directory. */
    static Path binDir() {
        String configured = Stack.setting(BIN_PROPERTY);
        if (configured != null) {
            return Path.of(configured);
        }
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Path newest = versions.filter(v -> Files.isExecutable(v.resolve("bin/initdb")))
                        .max(Comparator.comparingInt(v -> parseOr(v.getFileName().toString()))).orElse(null);
                if (newest != null) {
                    return newest.resolve("bin");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "initdb"))) {
                return Path.of(dir);
            }
        }
        throw new IllegalStateException("PostgreSQL's initdb was not found (in /usr/lib/postgresql/*/bin or on the "
                + "PATH): apt-get install postgresql (.ci/run does), or set " + BIN_PROPERTY);
    }

    private static int parseOr(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Stops the server (fast shutdown), keeps its log in the work dir and deletes the data directory. */
    @Override
    public void close() {
        if (dataDir == null) {
            return;
        }
        try {
            run(server("pg_ctl", "-D", dataDir.toString(), "-m", "fast", "-w", "-t", "60", "stop"), "pg_ctl stop");
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "PostgreSQL did not stop cleanly: {0}", e.getMessage());
        }
        LocalServerFiles.keepLogAndDelete(dataDir, "postgres.log", workDir);
        dataDir = null;
    }
}
