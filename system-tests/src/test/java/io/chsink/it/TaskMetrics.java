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
 * Metrics of a connector's tasks, read from the worker JVM through the attach API and its local JMX agent:
 * Connect's {@code sink-record-read-total} and the connector's own MBeans ({@code io.chsink.connect:*}).
 */
final class TaskMetrics implements AutoCloseable {
    private final JMXConnector jmx;
    private final MBeanServerConnection server;
    private final ObjectName pattern;
    private final String connector;

    private TaskMetrics(JMXConnector jmx, ObjectName pattern, String connector) throws IOException {
        this.jmx = jmx;
        this.server = jmx.getMBeanServerConnection();
        this.pattern = pattern;
        this.connector = connector;
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
                new ObjectName("kafka.connect:type=sink-task-metrics,connector=" + connector + ",*"), connector);
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

    /** The sum over the connector's tasks of an attribute of the connector's task MBeans. */
    long sinkTask(String attribute) {
        return sum("io.chsink.connect:type=sink-task-metrics,connector=" + ObjectName.quote(connector) + ",*", attribute);
    }

    /** The sum over the connector's tasks of an attribute of a table's MBeans ({@code table} as db.table). */
    long sinkTable(String table, String attribute) {
        return sum("io.chsink.connect:type=sink-table-metrics,connector=" + ObjectName.quote(connector) + ",table="
                + ObjectName.quote(table) + ",*", attribute);
    }

    /** The number of MBeans matching a pattern. */
    int beans(String pattern) {
        try {
            return server.queryNames(new ObjectName(pattern), null).size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The number of the connector's task MBeans registered. */
    int sinkTaskBeans() {
        try {
            return server.queryNames(new ObjectName("io.chsink.connect:type=sink-task-metrics,connector="
                    + ObjectName.quote(connector) + ",*"), null).size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** One attribute of every task MBean (not table MBean) of the connector, by object name (for messages). */
    String describe(String attribute) {
        try {
            StringBuilder sb = new StringBuilder();
            for (ObjectName n : server.queryNames(new ObjectName("io.chsink.connect:type=sink-task-metrics,connector="
                    + ObjectName.quote(connector) + ",*"), null)) {
                sb.append(n).append(' ').append(attribute).append('=').append(server.getAttribute(n, attribute)).append('\n');
            }
            return sb.toString();
        } catch (Exception e) {
            return e.toString();
        }
    }

    private long sum(String name, String attribute) {
        try {
            long total = 0;
            for (ObjectName n : server.queryNames(new ObjectName(name), null)) {
                total += ((Number) server.getAttribute(n, attribute)).longValue();
            }
            return total;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + attribute + " of " + name + ": " + e, e);
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
