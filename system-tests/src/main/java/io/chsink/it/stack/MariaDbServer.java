package io.chsink.it.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB server for the binlog CDC tests: Debian's {@code mariadb-server} package (10.11; {@code .ci/run} installs
 * it), {@code mariadb-install-db} into a fresh data directory on tmpfs ({@code /dev/shm}, or system property
 * {@value #DATA_ROOT_PROPERTY}), started without any option file ({@code --no-defaults}) on a free loopback port and a
 * private socket, with what a binlog reader needs: {@code log_bin}, {@code binlog_format=ROW},
 * {@code binlog_row_image=FULL}, {@code server_id=1}; utf8mb4 and time zone UTC. mariadbd refuses to run as root
 * unless told so: as root it runs with {@code --user=root}, else as the current user. The server binary comes from
 * system property {@value #BIN_PROPERTY} (a directory holding mariadbd, mariadb-install-db and mariadb), else the PATH,
 * /usr/sbin and /usr/bin. Users: root over the socket (no password; the mariadb client), and {@value #CDC_USER} over TCP with the grants Debezium's binlog
 * connector needs. {@link #close()} stops the server and deletes its data; the error log is kept in the work dir.
 */
public final class MariaDbServer implements AutoCloseable {
    public static final String BIN_PROPERTY = "chsink.mariadb.bin";
    public static final String DATA_ROOT_PROPERTY = "chsink.mariadb.data.root";
    /** The user of the CDC source connector and of the tests, over TCP. */
    public static final String CDC_USER = "chsink_cdc";
    public static final String CDC_PASSWORD = "chsink-cdc-pw";
    public static final String DATABASE = "chsink";
    /** The binlog files are {@code <BINLOG_BASENAME>.000001}, ... in the data directory. */
    public static final String BINLOG_BASENAME = "mariadb-bin";
    public static final int SERVER_ID = 1;
    private static final System.Logger LOG = System.getLogger(MariaDbServer.class.getName());

    private final Path bin;
    private final Path workDir;
    private final String versionString;
    private Path baseDir;
    private Process process;
    private int port;

    private MariaDbServer(Path bin, Path workDir, String versionString) {
        this.bin = bin;
        this.workDir = workDir;
        this.versionString = versionString;
    }

    /** install-db into a fresh tmpfs directory, then start; {@code workDir} gets the error log when it stops. */
    public static MariaDbServer start(Path workDir) {
        return start(workDir, null);
    }

    /**
     * As {@link #start(Path)}, with the version string the server reports (SELECT VERSION(), the handshake) set by
     * mariadbd's own {@code --version=...} option when {@code versionString} is not null. Debezium's MySQL connector
     * takes any "10.x" for a MySQL after 8.4 and refuses MariaDB 10.11 (see docs/notes/mariadb.md); a version string
     * that starts with 8.0 lets it fall back to SHOW MASTER STATUS.
     */
    public static MariaDbServer start(Path workDir, String versionString) {
        MariaDbServer s = new MariaDbServer(binDir(), workDir.toAbsolutePath(), versionString);
        try {
            s.initAndStart();
        } catch (RuntimeException e) {
            s.close(); // a server that started but could not be set up must not outlive the test
            throw e;
        }
        return s;
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public String jdbcUrl() {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + DATABASE
                + "?characterEncoding=UTF-8&connectionCollation=utf8mb4_bin&useSSL=false&allowPublicKeyRetrieval=true";
    }

    /** A new JDBC connection as {@value #CDC_USER} to {@value #DATABASE} (auto-commit on, utf8mb4_bin; the server's time zone is UTC). */
    public Connection connect() {
        try {
            return DriverManager.getConnection(jdbcUrl(), CDC_USER, CDC_PASSWORD);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to MariaDB at " + jdbcUrl() + ": " + e.getMessage(), e);
        }
    }

    /** One statement as {@value #CDC_USER}. */
    public void exec(String sql) {
        try (Connection c = connect(); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("MariaDB: " + sql + ": " + e.getMessage(), e);
        }
    }

    /** The first column of the first row of a query, as text (null for SQL NULL). */
    public String scalar(String sql) {
        try (Connection c = connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException("MariaDB: " + sql + ": " + e.getMessage(), e);
        }
    }

    /** SELECT VERSION(). */
    public String version() {
        return scalar("SELECT VERSION()");
    }

    /** FLUSH BINARY LOGS: closes the current binlog file and opens the next one. Returns the new file's name. */
    public String rotateBinlog() {
        exec("FLUSH BINARY LOGS");
        return currentBinlog();
    }

    /** The binlog file written now (SHOW MASTER STATUS). */
    public String currentBinlog() {
        try (Connection c = connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
            if (!rs.next()) {
                throw new IllegalStateException("SHOW MASTER STATUS returned no row: is log_bin on?");
            }
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("MariaDB: SHOW MASTER STATUS: " + e.getMessage(), e);
        }
    }

    /** The distinct event types of one binlog file, in order of first appearance (SHOW BINLOG EVENTS). */
    public List<String> binlogEventTypes(String file) {
        List<String> types = new ArrayList<>();
        try (Connection c = connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SHOW BINLOG EVENTS IN '" + file.replace("'", "''") + "'")) {
            while (rs.next()) {
                String type = rs.getString("Event_type");
                if (!types.contains(type)) {
                    types.add(type);
                }
            }
            return types;
        } catch (SQLException e) {
            throw new IllegalStateException("MariaDB: SHOW BINLOG EVENTS IN " + file + ": " + e.getMessage(), e);
        }
    }

    /** The error log so far (the server's own messages, e.g. a binlog dump thread's). */
    public String errorLog() {
        try {
            Path log = baseDir == null ? workDir.resolve("mariadb.err") : baseDir.resolve("mariadb.err");
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private void initAndStart() {
        try {
            Files.createDirectories(workDir);
            baseDir = LocalServerFiles.newDataDir(DATA_ROOT_PROPERTY, workDir, "chsink-mariadb-");
            Path data = baseDir.resolve("data");
            List<String> install = new ArrayList<>(List.of(tool("mariadb-install-db").toString(), "--no-defaults",
                    "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"));
            if (asRoot()) {
                install.add("--user=root");
            }
            run(install, "mariadb-install-db");
            port = LocalPorts.free();
            List<String> cmd = new ArrayList<>(List.of(tool("mariadbd").toString(), "--no-defaults",
                    "--datadir=" + data, "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + socket(),
                    "--pid-file=" + baseDir.resolve("mariadb.pid"), "--log-error=" + baseDir.resolve("mariadb.err"),
                    "--server-id=" + SERVER_ID, "--log-bin=" + data.resolve(BINLOG_BASENAME),
                    "--binlog-format=ROW", "--binlog-row-image=FULL", "--character-set-server=utf8mb4",
                    "--collation-server=utf8mb4_bin", "--default-time-zone=+00:00", "--skip-name-resolve",
                    "--innodb-buffer-pool-size=128M", "--innodb-log-file-size=64M",
                    "--innodb-flush-log-at-trx-commit=0", "--sync-binlog=0", "--max-connections=100"));
            if (versionString != null) {
                cmd.add("--version=" + versionString);
            }
            if (asRoot()) {
                cmd.add("--user=root");
            }
            long begin = System.nanoTime();
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(baseDir.resolve("mariadbd.out").toFile()).start();
            awaitReady(begin);
            rootExec("CREATE DATABASE " + DATABASE + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
                    "CREATE USER '" + CDC_USER + "'@'%' IDENTIFIED BY '" + CDC_PASSWORD + "'",
                    // What Debezium's binlog connectors document: SELECT, RELOAD (FLUSH TABLES for the snapshot lock),
                    // SHOW DATABASES, REPLICATION SLAVE (the binlog dump), REPLICATION CLIENT (SHOW MASTER STATUS);
                    // ALL on the test database for the workload itself.
                    "GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO '"
                            + CDC_USER + "'@'%'",
                    "GRANT ALL ON " + DATABASE + ".* TO '" + CDC_USER + "'@'%'");
            LOG.log(Level.INFO, "MariaDB {0} up at {1} in {2} ms (data {3})", version(), jdbcUrl(),
                    (System.nanoTime() - begin) / 1_000_000, data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Several statements as root over the private socket (the mariadb client: JDBC has no unix sockets here). */
    public void rootExec(String... statements) {
        List<String> cmd = new ArrayList<>(List.of(tool("mariadb").toString(), "--no-defaults", "--socket=" + socket(),
                "-uroot", "--batch", "-e", String.join(";\n", statements)));
        run(cmd, "mariadb client");
    }

    private Path socket() {
        return baseDir.resolve("mariadb.sock");
    }

    private void awaitReady(long begin) {
        long deadline = begin + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("mariadbd exited (" + process.exitValue() + ") at start:\n" + errorLog());
            }
            if (Files.exists(socket()) && errorLog().contains("ready for connections")) {
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while mariadbd starts", e);
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("mariadbd not ready within 120 s:\n" + errorLog());
    }

    private Path tool(String name) {
        if (bin != null) {
            return bin.resolve(name);
        }
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"));
        for (String dir : dirs) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name);
            }
        }
        throw new IllegalStateException("MariaDB's " + name + " was not found (on the PATH or in /usr/sbin, /usr/bin): "
                + "apt-get install mariadb-server (.ci/run does), or set " + BIN_PROPERTY);
    }

    private void run(List<String> cmd, String what) {
        LocalServerFiles.run(cmd, what, workDir, "mariadb-", () -> "");
    }

    /** {@value #BIN_PROPERTY}, or null: each tool is then looked for on the PATH and in /usr/sbin, /usr/bin. */
    static Path binDir() {
        String configured = Stack.setting(BIN_PROPERTY);
        return configured == null ? null : Path.of(configured);
    }

    /** Stops the server (SIGTERM: a clean shutdown), keeps its error log in the work dir and deletes the data. */
    @Override
    public void close() {
        if (baseDir == null) {
            return;
        }
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    LOG.log(Level.WARNING, "mariadbd did not stop within 60 s: killed");
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LocalServerFiles.keepLogAndDelete(baseDir, "mariadb.err", workDir);
        baseDir = null;
    }
}
