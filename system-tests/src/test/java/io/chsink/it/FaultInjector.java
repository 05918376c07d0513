package io.chsink.it;

import io.chsink.it.stack.ConnectWorker;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/**
 * Injects the faults of the exactly-once tests into the shared stack, one at a time, and says what each hit. Each
 * fault is aimed at its target and {@link Hit#target()} says whether it provably hit it:
 * <ul>
 *   <li>the "during insert" faults, the task restart and the worker leaving hit <b>mid-insert</b> when an insert
 *   into the watched tables was in flight at the moment the fault took effect. That is proven from ClickHouse's own
 *   record, never from how long an insert took: a worker kill is sent while the frozen (SIGSTOP) worker's insert is
 *   still listed in ClickHouse's system.processes (the frozen client cannot have received its result); a ClickHouse
 *   kill is sent while the worker is frozen and the insert is listed; for the restart and the leave, ClickHouse is
 *   frozen with an insert listed until the worker logs "Stopping task" for the connector, and system.query_log has
 *   that insert starting before the stop line's time and ending after it (one machine, one clock). While a fault
 *   aims, a materialized view makes every insert into the tables sleep 0.3 s more ({@link #slowInserts}), so that an
 *   insert seen running is still running at the freeze;</li>
 *   <li>the kill "before insert" hits between two inserts: after an insert was seen to end, while no insert runs
 *   (checked with the worker frozen) and records are in flight (the consumer group is behind the end offsets);</li>
 *   <li>the kill "after insert" hits when an insert was seen to end and its block (from its deduplication token) is
 *   still beyond its partition's committed offset, checked with the worker frozen.</li>
 * </ul>
 * Each fault first waits for the connector to insert (after a worker restart it may take tens of seconds on a
 * loaded machine before it consumes again), retries its aim until the insert wait passes, then is injected anyway
 * (not on target).
 */
final class FaultInjector {
    enum Kind {
        /** SIGKILL of the worker while no insert into the tables runs: blocks open or queued, not sent. */
        WORKER_KILL_BEFORE_INSERT,
        /** SIGKILL of the worker while an insert into one of the tables runs. */
        WORKER_KILL_DURING_INSERT,
        /** SIGKILL of the worker right after an insert ended: its offsets are not committed yet. */
        WORKER_KILL_AFTER_INSERT,
        /**
         * A second worker joins the group (tasks move) and leaves again, aimed at a moment with an insert in flight
         * (proven as for {@link #TASK_RESTART}).
         */
        WORKER_JOIN_LEAVE,
        /** POST /connectors/{name}/tasks/{id}/restart while an insert runs. */
        TASK_RESTART,
        /** SIGKILL of ClickHouse while an insert runs, restart after 1-3 s. */
        CLICKHOUSE_KILL_DURING_INSERT;

        /** Whether this kind's target is a moment with an insert in flight (the rest aim around inserts). */
        boolean midInsert() {
            return this != WORKER_KILL_BEFORE_INSERT && this != WORKER_KILL_AFTER_INSERT && this != WORKER_JOIN_LEAVE;
        }
    }

    /** What one fault hit: {@code target} when it provably hit what its kind aims at (see the class comment). */
    record Hit(Kind kind, boolean target, String what) {
    }

    /** An insert listed in system.processes. */
    private record Insert(String id, String table, long elapsedMs, String token) {
        /** The block's rows from its token ({@code chsink/<connector>/<topic>/<partition>/<first>-<last>/<ts>}), or 0. */
        long rows() {
            String[] t = token == null ? new String[0] : token.split("/");
            if (t.length != 6 || t[4].indexOf('-') < 0) {
                return 0;
            }
            return Long.parseLong(t[4].substring(t[4].indexOf('-') + 1)) - Long.parseLong(t[4].substring(0, t[4].indexOf('-'))) + 1;
        }

        @Override
        public String toString() {
            return "insert into " + table + " running for " + elapsedMs + " ms (query " + id + ", token " + token + ")";
        }
    }

