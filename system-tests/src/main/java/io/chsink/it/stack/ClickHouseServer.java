package io.chsink.it.stack;

import com.clickhouse.client.api.Client;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A ClickHouse server for tests: either an embedded one, a child process running clickhouse-local from libchdb
 * with its HTTP (and TCP) listeners started, or an external one given by URL (then start/stop/kill are refused).
 * <p>
 * The embedded server keeps its data dir and ports across {@link #stop()}/{@link #kill()} and {@link #start()},
 * so a test can kill ClickHouse mid-stream and see the data survive. The data dir is on tmpfs by default
 * ({@code /dev/shm}, or the dir named by system property {@value #DATA_ROOT_PROPERTY}); {@link #close()} deletes it
 * if it was created here. The log ({@code clickhouse.log} in the work dir) is appended across restarts. The user is
 * {@code default} without password; {@link Builder#withUser} adds password users. Timezone is UTC. With
 * {@link Builder#zookeeper} it has a Keeper (KeeperMap tables); {@link Builder#cluster} defines a cluster of
 * servers for Distributed tables, this server among them, {@link Builder#clusterOf} one of other servers only.
 */
public final class ClickHouseServer implements AutoCloseable {
    /** System property: the directory under which data dirs are created when none is given (default /dev/shm). */
    public static final String DATA_ROOT_PROPERTY = "chsink.clickhouse.data.root";
    private static final System.Logger LOG = System.getLogger(ClickHouseServer.class.getName());
    private static final String KEEPALIVE_QUERY_ID = "chsink-keepalive";
    /** The {@code keeper_map_path_prefix} of servers with a ZooKeeper ({@link Builder#zookeeper}). */
    public static final String KEEPER_MAP_PATH_PREFIX = "/keeper_map_tables";
    /**
     * {@code true}: embedded servers keep {@code system.query_log} (flushed every second, and by
     * {@code SYSTEM FLUSH LOGS}), for the fault tests' proofs; the system tests set it, the benchmarks do not.
     */
    public static final String QUERY_LOG_PROPERTY = "chsink.clickhouse.query.log";
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "chsink-clickhouse-reaper"));
    }

    private final ClickHouseHttp http; // null for an embedded server
    private final Builder embedded; // null for an external server
    private final Path dataDir;
    private final boolean ownsDataDir;
    private int httpPort;
    private int tcpPort;
    private Process process;

    private ClickHouseServer(ClickHouseHttp http, Builder embedded, Path dataDir, boolean ownsDataDir, int httpPort, int tcpPort) {
        this.http = http;
        this.embedded = embedded;
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.httpPort = httpPort;
        this.tcpPort = tcpPort;
    }

    /** Starts an embedded server with default settings; files go to {@code workDir}. */
    public static ClickHouseServer embedded(Path workDir) {
        return builder(workDir).start();
    }

    public static Builder builder(Path workDir) {
        return new Builder(workDir.toAbsolutePath());
    }

    /** An existing server, for example {@code external("http://127.0.0.1:8123", "default", "")}; not managed here. */
    public static ClickHouseServer external(String url, String user, String password) {
        return new ClickHouseServer(new ClickHouseHttp(url, user, password), null, null, false, -1, -1);
    }

    /** Options of an embedded server. */
    public static final class Builder {
        private final Path workDir;
        private final Map<String, String> users = new LinkedHashMap<>();
        private final Map<String, List<String>> grants = new LinkedHashMap<>();
        private Path dataDir;
        private Duration startupTimeout = Duration.ofSeconds(60);
        private String logLevel = "warning";
        private String zookeeper;
        private boolean queryLog = Boolean.getBoolean(QUERY_LOG_PROPERTY);
        private final Map<String, List<ClickHouseServer>> clusters = new LinkedHashMap<>();
        /** The clusters of {@link #clusters} that end with a shard for this server itself. */
        private final Set<String> clustersWithSelf = new java.util.HashSet<>();
        private final Map<String, String> profileSettings = new LinkedHashMap<>();

        private Builder(Path workDir) {
            this.workDir = workDir.toAbsolutePath();
        }

        /** Keep the data here instead of a fresh dir under /dev/shm; it is then never deleted by {@link #close()}. */
        public Builder dataDir(Path dir) {
            dataDir = dir.toAbsolutePath();
            return this;
        }

        /** An extra user with a plain-text password and the default profile (may read and write everything). */
        public Builder withUser(String name, String password) {
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("user name must be a plain identifier: " + name);
            }
            if (name.equals("default")) {
                throw new IllegalArgumentException("user 'default' stays password-less (the launcher's own session needs it)");
            }
            users.put(name, password);
            return this;
        }

        /**
         * A user with a plain-text password and only the given grants, e.g. {@code "INSERT ON db.t"} (each becomes
         * {@code GRANT <grant>} for this user in the users file: this clickhouse-local based server has no SQL-managed
         * access storage, so users and grants live in the users file).
         */
        public Builder withRestrictedUser(String name, String password, String... grants) {
            withUser(name, password);
            this.grants.put(name, List.of(grants));
            return this;
        }

        /** A setting of the default profile (every user's, so every query's unless it sets its own), e.g. max_block_size. */
        public Builder profileSetting(String name, String value) {
            if (!name.matches("[a-z_][a-z0-9_]*")) {
                throw new IllegalArgumentException("setting name must be a plain identifier: " + name);
            }
            profileSettings.put(name, value);
            return this;
        }

        public Builder startupTimeout(Duration timeout) {
            startupTimeout = timeout;
            return this;
        }

        /** Server log level written to clickhouse.log: error, warning (default), information, debug, trace. */
        public Builder logLevel(String level) {
            logLevel = level;
            return this;
        }

        /**
         * A Keeper for this server: {@code <zookeeper>} with the one node {@code 127.0.0.1:port} and
         * {@code keeper_map_path_prefix} {@value ClickHouseServer#KEEPER_MAP_PATH_PREFIX}, so KeeperMap tables work. Servers
         * configured with the same ZooKeeper share the data of KeeperMap tables created with the same path.
         */
        public Builder zookeeper(ZooKeeperNode node) {
            zookeeper = "<zookeeper><node><host>127.0.0.1</host><port>" + node.port() + "</port></node></zookeeper>\n"
                    + "  <keeper_map_path_prefix>" + KEEPER_MAP_PATH_PREFIX + "</keeper_map_path_prefix>\n";
            return this;
        }

        /**
         * A cluster in {@code remote_servers} for Distributed tables: one shard per given server (its TCP port), then
         * one for this server itself. The given servers must be started (their ports are known then). A server with
         * a cluster also gets clickhouse-server's pool of 16 threads for background sends (clickhouse-local has none),
         * so inserts without {@code distributed_foreground_insert} reach the shards as on a server.
         */
        public Builder cluster(String name, ClickHouseServer... others) {
            return cluster(name, true, others);
        }

        /**
         * A cluster in {@code remote_servers} whose shards are the given servers only, in order (shard 1 is the first,
         * each of weight 1): this server is its initiator, not one of its shards. The given servers must be started.
         */
        public Builder clusterOf(String name, ClickHouseServer... shards) {
            if (shards.length == 0) {
                throw new IllegalArgumentException("cluster " + name + " without shards");
            }
            return cluster(name, false, shards);
        }

        private Builder cluster(String name, boolean withSelf, ClickHouseServer... servers) {
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("cluster name must be a plain identifier: " + name);
            }
            for (ClickHouseServer s : servers) {
                if (s.tcpPort() < 0) {
                    throw new IllegalArgumentException("cluster " + name + ": a server without a known TCP port");
                }
            }
            clusters.put(name, List.of(servers));
            if (withSelf) {
                clustersWithSelf.add(name);
            } else {
                clustersWithSelf.remove(name);
            }
            return this;
        }

        public ClickHouseServer start() {
            try {
                Files.createDirectories(workDir);
                boolean owned = dataDir == null;
                Path data = owned ? Files.createTempDirectory(dataRoot(), "chsink-clickhouse-") : Files.createDirectories(dataDir);
                ClickHouseServer server = new ClickHouseServer(null, this, data, owned, -1, -1);
                LOG.log(Level.INFO, "ClickHouse data directory: {0}{1}", data, data.startsWith("/dev/shm") ? " (tmpfs)" : "");
                try {
                    return server.firstStart();
                } catch (RuntimeException e) {
                    server.close();
                    throw e;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot prepare ClickHouse dirs in " + workDir, e);
            }
        }

        private Path dataRoot() throws IOException {
            String property = System.getProperty(DATA_ROOT_PROPERTY);
            Path root = property != null ? Path.of(property) : Path.of("/dev/shm");
            if (property == null && !Files.isWritable(root)) {
                root = workDir;
            }
            return Files.createDirectories(root);
        }
    }

    /** Picks free ports and starts; retries with other ports if another process took one in the meantime. */
    private ClickHouseServer firstStart() {
        for (int attempt = 1; ; attempt++) {
            httpPort = LocalPorts.free();
            tcpPort = LocalPorts.free();
            try {
                return start();
            } catch (IllegalStateException e) {
                if (attempt == 3 || !logTail().contains("Address already in use")) {
                    throw e;
                }
                LOG.log(Level.WARNING, "ClickHouse port clash, retrying with other ports");
            }
        }
    }

    /** Starts the embedded server process (again) and waits until it answers {@code SELECT 1}. */
    public ClickHouseServer start() {
        requireEmbedded();
        if (isRunning()) {
            throw new IllegalStateException("ClickHouse is already running (pid " + process.pid() + ")");
        }
        long begin = System.nanoTime();
        try {
            if (embedded.queryLog) {
                // clickhouse-local does not keep the system database's metadata across starts: the log table's data
                // directory left by the previous start would make every flush fail (TABLE_ALREADY_EXISTS).
                deleteTree(Path.of(dataDir.toString(), "data", "system", "query_log"));
            }
            List<String> command = new ArrayList<>(List.of(ChLauncher.ensure().toString(),
                    "--config-file", writeConfig().toString(), "--log-level", embedded.logLevel,
                    "--path", dataDir + "/", "--listen_host", "127.0.0.1",
                    "--http_port", String.valueOf(httpPort), "--tcp_port", String.valueOf(tcpPort),
                    "--query_id", KEEPALIVE_QUERY_ID,
                    // The listeners live as long as the session: the endless last query keeps it open.
                    "--query", "SYSTEM START LISTEN HTTP; SYSTEM START LISTEN TCP; "
                            + "SELECT sleepEachRow(0.1) FROM numbers(1000000000000) SETTINGS max_block_size = 1 FORMAT Null"));
            Files.writeString(logFile(), "==== starting ClickHouse: " + String.join(" ", command) + "\n",
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            process = new ProcessBuilder(command)
                    .directory(embedded.workDir.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
                    .start();
            LIVE.add(process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start ClickHouse in " + embedded.workDir, e);
        }
        awaitReady(System.nanoTime() + embedded.startupTimeout.toNanos());
        LOG.log(Level.INFO, "ClickHouse up at {0} (pid {1}) in {2} ms, data in {3}, log {4}",
                url(), process.pid(), (System.nanoTime() - begin) / 1_000_000, dataDir, logFile());
        return this;
    }

    private void awaitReady(long deadline) {
        ClickHouseHttp probe = http();
        while (true) {
            if (!process.isAlive()) {
                LIVE.remove(process);
                throw new IllegalStateException("ClickHouse exited with code " + process.exitValue()
                        + " before answering on " + url() + "; log " + logFile() + " ends with:\n" + logTail());
            }
            try {
                probe.query("SELECT 1", Duration.ofSeconds(2));
                return;
            } catch (ClickHouseQueryException notYet) {
                if (System.nanoTime() > deadline) {
                    kill();
                    throw new IllegalStateException("ClickHouse did not answer SELECT 1 on " + url() + " within "
                            + embedded.startupTimeout + " (" + notYet.getMessage() + "); log " + logFile()
                            + " ends with:\n" + logTail());
                }
                sleep(50);
            }
        }
    }

    /**
     * Clean shutdown: cancels the session's keep-alive query, so clickhouse-local ends normally (tables shut down,
     * status file removed); signals would not do that, libchdb installs no handlers and SIGTERM/SIGINT just kill it.
     * Falls back to SIGTERM, then SIGKILL. Returns the exit code (0 after a clean shutdown).
     */
    public int stop() {
        requireEmbedded();
        if (!isRunning()) {
            return process == null ? 0 : process.exitValue();
        }
        long begin = System.nanoTime();
        try {
            http().exec("KILL QUERY WHERE query_id = '" + KEEPALIVE_QUERY_ID + "' SYNC");
        } catch (ClickHouseQueryException e) {
            LOG.log(Level.WARNING, "cannot cancel ClickHouse keep-alive query, sending SIGTERM: {0}", e.getMessage());
            process.destroy();
        }
        return awaitExit(begin, Duration.ofSeconds(20));
    }

    /** SIGKILL, as in a crash; returns the exit code (137). */
    public int kill() {
        requireEmbedded();
        if (process == null) {
            throw new IllegalStateException("ClickHouse was never started");
        }
        long begin = System.nanoTime();
        process.destroyForcibly();
        return awaitExit(begin, Duration.ofSeconds(20));
    }

    private int awaitExit(long begin, Duration grace) {
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(Level.WARNING, "ClickHouse (pid {0}) did not exit within {1}, sending SIGKILL", process.pid(), grace);
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("interrupted while waiting for ClickHouse to exit", e);
        }
        LIVE.remove(process);
        LOG.log(Level.INFO, "ClickHouse (pid {0}) exited with code {1} after {2} ms",
                process.pid(), process.exitValue(), (System.nanoTime() - begin) / 1_000_000);
        return process.exitValue();
    }

    /** Changes a user's password for the next {@link #start()} (the users file is read at start only). */
    public void changePassword(String user, String password) {
        requireEmbedded();
        if (!embedded.users.containsKey(user)) {
            throw new IllegalArgumentException("no user " + user);
        }
        embedded.users.put(user, password);
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** The process id of the running (or last) embedded server; -1 when external or never started. */
    public long pid() {
        return process == null ? -1 : process.pid();
    }

    /** Stops the server if running and deletes the data dir if it was created here. Idempotent; no-op when external. */
    @Override
    public void close() {
        if (embedded == null) {
            return;
        }
        if (isRunning()) {
            stop();
        }
        if (ownsDataDir) {
            try {
                StackCache.deleteTree(dataDir);
            } catch (IOException e) {
                LOG.log(Level.WARNING, "cannot delete ClickHouse data dir {0}: {1}", dataDir, e);
            }
        }
    }

    /** {@code http://127.0.0.1:PORT} (no trailing slash). */
    public String url() {
        return embedded == null ? http.url() : "http://127.0.0.1:" + httpPort;
    }

    public int httpPort() {
        return embedded == null ? URI.create(http.url()).getPort() : httpPort;
    }

    /** The native-protocol port (embedded only; -1 for an external server). */
    public int tcpPort() {
        return tcpPort;
    }

    public String user() {
        return embedded == null ? http.user() : "default";
    }

    public String password() {
        return embedded == null ? http.password() : "";
    }

    public Path dataDir() {
        return dataDir;
    }

    public Path logFile() {
        return embedded == null ? null : embedded.workDir.resolve("clickhouse.log");
    }

    /** HTTP queries as this server's user. */
    public ClickHouseHttp http() {
        return embedded == null ? http : new ClickHouseHttp(url(), user(), password());
    }

    /** HTTP queries as another user. */
    public ClickHouseHttp http(String user, String password) {
        return new ClickHouseHttp(url(), user, password);
    }

    /** The response body (TabSeparated unless the SQL says otherwise); throws with the server's error text on failure. */
    public String query(String sql) {
        return http().query(sql);
    }

    public void exec(String sql) {
        http().exec(sql);
    }

    /** For example {@code 26.7.2.1}. */
    public String version() {
        return http().scalar("SELECT version()");
    }

    /** A new client-v2 client for this server; the caller closes it. */
    public Client newClient() {
        return new Client.Builder().addEndpoint(url() + "/").setUsername(user()).setPassword(password()).build();
    }

    /** Writes clickhouse-config.xml (UTC, console log, users file) and clickhouse-users.xml into the work dir. */
    private Path writeConfig() throws IOException {
        StringBuilder users = new StringBuilder("    <default><password></password><access_management>1</access_management>"
                + "<networks><ip>::/0</ip></networks><profile>default</profile><quota>default</quota></default>\n");
        embedded.users.forEach((name, password) -> {
            users.append("    <").append(name).append("><password>")
                    .append(xmlEscape(password)).append("</password><networks><ip>::/0</ip></networks>")
                    .append("<profile>default</profile><quota>default</quota>");
            List<String> granted = embedded.grants.get(name);
            if (granted != null) {
                users.append("<grants>");
                for (String g : granted) {
                    users.append("<query>").append(xmlEscape("GRANT " + g)).append("</query>");
                }
                users.append("</grants>");
            }
            users.append("</").append(name).append(">\n");
        });
        Path usersFile = embedded.workDir.resolve("clickhouse-users.xml");
        StringBuilder profile = new StringBuilder();
        embedded.profileSettings.forEach((name, value) -> profile.append('<').append(name).append('>')
                .append(xmlEscape(value)).append("</").append(name).append('>'));
        Files.writeString(usersFile, "<clickhouse>\n  <profiles><default>" + profile + "</default></profiles>\n"
                + "  <quotas><default/></quotas>\n"
                + "  <users>\n" + users + "  </users>\n</clickhouse>\n");
        StringBuilder remote = new StringBuilder();
        embedded.clusters.forEach((name, others) -> {
            remote.append("    <").append(name).append(">");
            others.forEach(s -> remote.append(shard(s.tcpPort())));
            if (embedded.clustersWithSelf.contains(name)) {
                remote.append(shard(tcpPort));
            }
            remote.append("</").append(name).append(">\n");
        });
        Path config = embedded.workDir.resolve("clickhouse-config.xml");
        Files.writeString(config, "<clickhouse>\n  <timezone>UTC</timezone>\n  <logger><console>1</console></logger>\n"
                + "  <users_config>" + xmlEscape(usersFile.toString()) + "</users_config>\n"
                + (embedded.zookeeper == null ? "" : "  " + embedded.zookeeper)
                + (embedded.queryLog ? "  <query_log><database>system</database><table>query_log</table>"
                        + "<flush_interval_milliseconds>1000</flush_interval_milliseconds></query_log>\n" : "")
                + (remote.length() == 0 ? "" : "  <remote_servers>\n" + remote + "  </remote_servers>\n"
                        // clickhouse-local has no pool for Distributed tables' background sends (0 threads: inserts
                        // without distributed_foreground_insert stay queued on disk for ever); clickhouse-server's 16.
                        + "  <background_distributed_schedule_pool_size>16</background_distributed_schedule_pool_size>\n")
                + "</clickhouse>\n");
        return config;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    private static String shard(int tcpPort) {
        return "<shard><replica><host>127.0.0.1</host><port>" + tcpPort + "</port></replica></shard>";
    }

    private static String xmlEscape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private String logTail() {
        try {
            List<String> lines = Files.exists(logFile()) ? Files.readAllLines(logFile(), StandardCharsets.UTF_8) : List.of();
            return lines.isEmpty() ? "(empty)" : String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private void requireEmbedded() {
        if (embedded == null) {
            throw new IllegalStateException("ClickHouse at " + http.url() + " is external: it is not started or stopped here");
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
