package io.chsink.it.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The npm dependencies of a small Node project of the tests (a directory with {@code package.json} and
 * {@code package-lock.json}), installed with {@code npm ci} once per lock file into the {@link StackCache}
 * ({@code <cache>/npm/<project>-<hash of package.json and package-lock.json>/node_modules}), and {@code node} to run
 * its scripts with them.
 */
public final class NodePackages {
    private static final System.Logger LOG = System.getLogger(NodePackages.class.getName());

    private NodePackages() {
    }

    /** The cached directory whose {@code node_modules} holds the project's locked dependencies, installed first if absent. */
    public static Path ensure(Path project) {
        byte[] manifest;
        byte[] lock;
        try {
            manifest = Files.readAllBytes(project.resolve("package.json"));
            lock = Files.readAllBytes(project.resolve("package-lock.json"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the npm project " + project, e);
        }
        String name = project.getFileName() + "-" + sha256(manifest, lock).substring(0, 16);
        return StackCache.ensure("npm/" + name, (target, scratch) -> {
            long begin = System.nanoTime();
            LOG.log(Level.INFO, "Installing the npm dependencies of {0} with npm ci (once per cache: {1})", project,
                    StackCache.root());
            Files.createDirectories(target);
            Files.write(target.resolve("package.json"), manifest);
            Files.write(target.resolve("package-lock.json"), lock);
            // --ignore-scripts: nothing of the dependencies runs at install time
            BuildTool.run(List.of("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"), target, Duration.ofMinutes(15));
            LOG.log(Level.INFO, "Installed them in {0} ms", (System.nanoTime() - begin) / 1_000_000);
        });
    }

    /** Runs {@code node script args...} in the script's directory; its output (stdout and stderr). */
    public static String node(Path script, List<String> args, Duration timeout) {
        List<String> command = new ArrayList<>();
        command.add("node");
        command.add(script.toString());
        command.addAll(args);
        try {
            return BuildTool.run(command, script.getParent(), timeout);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + script, e);
        }
    }

    private static String sha256(byte[]... parts) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (byte[] part : parts) {
                digest.update(part);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