    private static final int RESTART_ATTEMPTS = 3;

    private final SinkHarness h;
    private final String connector;
    private final int tasks;
    private final List<String> tables;
    private final Set<TopicPartition> partitions;
    private final String stateTable;
    private final Random random;
    private final Duration insertWait;
    /** Rows of the inserts the restart and the leave prefer to aim at (see {@link #preferInsertsOf}). */
    private long longInsertRows;
    /** The logs of the second workers started so far (they rebuild blocks too). */
    private final List<Path> secondLogs = new CopyOnWriteArrayList<>();

    FaultInjector(SinkHarness h, String connector, int tasks, List<String> tables, Set<TopicPartition> partitions,
            String stateTable, long seed, Duration insertWait) {
        this.h = h;
        this.connector = connector;
        this.tasks = tasks;
        this.tables = tables;
        this.partitions = partitions;
        this.stateTable = stateTable;
        this.random = new Random(seed ^ 0x5DEECE66DL);
        this.insertWait = insertWait;
        Signals.send("0", ProcessHandle.current().pid()); // starts the shell now, not at the first freeze
    }

    /**
     * Makes the restart and the leave aim at inserts of at least {@code rows} rows while two thirds of the insert
     * wait last (then at any insert): a longer insert is more likely still running when ClickHouse is frozen, which
     * is what puts it in flight across the task's stop (the proof itself is read from system.query_log).
     */
    FaultInjector preferInsertsOf(long rows) {
        this.longInsertRows = rows;
        return this;
    }

    /**
     * {@code n} faults from {@code seed} (at least one of each kind, so never fewer than the number of kinds): every
     * kind once, the rest drawn at random, shuffled.
     */
    static List<Kind> plan(long seed, int n) {
        Random r = new Random(seed);
        List<Kind> plan = new ArrayList<>(List.of(Kind.values()));
        while (plan.size() < n) {
            plan.add(Kind.values()[r.nextInt(Kind.values().length)]);
        }
        Collections.shuffle(plan, r);
        return plan;
    }

    /** Injects one fault and waits until the connector runs again; returns what it hit. */
    Hit inject(Kind kind) throws Exception {
        Hit hit = switch (kind) {
            case WORKER_KILL_BEFORE_INSERT -> killWorkerBeforeInsert();
            case WORKER_KILL_DURING_INSERT -> killWorkerDuringInsert();
            case WORKER_KILL_AFTER_INSERT -> killWorkerAfterInsert();
            case WORKER_JOIN_LEAVE -> joinAndLeave();
            case TASK_RESTART -> restartTask();
            case CLICKHOUSE_KILL_DURING_INSERT -> killClickHouseDuringInsert();
        };
        h.rest().waitForTasksRunning(connector, tasks, Duration.ofMinutes(3));
        return hit;
    }

    private Hit killWorkerBeforeInsert() {
        long deadline = deadline();
        String what = null;
        // Between two inserts of a connector that is inserting (not one that is still starting up).
        Insert seen = awaitInsert(deadline);
        if (seen != null) {
            awaitInsertEnd(seen, deadline);
        }
        while (seen != null && what == null && System.nanoTime() < deadline) {
            List<Insert> now = tryInserts();
            if (now == null || !now.isEmpty()) {
                sleep(2);
                continue;
            }
            freeze(h.stack.connect().pid());
            List<Insert> frozen = tryInserts();
            long lag = lag();
            if (frozen != null && frozen.isEmpty() && lag > 0) {
                what = "no insert running (after " + seen.id() + " ended), " + lag + " records not committed";
            } else {
                thaw(h.stack.connect().pid());
                sleep(20);
            }
        }
        return killWorker(Kind.WORKER_KILL_BEFORE_INSERT, what, seen == null ? "no insert within "
                + insertWait.toSeconds() + " s" : "inserts kept running or nothing in flight for " + insertWait.toSeconds() + " s");
    }

