package io.chsink.it.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

/**
 * The {@code chlaunch} executable: {@code src/main/c/chlaunch.c} compiled with gcc against {@link ChdbLibrary}.
 * It is cached next to the library under a name holding a hash of the source, so an edited source is recompiled.
 * The rpath points at the library's directory, so no {@code LD_LIBRARY_PATH} is needed.
 */
public final class ChLauncher {
    /** System property naming the C source file, when it is neither on the classpath nor under the working dir. */
    public static final String SOURCE_PROPERTY = "chsink.chlaunch.source";
    private static final String SOURCE = "src/main/c/chlaunch.c";

    private ChLauncher() {
    }

    public static Path ensure() {
        Path library = ChdbLibrary.ensure();
        String source = readSource();
        String name = "chdb/" + ChdbLibrary.VERSION + "/chlaunch-" + sha256(source).substring(0, 12);
        return StackCache.ensure(name, (target, scratch) -> {
            Path c = scratch.resolve("chlaunch.c");
            Files.writeString(c, source);
            Path libDir = library.getParent();
            BuildTool.run(List.of("gcc", "-O2", "-Wall", "-pthread", "-o", target.toString(), c.toString(),
                    "-L" + libDir, "-lchdb", "-Wl,-rpath," + libDir), scratch, Duration.ofMinutes(2));
        });
    }

    private static String readSource() {
        try (InputStream in = ChLauncher.class.getResourceAsStream("/chlaunch.c")) {
            if (in != null) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            String property = System.getProperty(SOURCE_PROPERTY);
            if (property != null) {
                return Files.readString(Path.of(property));
            }
            for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
                for (Path candidate : List.of(dir.resolve(SOURCE), dir.resolve("system-tests").resolve(SOURCE))) {
                    if (Files.isRegularFile(candidate)) {
                        return Files.readString(candidate);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the chlaunch C source", e);
        }
        throw new IllegalStateException("chlaunch.c not found: not on the classpath, " + SOURCE_PROPERTY
                + " not set, and no system-tests/" + SOURCE + " above " + Path.of("").toAbsolutePath());
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
