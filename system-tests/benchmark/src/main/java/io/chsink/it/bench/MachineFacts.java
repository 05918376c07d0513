package io.chsink.it.bench;

import io.chsink.it.stack.ClickHouseServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The facts of the machine a benchmark ran on, for its report: cores, CPU, memory, Java, ClickHouse and its data. */
final class MachineFacts {
    private MachineFacts() {
    }

    static Map<String, Object> describe(ClickHouseServer server) {
        Map<String, Object> m = new LinkedHashMap<>();
        Runtime rt = Runtime.getRuntime();
        m.put("cores", rt.availableProcessors());
        m.put("cpu", procField("/proc/cpuinfo", "model name"));
        String memKb = procField("/proc/meminfo", "MemTotal").replace("kB", "").trim();
        m.put("memory", memKb.matches("\\d+")
                ? String.format(Locale.ROOT, "%.1f GiB", Long.parseLong(memKb) / 1048576.0) : memKb);
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + ", max heap " + rt.maxMemory() / (1024 * 1024) + " MiB");
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("clickhouse", server.version() + (server.dataDir() != null
                ? " (embedded: clickhouse-local from libchdb, HTTP on " + server.url() + ")" : " (external, " + server.url() + ")"));
        Path data = server.dataDir();
        if (data != null) {
            String fs;
            try {
                fs = Files.getFileStore(data).type();
            } catch (IOException e) {
                fs = "?";
            }
            m.put("clickhouseData", data + " (" + fs + (fs.equals("tmpfs") ? ": in RAM, no disk I/O)" : ")"));
        }
        return m;
    }

    /**
     * The commit the run was built from ({@code git rev-parse --short HEAD} in the working directory), with
     * "+changes" when the work tree differs from it; "?" outside a git work tree.
     */
    static String commit() {
        String head = git("rev-parse", "--short", "HEAD");
        if (head.isEmpty()) {
            return "?";
        }
        return git("status", "--porcelain", "--untracked-files=no").isEmpty() ? head : head + "+changes";
    }

    private static String git(String... args) {
        List<String> cmd = new java.util.ArrayList<>(List.of("git"));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
            return p.waitFor() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static String procField(String file, String field) {
        try {
            return Files.readAllLines(Path.of(file)).stream().filter(l -> l.startsWith(field))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }
}