    private Hit killWorkerDuringInsert() {
        String what;
        try (SlowInserts slow = slowInserts()) {
            what = freezeWorkerOnAnInsert(deadline());
        } // the worker stays frozen with its insert unanswered while the view goes
        return killWorker(Kind.WORKER_KILL_DURING_INSERT, what, "no insert in flight within " + insertWait.toSeconds() + " s");
    }

    /**
     * Freezes the worker while an insert into a watched table is listed, and leaves it frozen: describes the insert
     * (listed with the worker frozen, so unanswered), or null when none was by the deadline (the worker thawed).
     */
    private String freezeWorkerOnAnInsert(long deadline) {
        while (System.nanoTime() < deadline) {
            if (awaitInsert(deadline) == null) {
                return null;
            }
            freeze(h.stack.connect().pid());
            List<Insert> frozen = tryInserts();
            if (frozen != null && !frozen.isEmpty()) {
                return frozen.get(0) + " in flight at the kill (worker frozen)";
            }
            thaw(h.stack.connect().pid());
        }
        return null;
    }

    private Hit killWorkerAfterInsert() throws Exception {
        long deadline = deadline();
        String what = null;
        String last = "no insert seen within " + insertWait.toSeconds() + " s";
        while (what == null && System.nanoTime() < deadline) {
            Insert q = awaitInsert(deadline);
            if (q == null) {
                break;
            }
            if (!awaitInsertEnd(q, deadline)) {
                last = q + " still running after " + insertWait.toSeconds() + " s";
                break;
            }
            freeze(h.stack.connect().pid());
            String[] t = q.token() == null ? new String[0] : q.token().split("/");
            if (t.length != 6) {
                thaw(h.stack.connect().pid());
                last = q + " carries no block token";
                continue;
            }
            TopicPartition tp = new TopicPartition(t[2], Integer.parseInt(t[3]));
            long first = Long.parseLong(t[4].substring(0, t[4].indexOf('-')));
            long committed;
            try {
                committed = committedOffsets().getOrDefault(tp, 0L);
            } catch (Exception e) {
                thaw(h.stack.connect().pid());
                throw e;
            }
            if (committed <= first) {
                what = q + " ended; " + tp + " committed at " + committed + ", before the block's first offset " + first;
            } else {
                thaw(h.stack.connect().pid());
                last = q + " ended and was committed at once (" + tp + " at " + committed + ")";
            }
        }
        return killWorker(Kind.WORKER_KILL_AFTER_INSERT, what, last);
    }

    /** Kills the worker (frozen when {@code what} is set) and starts it again. */
    private Hit killWorker(Kind kind, String what, String missed) {
        h.stack.connect().kill();
        String blocks = uncommittedBlocks();
        h.stack.connect().start();
        return new Hit(kind, what != null, (what != null ? what : "MISSED: " + missed) + "; " + blocks);
    }

    private Hit killClickHouseDuringInsert() throws InterruptedException {
        long downMs = 1000 + random.nextInt(2000);
        String what;
        try (SlowInserts slow = slowInserts()) {
            what = freezeWorkerOnAnInsert(deadline());
            try {
                h.stack.clickhouse().kill();
            } finally {
                if (what != null) {
                    thaw(h.stack.connect().pid());
                }
            }
            Thread.sleep(downMs);
            h.stack.clickhouse().start();
        }
        return new Hit(Kind.CLICKHOUSE_KILL_DURING_INSERT, what != null, (what != null ? what
                : "MISSED: no insert in flight within " + insertWait.toSeconds() + " s") + "; ClickHouse down for "
                + downMs + " ms");
    }

