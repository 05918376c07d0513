package io.chsink.it.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A standalone Apache ZooKeeper ({@code ZooKeeperServerMain}) in a child JVM on a free loopback port: the Keeper of
 * the ClickHouse instances that {@link ClickHouseServer.Builder#zookeeper} configures, for KeeperMap tables. Its
 * classpath is the file Maven writes ({@code zookeeper.classpath}, system property
 * {@code chsink.zookeeper.classpath}). Files in the work dir: {@code zookeeper.log} (INFO log), {@code zookeeper.out}
 * (stdout/stderr), {@code data/} (snapshots and transaction log, not fsynced: a test Keeper). No admin server.
 * JVM options default to {@code -Xmx256m}, overridable with system property {@code chsink.zookeeper.jvm.opts}.
 */
public final class ZooKeeperNode extends ChildJvmService {
    private static final System.Logger LOG = System.getLogger(ZooKeeperNode.class.getName());
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

    private final List<String> jvmOptions = ChildJvm.jvmOptions("chsink.zookeeper.jvm.opts", "-Xmx256m");
    private int port = -1;

    public ZooKeeperNode() {
        super(false);
    }

    @Override
    protected String describe() {
        return "ZooKeeper" + (port < 0 ? "" : " 127.0.0.1:" + port);
    }

    /** Wipes {@code workDir} and starts a fresh node; waits until it serves ({@code srvr} says standalone). */
    public ZooKeeperNode start(Path workDir) {
        workDir = workDir.toAbsolutePath(); // the child JVM runs in another working directory
        if (isRunning()) {
            throw new IllegalStateException(describe() + " is already running");
        }
        ChildJvm.resetWorkDir(workDir);
        port = LocalPorts.free();
        List<String> options = new java.util.ArrayList<>(jvmOptions);
        options.addAll(List.of("-Dzookeeper.admin.enableServer=false", "-Dzookeeper.forceSync=no"));
        jvm = new ChildJvm("zookeeper", workDir, options, ChildJvm.ZOOKEEPER_CLASSPATH_PROPERTY,
                "org.apache.zookeeper.server.ZooKeeperServerMain",
                List.of(String.valueOf(port), workDir.resolve("data").toString()));
        long begin = System.nanoTime();
        launch(() -> awaitServing(begin + STARTUP_TIMEOUT.toNanos()));
        LOG.log(Level.INFO, "ZooKeeper up at 127.0.0.1:{0} in {1} ms (pid {2}, log: {3})", String.valueOf(port),
                (System.nanoTime() - begin) / 1_000_000, String.valueOf(jvm.pid()), jvm.logFile());
        return this;
    }

    private void awaitServing(long deadline) {
        while (true) {
            if (!jvm.isAlive()) {
                throw jvm.failure("exited during startup");
            }
            String srvr = fourLetterWord("srvr");
            if (srvr.contains("Mode: standalone")) {
                warnIfLogsStayEmpty();
                return;
            }
            if (System.nanoTime() > deadline) {
                throw jvm.failure("did not serve on 127.0.0.1:" + port + " within " + STARTUP_TIMEOUT
                        + " (srvr: " + srvr + ")");
            }
            ChildJvm.sleep(100);
        }
    }

    /** A ZooKeeper four-letter command's answer ({@code srvr} is allowed by default), or the error in words. */
    public String fourLetterWord(String command) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write(command.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** The client port on 127.0.0.1. */
    public int port() {
        if (port < 0) {
            throw new IllegalStateException("ZooKeeper not started");
        }
        return port;
    }
}
