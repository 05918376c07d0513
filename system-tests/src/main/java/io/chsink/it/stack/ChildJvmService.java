package io.chsink.it.stack;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A stack service that runs as a child JVM started here, or an external one that is only talked to: the
 * lifecycle calls the broker and the worker share.
 */
abstract class ChildJvmService implements AutoCloseable {
    private final boolean external;
    /** The running (or last) child JVM; null before the first start and for external services. */
    protected ChildJvm jvm;

    protected ChildJvmService(boolean external) {
        this.external = external;
    }

    /** Launches the child JVM and runs {@code awaitReady}; kills the child if that throws, and rethrows. */
    protected void launch(Runnable awaitReady) {
        jvm.start();
        try {
            awaitReady.run();
        } catch (RuntimeException e) {
            jvm.kill();
            throw e;
        }
    }

    /** For messages: "Kafka cluster host:port", "Connect worker http://...". */
    protected abstract String describe();

    /** Clean shutdown (SIGTERM, SIGKILL after 60 s); returns the exit code. */
    public int stop() {
        requireStarted();
        return jvm.stop(Duration.ofSeconds(60));
    }

    /** SIGKILL, no shutdown at all; returns the exit code (137). */
    public int kill() {
        requireStarted();
        return jvm.kill();
    }

    /** The process id of the running (or last) child JVM; -1 for an external service or before the first start. */
    public long pid() {
        return jvm == null ? -1 : jvm.pid();
    }

    public boolean isRunning() {
        return jvm != null && jvm.isAlive();
    }

    /** The child's log4j2 log file (kept after stop, appended to on restart). */
    public Path logFile() {
        requireStarted();
        return jvm.logFile();
    }

    /** Stops the child if it runs; an external service is left alone. */
    @Override
    public void close() {
        if (isRunning()) {
            stop();
        }
    }

    /** Kafka logs through SLF4J: without a provider on the child's classpath its log file stays empty. */
    protected void warnIfLogsStayEmpty() {
        if (jvm.lacksSlf4jProvider()) {
            System.getLogger(getClass().getName()).log(System.Logger.Level.WARNING, "The " + describe()
                    + " has no SLF4J provider on its classpath, so " + jvm.logFile() + " stays empty: add "
                    + "org.apache.logging.log4j:log4j-slf4j2-impl (runtime) to system-tests/pom.xml");
        }
    }

    protected void requireManaged() {
        if (external) {
            throw new UnsupportedOperationException("external " + describe() + " is not managed here");
        }
    }

    protected void requireStarted() {
        requireManaged();
        if (jvm == null) {
            throw new IllegalStateException(describe() + " not started");
        }
    }
}