    private Hit restartTask() {
        int task = random.nextInt(tasks);
        List<String> tries = new ArrayList<>();
        for (int attempt = 1; attempt <= RESTART_ATTEMPTS; attempt++) {
            long deadline = deadline();
            String what = whileClickHouseFrozenOnAnInsert(deadline, h.stack.connect().logFile(),
                    () -> CompletableFuture.runAsync(() -> h.rest().restartTask(connector, task)));
            h.rest().waitForTasksRunning(connector, tasks, Duration.ofMinutes(3));
            if (what != null && !what.startsWith("MISSED")) {
                return new Hit(Kind.TASK_RESTART, true, "task " + task + " restarted (attempt " + attempt + ") with "
                        + what);
            }
            if (what == null) {
                h.rest().restartTask(connector, task);
                h.rest().waitForTasksRunning(connector, tasks, Duration.ofMinutes(3));
                tries.add("no insert within " + insertWait.toSeconds() + " s, restarted anyway");
                break;
            }
            tries.add(what);
        }
        return new Hit(Kind.TASK_RESTART, false, "task " + task + " restarted; MISSED: " + tries);
    }

    /**
     * A second worker joins the group and leaves it while ClickHouse is frozen on an insert. On target when
     * system.query_log has that insert in flight across the leaving worker's "Stopping task" line; otherwise (or when
     * no task of the connector stopped within 10 s) tried again, up to {@link #RESTART_ATTEMPTS} times.
     */
    private Hit joinAndLeave() throws Exception {
        List<String> tries = new ArrayList<>();
        for (int attempt = 1; attempt <= RESTART_ATTEMPTS; attempt++) {
            String what = joinAndLeaveOnce();
            if (what == null) {
                tries.add("no insert within " + insertWait.toSeconds() + " s");
                break;
            }
            if (!what.startsWith("MISSED")) {
                return new Hit(Kind.WORKER_JOIN_LEAVE, true, "joined, left (attempt " + attempt + ") with " + what);
            }
            tries.add(what);
        }
        return new Hit(Kind.WORKER_JOIN_LEAVE, false, "joined, left; MISSED: " + tries);
    }

    /** One join and leave; what {@link #whileClickHouseFrozenOnAnInsert} saw (null: no insert ran). */
    private String joinAndLeaveOnce() throws Exception {
        ConnectWorker second = new ConnectWorker();
        Path dir = Paths.get(System.getProperty("chsink.work.dir", "target/stack"), connector + "-w2-"
                + random.nextInt(1_000_000)).toAbsolutePath();
        Path log = dir.resolve("worker.log");
        secondLogs.add(log);
        try {
            second.start(dir, h.stack.kafka().bootstrapServers());
            Thread.sleep(2000 + random.nextInt(4000));
            String what = whileClickHouseFrozenOnAnInsert(deadline(), log, () -> CompletableFuture.runAsync(second::stop));
            if (what == null) {
                second.stop();
            }
            return what;
        } finally {
            second.close();
        }
    }

    /**
     * Waits for an insert, freezes ClickHouse, runs {@code fault} and waits until {@code log} shows the connector's
     * task stopping, resumes ClickHouse, and reads the insert's start and end from ClickHouse's system.query_log: it
     * was in flight when the task stopped when it started before the stop line's time and ended after it (one
     * machine, one clock). The freeze only makes that likely (an insert running at the freeze cannot end before the
     * thaw); the proof does not depend on how long the insert runs after it. Returns the description (prefixed with
     * MISSED when not proven), or null when no insert ran (the fault was not started).
     */
    private String whileClickHouseFrozenOnAnInsert(long deadline, Path log, java.util.function.Supplier<CompletableFuture<Void>> fault) {
        try (SlowInserts slow = slowInserts()) {
            return frozenOnAnInsert(deadline, log, fault);
        }
    }

