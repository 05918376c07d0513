package io.chsink.it;

import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The sink tasks' {@code sink-record-read-total} (Connect's metric of records handed to put()), read from the
 * worker JVM through the attach API and its local JMX agent.
 */
final class TaskMetrics implements AutoCloseable {
    private final JMXConnector jmx;
    private final MBeanServerConnection server;
    private final ObjectName pattern;

    private TaskMetrics(JMXConnector jmx, ObjectName pattern) throws IOException {
        this.jmx = jmx;
        this.server = jmx.getMBeanServerConnection();
        this.pattern = pattern;
    }

    /** Attaches to the stack's worker JVM: the child JVM whose log4j2 config lies in {@code workerDir}. */
    static TaskMetrics attach(Path workerDir, String connector, int tasks) throws Exception {
        String marker = "-Dlog4j2.configurationFile=" + workerDir.resolve("worker-log4j2.properties");
        ProcessHandle worker = ProcessHandle.current().children()
                .filter(ph -> commandLine(ph).contains(marker))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no child JVM with " + marker));
        VirtualMachine vm = VirtualMachine.attach(String.valueOf(worker.pid()));
        String address;
        try {
            address = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        TaskMetrics m = new TaskMetrics(JMXConnectorFactory.connect(new JMXServiceURL(address)),
                new ObjectName("kafka.connect:type=sink-task-metrics,connector=" + connector + ",*"));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (m.server.queryNames(m.pattern, null).size() < tasks) {
            if (System.nanoTime() > deadline) {
                m.close();
                throw new IllegalStateException("the worker has no sink-task-metrics MBeans for the " + tasks
                        + " tasks of " + connector + ": " + m.server.queryNames(new ObjectName("kafka.connect:*"), null));
            }
            Thread.sleep(200);
        }
        return m;
    }

    /** The process's arguments from /proc (ProcessHandle.Info truncates long command lines). */
    private static List<String> commandLine(ProcessHandle process) {
        try {
            return List.of(new String(Files.readAllBytes(Path.of("/proc", String.valueOf(process.pid()), "cmdline")),
                    StandardCharsets.UTF_8).split("\0"));
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** The sum over the connector's tasks. */
    long recordsRead() {
        try {
            long total = 0;
            for (ObjectName n : server.queryNames(pattern, null)) {
                total += ((Number) server.getAttribute(n, "sink-record-read-total")).longValue();
            }
            return total;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read sink-record-read-total: " + e, e);
        }
    }

    @Override
    public void close() {
        try {
            jmx.close();
        } catch (IOException e) {
            // the worker may be gone
        }
    }
}
