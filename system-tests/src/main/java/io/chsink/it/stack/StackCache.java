package io.chsink.it.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A cache of expensive files shared by all builds on the machine ({@code $CHSINK_CACHE}, else {@code ~/.cache/chsink}).
 * An entry is built once: under an exclusive file lock (safe across JVMs), into a scratch dir, then moved into place
 * atomically, so readers never see a half-written entry. (The method is synchronized too: a JVM cannot hold two
 * locks on one file.)
 */
public final class StackCache {
    /** Builds an entry: writes the file {@code target} (scratch dir {@code scratch} may be used for anything else). */
    @FunctionalInterface
    public interface Producer {
        void produce(Path target, Path scratch) throws IOException, InterruptedException;
    }

    private StackCache() {
    }

    public static Path root() {
        String env = System.getenv("CHSINK_CACHE");
        return env != null && !env.isBlank() ? Path.of(env) : Path.of(System.getProperty("user.home"), ".cache", "chsink");
    }

    /** The cached file at {@code relative} under {@link #root()}, produced first if absent. */
    public static synchronized Path ensure(String relative, Producer producer) {
        Path entry = root().resolve(relative);
        if (Files.exists(entry)) {
            return entry;
        }
        try {
            Files.createDirectories(entry.getParent());
            Path lockFile = entry.resolveSibling(entry.getFileName() + ".lock");
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = channel.lock()) {
                if (Files.exists(entry)) {
                    return entry; // another process built it while we waited
                }
                Path scratch = Files.createTempDirectory(entry.getParent(), entry.getFileName() + ".tmp-");
                try {
                    Path staged = scratch.resolve("entry");
                    producer.produce(staged, scratch);
                    if (!Files.exists(staged)) {
                        throw new IllegalStateException("building cache entry " + entry + " produced no file");
                    }
                    Files.move(staged, entry, StandardCopyOption.ATOMIC_MOVE);
                } finally {
                    deleteTree(scratch);
                }
            }
            return entry;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build cache entry " + entry, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building cache entry " + entry, e);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