    private String frozenOnAnInsert(long deadline, Path log, java.util.function.Supplier<CompletableFuture<Void>> fault) {
        Insert preferred = awaitInsert(deadline - insertWait.toNanos() / 3, longInsertRows);
        Insert q = preferred != null ? preferred : awaitInsert(deadline);
        if (q == null) {
            return null;
        }
        long from = size(log);
        long ch = h.stack.clickhouse().pid();
        CompletableFuture<Void> f;
        String stopLine;
        freeze(ch);
        try {
            f = fault.get();
            stopLine = awaitLogLine(log, from, "Stopping task " + connector + "-", Duration.ofSeconds(10));
        } finally {
            thaw(ch);
        }
        f.join();
        if (stopLine == null) {
            return "MISSED: no task of the connector stopped within 10 s (" + q + ")";
        }
        String stopping = stopLine.substring(stopLine.indexOf("Stopping task "));
        stopping = stopping.substring(0, stopping.indexOf(" ("));
        long stopMicros = logTimeMicros(stopLine);
        long[] run = queryLogTimes(q.id());
        if (run == null) {
            return "MISSED: " + q + " is not in system.query_log (or the server keeps none)";
        }
        // The stop line has millisecond resolution: the insert must have ended after that whole millisecond.
        boolean across = run[0] < stopMicros && (run[1] < 0 || run[1] >= stopMicros + 1000);
        String times = "started " + (stopMicros - run[0]) / 1000 + " ms before '" + stopping + "', "
                + (run[1] < 0 ? "still running" : "ended " + (run[1] - stopMicros) / 1000 + " ms after it")
                + " (system.query_log)";
        return across ? q + " in flight: " + times : "MISSED: " + q + " " + times;
    }

    /** The time of a worker log line ({@code [2026-12-03T20:05:34,042] ...}, this machine's zone) in µs since the epoch. */
    static long logTimeMicros(String line) {
        java.time.LocalDateTime t = java.time.LocalDateTime.parse(line.substring(1, line.indexOf(']')).replace(',', '.'));
        java.time.Instant i = t.atZone(java.time.ZoneId.systemDefault()).toInstant();
        return i.getEpochSecond() * 1_000_000 + i.getNano() / 1000;
    }

    /**
     * The insert's start and end by ClickHouse's system.query_log, in µs since the epoch (end -1 while it runs), or
     * null when the log does not have it.
     */
    private long[] queryLogTimes(String queryId) {
        if (!queryId.matches("[0-9A-Za-z-]+")) {
            throw new IllegalArgumentException("query id " + queryId);
        }
        String tsv;
        try {
            h.ch().query("SYSTEM FLUSH LOGS");
            tsv = h.ch().query("SELECT min(toUnixTimestamp64Micro(query_start_time_microseconds)), "
                    + "maxIf(toUnixTimestamp64Micro(event_time_microseconds), type != 'QueryStart'), "
                    + "countIf(type != 'QueryStart') FROM system.query_log WHERE query_id = '" + queryId + "' "
                    + "HAVING count() > 0 FORMAT TSV").trim();
        } catch (RuntimeException e) {
            return null; // a server without system.query_log (external, or not configured with it)
        }
        if (tsv.isEmpty()) {
            return null;
        }
        String[] f = tsv.split("\t");
        return new long[] {Long.parseLong(f[0]), f[2].equals("0") ? -1 : Long.parseLong(f[1])};
    }

    private static long size(Path log) {
        try {
            return Files.exists(log) ? Files.size(log) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** The first line containing {@code text} written to {@code log} after byte {@code from}, or null. */
    private static String awaitLogLine(Path log, long from, String text, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long position = from;
        StringBuilder partial = new StringBuilder();
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                try (RandomAccessFile in = new RandomAccessFile(log.toFile(), "r")) {
                    long length = in.length();
                    if (length > position) {
                        byte[] bytes = new byte[(int) (length - position)];
                        in.seek(position);
                        in.readFully(bytes);
                        position = length;
                        partial.append(new String(bytes, StandardCharsets.UTF_8));
                        int nl;
                        while ((nl = partial.indexOf("\n")) >= 0) {
                            String line = partial.substring(0, nl);
                            partial.delete(0, nl + 1);
                            if (line.contains(text)) {
                                return line;
                            }
                        }
                    }
                } catch (IOException e) {
                    // not there yet
                }
            }
            sleep(2);
        }
        return null;
    }

