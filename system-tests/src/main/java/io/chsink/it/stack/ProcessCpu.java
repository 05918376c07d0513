package io.chsink.it.stack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CPU time (user + system, all threads) of one process of the stack, read from {@code /proc/PID/stat}: the embedded
 * ClickHouse (the process whose command line holds {@code --http_port PORT}), a Connect worker or broker (by pid), or
 * this JVM. Unlike wall time, CPU time barely moves when other processes compete for the cores. Resolution is one
 * clock tick (10 ms); unknown (-1) off Linux or when there is no such process. Used by the demo and the benchmark.
 */
public final class ProcessCpu {
    private static final long NANOS_PER_TICK = 10_000_000L; // USER_HZ = 100 on Linux

    private final Path stat;

    private ProcessCpu(Path stat) {
        this.stat = stat;
    }

    /** The process with that id (unknown when there is no /proc or no such process, e.g. pid -1). */
    public static ProcessCpu ofPid(long pid) {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        return new ProcessCpu(pid > 0 && Files.isReadable(stat) ? stat : null);
    }

    /** This JVM. */
    public static ProcessCpu self() {
        return ofPid(ProcessHandle.current().pid());
    }

    /** The local ClickHouse server listening for HTTP on {@code httpPort} (unknown for a server on another host). */
    public static ProcessCpu ofClickHouse(int httpPort) {
        return find("--http_port\0" + httpPort + "\0");
    }

    /** The first process whose NUL-separated command line contains {@code needle}. */
    public static ProcessCpu find(String needle) {
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path proc : procs) {
                try {
                    String cmdline = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.ISO_8859_1);
                    if (cmdline.contains(needle)) {
                        return new ProcessCpu(proc.resolve("stat"));
                    }
                } catch (IOException gone) {
                    // the process ended while we looked
                }
            }
        } catch (IOException | UnsupportedOperationException noProc) {
            // not Linux
        }
        return new ProcessCpu(null);
    }

    /** CPU time in user and in system (kernel: page faults, socket reads) mode; both -1 when unknown. */
    public record Sample(long userNanos, long sysNanos) {
        public boolean known() {
            return userNanos >= 0;
        }

        /** User plus system seconds; NaN when unknown. */
        public double seconds() {
            return known() ? (userNanos + sysNanos) / 1e9 : Double.NaN;
        }

        /** The CPU time from {@code before} to this sample; unknown if either is. */
        public Sample minus(Sample before) {
            return known() && before.known() ? new Sample(userNanos - before.userNanos, sysNanos - before.sysNanos)
                    : new Sample(-1, -1);
        }
    }

    /** The process's CPU time so far. */
    public Sample sample() {
        if (stat == null) {
            return new Sample(-1, -1);
        }
        try {
            return parse(Files.readString(stat, StandardCharsets.ISO_8859_1));
        } catch (IOException | RuntimeException e) {
            return new Sample(-1, -1);
        }
    }

    /** User and system time from the text of a {@code /proc/.../stat} file (of a process or of one thread). */
    public static Sample parse(String stat) {
        // Fields after "(comm)": state is field 3, utime field 14, stime field 15.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new Sample(Long.parseLong(f[11]) * NANOS_PER_TICK, Long.parseLong(f[12]) * NANOS_PER_TICK);
    }

    /**
     * CPU time of each of the process's live threads so far, by thread id: its name (from
     * {@code /proc/PID/task/TID/stat}, cut at 15 characters by Linux) and user + system nanoseconds. A pool thread
     * keeps its id when it is renamed (Connect names a task's thread after the task), so compare samples by id. Empty
     * when unknown.
     */
    public java.util.Map<Long, java.util.Map.Entry<String, Long>> threads() {
        java.util.Map<Long, java.util.Map.Entry<String, Long>> out = new java.util.HashMap<>();
        if (stat == null) {
            return out;
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(stat.getParent().resolve("task"))) {
            for (Path t : tasks) {
                try {
                    String text = Files.readString(t.resolve("stat"), StandardCharsets.ISO_8859_1);
                    String name = text.substring(text.indexOf('(') + 1, text.lastIndexOf(')'));
                    Sample x = parse(text);
                    out.put(Long.parseLong(t.getFileName().toString()),
                            java.util.Map.entry(name, x.userNanos() + x.sysNanos()));
                } catch (IOException | RuntimeException gone) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException | RuntimeException e) {
            return new java.util.HashMap<>();
        }
        return out;
    }

    /**
     * CPU seconds of the threads of JVM {@code pid} whose names contain {@code nameFragment}, from {@code jcmd PID
     * Thread.print} (its {@code cpu=...ms} per thread; /proc names are cut at 15 characters). Counts live threads
     * only; NaN when jcmd is missing or fails.
     */
    public static double jvmThreadSeconds(long pid, String nameFragment) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print").redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                return Double.NaN;
            }
            double ms = 0;
            Matcher m = THREAD_LINE.matcher(out);
            while (m.find()) {
                if (m.group(1).contains(nameFragment)) {
                    ms += Double.parseDouble(m.group(2));
                }
            }
            return ms / 1000;
        } catch (IOException e) {
            return Double.NaN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Double.NaN;
        }
    }

    private static final Pattern THREAD_LINE = Pattern.compile("(?m)^\"(.*)\" .*? cpu=([0-9.]+)ms ");

    /** Where the figures come from: the process's /proc directory, or "not found". */
    public String describe() {
        return stat == null ? "not found" : stat.getParent().toString();
    }
}
