package io.chsink.it.stack;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * libchdb.so, a whole ClickHouse server in one shared library, taken from the npm package
 * {@value #NPM_PACKAGE} and cached at {@code <cache>/chdb/<version>/libchdb.so} (see {@link StackCache}).
 */
public final class ChdbLibrary {
    public static final String NPM_PACKAGE = "@chdb/lib-linux-x64-gnu";
    /** The release the tests run unless {@value #VERSION_PROPERTY} names another (npm serves 26.5.x and 26.7.x). */
    public static final String DEFAULT_VERSION = "26.7.3-stable.1";
    /** A system property naming another release of {@value #NPM_PACKAGE}, e.g. {@code 26.5.3}. */
    public static final String VERSION_PROPERTY = "chsink.chdb.version";
    public static final String VERSION = System.getProperty(VERSION_PROPERTY, "").isBlank() ? DEFAULT_VERSION
            : System.getProperty(VERSION_PROPERTY).trim();
    private static final System.Logger LOG = System.getLogger(ChdbLibrary.class.getName());

    private ChdbLibrary() {
    }

    /** The cached library, fetched with {@code npm pack} and unpacked with {@code tar} on first use (~180 MB download). */
    public static Path ensure() {
        return StackCache.ensure("chdb/" + VERSION + "/libchdb.so", (target, scratch) -> {
            String spec = NPM_PACKAGE + "@" + VERSION;
            long begin = System.nanoTime();
            LOG.log(Level.INFO, "Fetching {0} with npm pack (~180 MB, once per cache: {1})", spec, StackCache.root());
            BuildTool.run(List.of("npm", "pack", spec, "--pack-destination", scratch.toString()), scratch, Duration.ofMinutes(30));
            Path tgz;
            try (Stream<Path> files = Files.list(scratch)) {
                tgz = files.filter(p -> p.getFileName().toString().endsWith(".tgz")).findFirst()
                        .orElseThrow(() -> new IOException("npm pack " + spec + " left no .tgz in " + scratch));
            }
            BuildTool.run(List.of("tar", "-xzf", tgz.toString(), "package/libchdb.so"), scratch, Duration.ofMinutes(10));
            Files.move(scratch.resolve("package/libchdb.so"), target);
            LOG.log(Level.INFO, "Fetched libchdb.so in {0} ms", (System.nanoTime() - begin) / 1_000_000);
        });
    }
}
