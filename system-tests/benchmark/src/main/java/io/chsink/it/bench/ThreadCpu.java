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

    /** CPU nanoseconds of each live thread of a worker JVM by thread id, with the kind of its name then. */
    record Threads(Map<String, Long> nanos, Map<String, String> kinds) {
    }

    /**
     * Each live thread of a worker JVM: threads come and go (compiler threads, a connector's task and insert
     * threads) and Connect's pooled task threads take the name of each task they run, so a window's CPU by kind is
     * the sum of per-thread differences, each thread counted as the kind it has at the window's end.
     */
    static Threads perThread(long pid) {
        Map<String, Long> nanos = new LinkedHashMap<>();
        Map<String, String> kinds = new LinkedHashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : tasks) {
                try {
                    String comm = Files.readString(t.resolve("comm"), StandardCharsets.ISO_8859_1).trim();
                    ProcessCpu.Sample cpu = ProcessCpu.parse(Files.readString(t.resolve("stat"), StandardCharsets.ISO_8859_1));
                    String tid = t.getFileName().toString();
                    nanos.put(tid, cpu.userNanos() + cpu.sysNanos());
                    kinds.put(tid, comm.startsWith("task-thread-") ? "task threads (poll, convert, put)" : kindOf(comm));
                } catch (IOException | RuntimeException gone) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException | UnsupportedOperationException noProc) {
            return new Threads(Map.of(), Map.of());
        }
        return new Threads(nanos, kinds);
    }

    /** The CPU each kind of thread used between two {@link #perThread} samples (threads born in between from 0). */
    static Map<String, Long> byKind(Threads before, Threads after) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String kind : new String[] {"task threads (poll, convert, put)", "insert threads", "GC", "JIT", "other"}) {
            out.put(kind, 0L);
        }
        after.nanos().forEach((tid, v) -> out.merge(after.kinds().get(tid), v - before.nanos().getOrDefault(tid, 0L),
                Long::sum));
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
