package io.chsink.it;

import static org.junit.jupiter.api.Assertions.fail;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

enum Kind { PAUSE, RESUME, INSERTED, RETRY }

/** One line the connector's tasks logged; {@code offset} is its byte offset in the worker log. */
record LogEvent(long offset, int task, Kind kind, long value) {
    @Override
    public String toString() {
        return "task-" + task + " " + kind + " " + value;
    }
}

/** The connector's task lines of the worker log, read incrementally from where the test began. */
final class WorkerLog {
    private static final Pattern LINE = Pattern.compile("\\[([^|\\]]+)\\|task-(\\d+)\\] (?:"
            + "Holding (\\d+) bytes \\(buffer\\.max\\.bytes=\\d+\\): consumption paused"
            + "|Consumption resumed at (\\d+) bytes held"
            + "|Inserted (\\d+) rows into )");
    private final Path file;
    private final String connector;
    /** Retries are logged by the insert threads, which carry no connector context: matched by table. */
    private final Pattern retry;
    private final List<LogEvent> events = new CopyOnWriteArrayList<>();
    private long position;

    WorkerLog(Path file, String connector, String table) throws IOException {
        this.file = file;
        this.connector = connector;
        this.retry = Pattern.compile("Insert of \\d+ rows into " + Pattern.quote(table) + " failed \\(attempt (\\d+)\\)");
        this.position = Files.size(file);
    }

    /** Reads the complete lines appended since the last poll. */
    synchronized WorkerLog poll() {
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            if (length <= position) {
                return this;
            }
            byte[] bytes = new byte[(int) (length - position)];
            in.seek(position);
            in.readFully(bytes);
            int start = 0;
            for (int i = 0; i < bytes.length; i++) {
                if (bytes[i] == '\n') {
                    parse(position + start, new String(bytes, start, i - start, StandardCharsets.UTF_8));
                    start = i + 1;
                }
            }
            position += start;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file, e);
        }
        return this;
    }

    private void parse(long offset, String line) {
        Matcher r = retry.matcher(line);
        if (r.find()) {
            events.add(new LogEvent(offset, -1, Kind.RETRY, Long.parseLong(r.group(1))));
            return;
        }
        Matcher m = LINE.matcher(line);
        if (!m.find() || !m.group(1).equals(connector)) {
            return;
        }
        int task = Integer.parseInt(m.group(2));
        if (m.group(3) != null) {
            events.add(new LogEvent(offset, task, Kind.PAUSE, Long.parseLong(m.group(3))));
        } else if (m.group(4) != null) {
            events.add(new LogEvent(offset, task, Kind.RESUME, Long.parseLong(m.group(4))));
        } else {
            events.add(new LogEvent(offset, task, Kind.INSERTED, Long.parseLong(m.group(5))));
        }
    }

    /** The lines of a connector's tasks in {@code file} from byte offset {@code from} on (a finished read, not polled). */
    static List<String> taskLines(Path file, long from, String connector) throws IOException {
        String tag = "[" + connector + "|task-";
        return linesSince(file, from).stream().filter(l -> l.contains(tag)).toList();
    }

    /** Every line of {@code file} from byte offset {@code from} on (a finished read, not polled). */
    static List<String> linesSince(Path file, long from) throws IOException {
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            byte[] bytes = new byte[(int) Math.max(0, in.length() - from)];
            in.seek(from);
            in.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8).lines().toList();
        }
    }

    /** The byte offset up to which the log has been read. */
    synchronized long size() {
        return position;
    }

    List<LogEvent> events(long from, long to) {
        return events.stream().filter(e -> e.offset() >= from && e.offset() < to).toList();
    }

    List<LogEvent> between(long from, long to) {
        return events(from, to).stream().filter(e -> e.kind() != Kind.INSERTED).toList();
    }

    /** The tasks whose last pause/resume line before byte offset {@code to} is a pause. */
    List<Integer> pausedTasks(long to) {
        Map<Integer, Boolean> paused = new TreeMap<>();
        for (LogEvent e : events(0, to)) {
            if (e.kind() == Kind.PAUSE || e.kind() == Kind.RESUME) {
                paused.put(e.task(), e.kind() == Kind.PAUSE);
            }
        }
        return paused.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
    }

    /** A description of the first pause that reported more than {@code limit} bytes held, or null. */
    String overBound(long bufferMaxBytes, long limit) {
        return events.stream().filter(e -> e.kind() == Kind.PAUSE && e.value() > limit).findFirst()
                .map(e -> "task " + e.task() + " paused holding " + e.value() + " bytes, more than buffer.max.bytes="
                        + bufferMaxBytes + " plus one poll batch (" + limit + ")")
                .orElse(null);
    }

    /** Failed insert attempts logged (each is retried), and the highest attempt number. */
    String retries() {
        List<LogEvent> r = events.stream().filter(e -> e.kind() == Kind.RETRY).toList();
        return r.size() + " failed attempts, up to attempt " + r.stream().mapToLong(LogEvent::value).max().orElse(0);
    }
}

