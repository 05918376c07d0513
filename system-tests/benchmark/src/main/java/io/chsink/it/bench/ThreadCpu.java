package io.chsink.it.bench;

import io.chsink.it.stack.ProcessCpu;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU time of this JVM's threads by kind (the task's put() thread, insert threads, GC, JIT, other), from
 * {@code /proc/self/task/TID/stat}: where a client path's CPU seconds went. Empty off Linux.
 */
final class ThreadCpu {
    private ThreadCpu() {
    }

    /** CPU nanoseconds per kind of thread so far. */
    static Map<String, Long> sample() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String kind : new String[] {"main (put, harness)", "insert threads", "GC", "JIT", "other"}) {
            out.put(kind, 0L);
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                try {
                    String comm = Files.readString(t.resolve("comm"), StandardCharsets.ISO_8859_1).trim();
                    ProcessCpu.Sample cpu = ProcessCpu.parse(Files.readString(t.resolve("stat"), StandardCharsets.ISO_8859_1));
                    out.merge(kindOf(comm), cpu.userNanos() + cpu.sysNanos(), Long::sum);
                } catch (IOException | RuntimeException gone) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException | UnsupportedOperationException noProc) {
            return Map.of();
        }
        return out;
    }

    /** {@code after - before} per kind. */
    static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> out = new LinkedHashMap<>();
        after.forEach((k, v) -> out.put(k, v - before.getOrDefault(k, 0L)));
        return out;
    }

    private static String kindOf(String comm) {
        if (comm.equals("main") || comm.equals("java")) {
            return "main (put, harness)";
        }
        if (comm.startsWith("chsink-insert")) {
            return "insert threads";
        }
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.startsWith("VM Thread")) {
            return "GC";
        }
        if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
            return "JIT";
        }
        return "other";
    }
}