    /** The "Rebuilt ..." lines this connector's tasks logged, in the stack's worker and in the second workers. */
    long rebuiltBlocks() {
        String context = "[" + connector + "|task-";
        long n = 0;
        List<Path> logs = new ArrayList<>(secondLogs);
        logs.add(h.stack.connect().logFile());
        for (Path log : logs) {
            if (!Files.exists(log)) {
                continue;
            }
            try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
                n += lines.filter(l -> l.contains(context) && l.contains("] Rebuilt ")).count();
            } catch (IOException | java.io.UncheckedIOException e) {
                throw new IllegalStateException("cannot read " + log, e);
            }
        }
        return n;
    }

    private long deadline() {
        return System.nanoTime() + insertWait.toNanos();
    }

    private List<Insert> insertsNow() {
        StringBuilder cond = new StringBuilder();
        for (String t : tables) {
            cond.append(cond.length() == 0 ? "" : " OR ").append("position(query, '`").append(t).append("`') > 0");
        }
        String tsv = h.ch().query("SELECT query_id, round(elapsed * 1000), "
                + "extract(query, 'INTO `[^`]*`\\\\.`([^`]*)`'), Settings['insert_deduplication_token'] "
                + "FROM system.processes WHERE query_kind = 'Insert' AND (" + cond + ") FORMAT TSV");
        List<Insert> out = new ArrayList<>();
        for (String line : tsv.split("\n")) {
            if (!line.isBlank()) {
                String[] f = line.split("\t", -1);
                out.add(new Insert(f[0], f[2], (long) Double.parseDouble(f[1]), f[3].isEmpty() ? null : f[3]));
            }
        }
        return out;
    }

    /** The inserts running now, or null when ClickHouse does not answer (restarting). */
    private List<Insert> tryInserts() {
        try {
            return insertsNow();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Waits (the injector's insert wait) until an insert into a watched table runs; describes it, or says none ran. */
    String awaitInsert() {
        Insert i = awaitInsert(System.nanoTime() + insertWait.toNanos());
        return i == null ? "no insert running within " + insertWait.toSeconds() + " s"
                : "insert into " + i.table() + " running for " + i.elapsedMs() + " ms (query " + i.id() + ")";
    }

    /** Polls until an insert into a watched table runs; null when none ran before the deadline. */
    private Insert awaitInsert(long deadline) {
        return awaitInsert(deadline, 0);
    }

    /** Polls until an insert of at least {@code minRows} rows (by its token) runs; null when none did before the deadline. */
    private Insert awaitInsert(long deadline, long minRows) {
        while (System.nanoTime() < deadline) {
            List<Insert> now = tryInserts();
            if (now != null) {
                for (Insert i : now) {
                    if (i.rows() >= minRows) {
                        return i;
                    }
                }
            }
            sleep(2);
        }
        return null;
    }

    private boolean awaitInsertEnd(Insert q, long deadline) {
        while (System.nanoTime() < deadline) {
            List<Insert> now = tryInserts();
            if (now != null && now.stream().noneMatch(i -> i.id().equals(q.id()))) {
                return true;
            }
            sleep(1);
        }
        return false;
    }

    /** How much longer each insert into a watched table takes while {@link #slowInserts} is open. */
    private static final String SLOW_INSERT_SECONDS = "0.3";

    /**
     * Makes every insert into the watched tables take {@link #SLOW_INSERT_SECONDS} longer until closed: a
     * materialized view per table that sleeps once per inserted block (into a Null table, so the data is untouched
     * and the insert's deduplication is the table's own). An insert seen running is then still running when the
     * aim's next step (a freeze) comes, on a loaded machine too; the proofs do not rest on it, they read
     * system.processes with the other side frozen, or system.query_log. Closing drops the views, waiting for a
     * restarted ClickHouse to answer.
     */
    SlowInserts slowInserts() {
        String db = "`" + h.db + "`.";
        h.ch().query("CREATE TABLE IF NOT EXISTS " + db + "`chsink_slow_sink` (s UInt8) ENGINE = Null");
        List<String> views = new ArrayList<>();
        for (String t : tables) {
            String view = db + "`chsink_slow_" + t + "`";
            h.ch().query("CREATE MATERIALIZED VIEW IF NOT EXISTS " + view + " TO " + db + "`chsink_slow_sink` AS SELECT sleep("
                    + SLOW_INSERT_SECONDS + ") AS s FROM " + db + "`" + t + "`");
            views.add(view);
        }
        return new SlowInserts(views);
    }

    final class SlowInserts implements AutoCloseable {
        private final List<String> views;

        SlowInserts(List<String> views) {
            this.views = views;
        }

        @Override
        public void close() {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            for (String view : views) {
                while (true) {
                    try {
                        h.ch().query("DROP VIEW IF EXISTS " + view + " SYNC");
                        break;
                    } catch (RuntimeException e) {
                        if (System.nanoTime() > deadline) {
                            throw e;
                        }
                        sleep(200); // ClickHouse restarting
                    }
                }
            }
        }
    }

    /** SIGSTOP: the process keeps its sockets but runs no code until {@link #thaw}. */
    private static void freeze(long pid) {
        Signals.send("STOP", pid);
    }

    private static void thaw(long pid) {
        Signals.send("CONT", pid);
    }

    /**
     * Sends signals through one long-lived shell and its builtin kill: no process is spawned per signal, so a
     * freeze takes well under a millisecond (spawning kill took tens of ms under load, longer than small inserts).
     */
    private static final class Signals {
        private static Process shell;
        private static java.io.BufferedWriter in;
        private static java.io.BufferedReader out;

        static synchronized void send(String signal, long pid) {
            try {
                if (shell == null || !shell.isAlive()) {
                    shell = new ProcessBuilder("bash").redirectErrorStream(true).start();
                    in = new java.io.BufferedWriter(new java.io.OutputStreamWriter(shell.getOutputStream(), StandardCharsets.UTF_8));
                    out = new java.io.BufferedReader(new java.io.InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
                }
                in.write("kill -" + signal + " " + pid + "; echo \"__done $?\"\n");
                in.flush();
                StringBuilder said = new StringBuilder();
                String line;
                while ((line = out.readLine()) != null && !line.startsWith("__done ")) {
                    said.append(line).append(' ');
                }
                if (line == null || !line.equals("__done 0")) {
                    throw new IllegalStateException("kill -" + signal + " " + pid + ": " + said + line);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Records produced to the partitions and not committed by the connector's consumer group; -1 if unknown. */
    private long lag() {
        try {
            Map<TopicPartition, Long> c = committedOffsets();
            return endOffsets().entrySet().stream().mapToLong(e -> e.getValue() - c.getOrDefault(e.getKey(), 0L)).sum();
        } catch (Exception e) {
            return -1;
        }
    }

    /** Recorded blocks at or beyond the consumer group's committed offsets: the blocks a restart must rebuild. */
    String uncommittedBlocks() {
        try {
            Map<TopicPartition, Long> committed = committedOffsets();
            int blocks = 0;
            long rows = 0;
            for (TopicPartition tp : partitions) {
                long from = committed.getOrDefault(tp, 0L);
                String r = h.ch().query("SELECT count(), sum(rows) FROM `" + stateTable + "` FINAL WHERE connector = '"
                        + connector + "' AND topic = '" + tp.topic() + "' AND partition = " + tp.partition()
                        + " AND first_offset >= " + from + " FORMAT TSV").trim();
                String[] f = r.split("\t");
                blocks += Integer.parseInt(f[0]);
                rows += Long.parseLong(f[1]);
            }
            return blocks + " recorded blocks (" + rows + " rows) beyond the committed offsets";
        } catch (Exception e) {
            return "recorded blocks unknown: " + e.getMessage();
        }
    }

    Map<TopicPartition, Long> committedOffsets() throws Exception {
        return h.committedOffsets(connector);
    }

    Map<TopicPartition, Long> endOffsets() throws Exception {
        return h.endOffsets(partitions);
    }

    /** Waits until the connector has committed every partition to its end (nothing left to replay). */
    void awaitCommittedToEnd(Duration timeout) throws Exception {
        h.awaitCommittedToEnd(connector, partitions, timeout);
    }
}
