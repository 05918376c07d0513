package io.chsink.it.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU seconds (user + system, all threads) of a local process found by a piece of its command line, from
 * {@code /proc/PID/stat}: unlike wall time, it barely moves when other processes compete for the cores. -1 when
 * unknown (not Linux, or no such process).
 */
final class ProcessCpu {
    private static final double SECONDS_PER_TICK = 0.01; // USER_HZ = 100 on Linux

    private final Path stat;

    private ProcessCpu(Path stat) {
        this.stat = stat;
    }

    /** The process whose NUL-separated command line contains {@code needle}. */
    static ProcessCpu find(String needle) {
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path proc : procs) {
                try {
                    String cmdline = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.ISO_8859_1);
                    if (cmdline.contains(needle)) {
                        return new ProcessCpu(proc.resolve("stat"));
                    }
                } catch (IOException gone) {
                    // ended while we looked
                }
            }
        } catch (IOException | UnsupportedOperationException noProc) {
            // not Linux
        }
        return new ProcessCpu(null);
    }

    double seconds() {
        if (stat == null) {
            return -1;
        }
        try {
            String s = Files.readString(stat, StandardCharsets.ISO_8859_1);
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * SECONDS_PER_TICK;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
