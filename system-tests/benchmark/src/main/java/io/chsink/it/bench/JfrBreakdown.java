package io.chsink.it.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a worker's CPU went, from the Java execution samples of a JFR recording: each sample is charged to the
 * innermost frame that belongs to a known component (so JDK code such as String or HashMap counts for whoever
 * called it): Kafka's consumer, the JsonConverter (Jackson and connect-json), the Connect runtime, this connector,
 * client-v2 with its HTTP client and LZ4, or, with none of those on the stack, "other". Also the top methods
 * (the sampled frame itself) of the connector's threads. GC and JIT threads are not sampled: the worker's CPU
 * seconds from /proc include them, the samples do not.
 */
final class JfrBreakdown {
    static final List<String[]> COMPONENTS = List.of(
            new String[] {"JsonConverter (Jackson, connect-json)", "com.fasterxml.jackson.", "org.apache.kafka.connect.json."},
            new String[] {"connector (io.chsink)", "io.chsink."},
            new String[] {"client-v2, HTTP, LZ4", "com.clickhouse.", "org.apache.hc.", "net.jpountz."},
            new String[] {"Connect runtime", "org.apache.kafka.connect."},
            new String[] {"Kafka consumer (fetch, decompress, records)", "org.apache.kafka.clients.",
                    "org.apache.kafka.common."});

    final long samples;
    final Map<String, Long> byComponent;
    final Map<String, Long> byThread;
    final Map<String, Long> topConnectorFrames;
    final Path file;

    private JfrBreakdown(Path file, long samples, Map<String, Long> byComponent, Map<String, Long> byThread,
            Map<String, Long> topConnectorFrames) {
        this.file = file;
        this.samples = samples;
        this.byComponent = byComponent;
        this.byThread = byThread;
        this.topConnectorFrames = topConnectorFrames;
    }

    static JfrBreakdown of(Path file) throws IOException {
        Map<String, Long> components = new LinkedHashMap<>();
        for (String[] c : COMPONENTS) {
            components.put(c[0], 0L);
        }
        components.put("other (JDK, logging, ...)", 0L);
        Map<String, Long> threads = new LinkedHashMap<>();
        Map<String, Long> frames = new LinkedHashMap<>();
        long n = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
                continue;
            }
            RecordedStackTrace st = e.getStackTrace();
            if (st == null) {
                continue;
            }
            n++;
            components.merge(component(st.getFrames()), 1L, Long::sum);
            String thread = threadGroup(e.getThread("sampledThread") == null ? null
                    : e.getThread("sampledThread").getJavaName(), st.getFrames());
            threads.merge(thread, 1L, Long::sum);
            if (!st.getFrames().isEmpty() && (thread.startsWith("task") || thread.startsWith("chsink-insert"))) {
                RecordedFrame top = st.getFrames().get(0);
                frames.merge(top.getMethod().getType().getName() + "." + top.getMethod().getName(), 1L, Long::sum);
            }
        }
        return new JfrBreakdown(file, n, components, sortDesc(threads, 8), sortDesc(frames, 12));
    }

    private static String component(List<RecordedFrame> frames) {
        for (RecordedFrame f : frames) {
            String type = f.getMethod().getType().getName();
            for (String[] c : COMPONENTS) {
                for (int i = 1; i < c.length; i++) {
                    if (type.startsWith(c[i])) {
                        return c[0];
                    }
                }
            }
        }
        return "other (JDK, logging, ...)";
    }

    /**
     * Thread names without their numbers ("pool-2-thread-1" and "-3" count together); a sink task's thread (Connect
     * names it after its executor) is told by WorkerSinkTask on its stack.
     */
    private static String threadGroup(String name, List<RecordedFrame> frames) {
        for (int i = frames.size() - 1; i >= 0; i--) {
            if (frames.get(i).getMethod().getType().getName().startsWith("org.apache.kafka.connect.runtime.WorkerSinkTask")) {
                return "task threads (poll, convert, put)";
            }
        }
        if (name == null) {
            return "?";
        }
        if (name.startsWith("chsink-insert-")) {
            return "chsink-insert threads (Native writeTo, LZ4, HTTP)";
        }
        return name.replaceAll("[-_ ]?\\d+$", "");
    }

    private static Map<String, Long> sortDesc(Map<String, Long> m, int limit) {
        Map<String, Long> out = new LinkedHashMap<>();
        m.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(limit)
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("file", file.toString());
        m.put("executionSamples", samples);
        m.put("byComponent", byComponent);
        m.put("byThread", byThread);
        m.put("topFramesOfConnectorThreads", topConnectorFrames);
        return m;
    }
}
