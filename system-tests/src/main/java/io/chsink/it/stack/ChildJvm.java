package io.chsink.it.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One child JVM running a main class on a classpath Maven wrote (by default the Kafka-only one; ZooKeeper has its
 * own), with its files in a work dir:
 * {@code <name>.log} (log4j2, INFO), {@code <name>.out} (stdout and stderr) and {@code <name>-log4j2.properties}.
 * Logs are appended across restarts and kept after the process ends. Child processes still alive when the
 * test JVM exits are killed by a shutdown hook.
 */
final class ChildJvm {
    /** System property naming the file that holds the Kafka-only runtime classpath (written by Maven). */
    static final String CLASSPATH_PROPERTY = "chsink.kafka.classpath";
    /** System property naming the file that holds the ZooKeeper runtime classpath (written by Maven). */
    static final String ZOOKEEPER_CLASSPATH_PROPERTY = "chsink.zookeeper.classpath";
    private static final String MARKER = ".chsink-stack";
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "chsink-stack-reaper"));
    }

    private final String name;
    private final Path workDir;
    private final List<String> command;
    private Process process;

    ChildJvm(String name, Path workDir, List<String> jvmOptions, String mainClass, List<String> args) {
        this(name, workDir, jvmOptions, CLASSPATH_PROPERTY, mainClass, args);
    }

    /** @param classpathProperty the system property naming the classpath file, e.g. {@link #ZOOKEEPER_CLASSPATH_PROPERTY} */
    ChildJvm(String name, Path workDir, List<String> jvmOptions, String classpathProperty, String mainClass,
            List<String> args) {
        this.name = name;
        this.workDir = workDir;
        command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-Djava.awt.headless=true");
        command.add("-Dlog4j2.configurationFile=" + workDir.resolve(name + "-log4j2.properties"));
        command.add("-cp");
        command.add(classpath(classpathProperty));
        command.add(mainClass);
        command.addAll(args);
    }

    /** Runs a short-lived tool to completion; fails with its output if it exits non-zero or times out. */
    static void run(String name, Path workDir, String mainClass, List<String> args, Duration timeout) {
        ChildJvm tool = new ChildJvm(name, workDir, List.of("-Xmx256m"), mainClass, args);
        tool.start();
        try {
            if (!tool.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                tool.kill();
                throw tool.failure("did not finish within " + timeout);
            }
            int exit = tool.process.exitValue();
            LIVE.remove(tool.process);
            if (exit != 0) {
                throw tool.failure("failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            tool.kill();
            throw new IllegalStateException("interrupted while running " + name, e);
        }
    }

    /** Launches the process (again, after it ended), writing its log4j2 config first. */
    void start() {
        if (isAlive()) {
            throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
        }
        try {
            Files.createDirectories(workDir);
            Files.writeString(workDir.resolve(name + "-log4j2.properties"), log4j2Config(logFile()));
            Path out = workDir.resolve(name + ".out");
            process = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
                    .start();
            LIVE.add(process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + " in " + workDir, e);
        }
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** SIGKILL (what {@link Process#destroyForcibly()} sends on Linux); returns the exit code, 137 on Linux. */
    int kill() {
        return terminate(true, Duration.ofSeconds(30));
    }

    /** SIGTERM, so the JVM's shutdown hooks run a clean shutdown; SIGKILL if it is not gone within the grace period. */
    int stop(Duration grace) {
        return terminate(false, grace);
    }

    private int terminate(boolean force, Duration grace) {
        if (process == null) {
            throw new IllegalStateException(name + " was never started");
        }
        try {
            if (force) {
                process.destroyForcibly();
            } else {
                process.destroy();
            }
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("interrupted while stopping " + name, e);
        } finally {
            LIVE.remove(process);
        }
    }

    Path logFile() {
        return workDir.resolve(name + ".log");
    }

    /** An exception for a failed startup, quoting the child's recent warnings and errors and the tails of its outputs. */
    IllegalStateException failure(String what) {
        String exit = process != null && !process.isAlive() ? " (exit code " + process.exitValue() + ")" : "";
        Path out = workDir.resolve(name + ".out");
        List<String> problems = lines(logFile()).stream().filter(l -> l.contains("] WARN ") || l.contains("] ERROR ")).toList();
        return new IllegalStateException(name + " " + what + exit
                + "\n--- last WARN/ERROR lines of " + logFile() + " ---\n" + tail(problems, 10)
                + "\n--- tail of " + logFile() + " ---\n" + tail(lines(logFile()), 25)
                + "\n--- tail of " + out + " (stdout/stderr) ---\n" + tail(lines(out), 25));
    }

    /** True when the child printed that SLF4J has no provider: Kafka's logging then goes nowhere. */
    boolean lacksSlf4jProvider() {
        return lines(workDir.resolve(name + ".out")).stream().anyMatch(l -> l.contains("No SLF4J providers were found"));
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        } catch (IOException | UncheckedIOException e) {
            return List.of("(unreadable: " + e + ")");
        }
    }

    private static String tail(List<String> lines, int count) {
        return lines.isEmpty() ? "(none)" : String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
    }

    private static String log4j2Config(Path logFile) {
        return String.join("\n",
                "status = warn",
                "shutdownHook = disable",
                "appender.file.type = File",
                "appender.file.name = file",
                "appender.file.append = true",
                "appender.file.fileName = " + logFile.toString().replace("\\", "/"),
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = [%d{ISO8601}] %p %X{connector.context}%m (%c{1.})%n",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.file.ref = file",
                "logger.request.name = kafka.request.logger",
                "logger.request.level = WARN",
                "");
    }

    private static String classpath(String property) {
        String file = System.getProperty(property);
        if (file == null) {
            throw new IllegalStateException("System property " + property + " is not set: it names the file"
                    + " with the child JVM's classpath that Maven writes (mvn -pl system-tests generate-resources)");
        }
        try {
            return Files.readString(Path.of(file)).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the classpath file " + file
                    + " (" + property + "); run mvn -pl system-tests generate-resources", e);
        }
    }

    /**
     * Empties a work dir for a fresh start, refusing to delete a non-empty directory this class did not create,
     * so a mistyped path cannot wipe unrelated files.
     */
    static void resetWorkDir(Path dir) {
        try {
            if (Files.isDirectory(dir)) {
                boolean empty;
                try (Stream<Path> entries = Files.list(dir)) {
                    empty = entries.findAny().isEmpty();
                }
                if (!empty && !Files.exists(dir.resolve(MARKER))) {
                    throw new IllegalStateException("Refusing to wipe " + dir + ": it is not empty and has no "
                            + MARKER + " marker (not a stack work dir)");
                }
                try (Stream<Path> all = Files.walk(dir)) {
                    for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
            Files.createDirectories(dir);
            Files.createFile(dir.resolve(MARKER));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reset work dir " + dir, e);
        }
    }

    /** JVM options from a system property (space separated), or the default. */
    static List<String> jvmOptions(String property, String defaults) {
        String value = System.getProperty(property, defaults).trim();
        return value.isEmpty() ? List.of() : List.of(value.split("\\s+"));
    }

    /** Writes a properties file sorted by key, escaping only what {@link Properties#load} needs, to stay readable. */
    static void writeProperties(Path file, Map<String, String> values) {
        StringBuilder text = new StringBuilder("# generated by " + ChildJvm.class.getName() + "\n");
        new TreeMap<>(values).forEach((k, v) -> text.append(k).append('=')
                .append(v.replace("\\", "\\\\").replace("\n", "\\n")).append('\n'));
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
