package io.chsink.it.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * What {@link PostgresServer} and {@link MariaDbServer} do alike with their files and tools: a fresh data directory
 * on tmpfs, a tool run to its end (output to a temporary file in the work dir), and, at close, the server's log kept
 * in the work dir and the data directory deleted.
 */
final class LocalServerFiles {
    private static final System.Logger LOG = System.getLogger(LocalServerFiles.class.getName());

    private LocalServerFiles() {
    }

    /**
     * A new directory {@code <prefix>...} under the directory system property {@code rootProperty} names (default
     * {@code /dev/shm}), or under {@code workDir} when that is not a writable directory.
     */
    static Path newDataDir(String rootProperty, Path workDir, String prefix) throws IOException {
        Path root = Path.of(System.getProperty(rootProperty, "/dev/shm"));
        if (!Files.isDirectory(root) || !Files.isWritable(root)) {
            root = workDir;
        }
        return Files.createTempDirectory(root, prefix);
    }

    /**
     * Runs {@code cmd} to its end (180 s at most) with its output in a temporary file {@code <outPrefix>...} in
     * {@code workDir}; a non-zero exit fails with the output and {@code moreOnFailure}'s text.
     */
    static void run(List<String> cmd, String what, Path workDir, String outPrefix, Supplier<String> moreOnFailure) {
        try {
            Path out = Files.createTempFile(workDir, outPrefix, ".out");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(what + " did not finish within 180 s: " + cmd);
            }
            String text = Files.readString(out);
            Files.delete(out);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(what + " failed (exit " + p.exitValue() + "): " + cmd + "\n" + text
                        + moreOnFailure.get());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(what + ": cannot run " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + " interrupted", e);
        }
    }

    /** Copies {@code dir/logName} (if there) to {@code workDir/logName}, then deletes {@code dir} and all in it. */
    static void keepLogAndDelete(Path dir, String logName, Path workDir) {
        try {
            Path log = dir.resolve(logName);
            if (Files.exists(log)) {
                Files.copy(log, workDir.resolve(logName), StandardCopyOption.REPLACE_EXISTING);
            }
            try (Stream<Path> all = Files.walk(dir)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not delete {0}: {1}", dir, e.getMessage());
        }
    }
}
