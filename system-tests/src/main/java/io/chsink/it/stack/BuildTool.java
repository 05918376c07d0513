package io.chsink.it.stack;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short external command (npm, tar, gcc) to completion, failing with its output. */
final class BuildTool {
    private BuildTool() {
    }

    /** Returns the command's stdout and stderr together. */
    static String run(List<String> command, Path dir, Duration timeout) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        } catch (IOException e) {
            throw new IOException("cannot run " + command.get(0) + " (is it installed and on the PATH?): " + e.getMessage(), e);
        }
        // Output is read on another thread so a chatty command cannot block on a full pipe while we wait.
        StringBuilder output = new StringBuilder();
        Thread reader = new Thread(() -> {
            try {
                output.append(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // the process was killed; what we have is enough
            }
        }, "build-tool-output");
        reader.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor();
            reader.join();
            throw new IOException(String.join(" ", command) + " did not finish within " + timeout + ":\n" + output);
        }
        reader.join();
        if (process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed with exit code " + process.exitValue() + ":\n" + output);
        }
        return output.toString();
    }
}
