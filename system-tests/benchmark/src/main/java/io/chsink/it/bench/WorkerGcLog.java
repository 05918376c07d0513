package io.chsink.it.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Connect worker's GC log ({@code -Xlog:gc:file=...}, written when the benchmark starts the worker): heap
 * before and after each collection, so the worker's peak heap over a window of time can be told from outside.
 */
final class WorkerGcLog {
    private static final Pattern PAUSE = Pattern.compile("GC\\(\\d+\\) (Pause \\w+).*? (\\d+)M->(\\d+)M\\((\\d+)M\\) ([0-9.]+)ms");

    /**
     * Collections in a window: the most heap in use before one (the peak the heap reached), the most still live
     * after one (what the worker really held), the committed heap, and pause totals. All -1 when there is no log.
     */
    record Window(int collections, int fullCollections, long maxBeforeMiB, long maxAfterMiB, long maxCommittedMiB,
            double pauseMs) {
        boolean known() {
            return collections >= 0;
        }
    }

    private final Path file;

    WorkerGcLog(Path file) {
        this.file = file;
    }

    /** The current end of the log. */
    long mark() {
        try {
            return file != null && Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** The collections logged after {@code mark}. */
    Window since(long mark) {
        if (file == null || !Files.exists(file)) {
            return new Window(-1, -1, -1, -1, -1, -1);
        }
        try {
            byte[] all = Files.readAllBytes(file);
            String text = new String(all, (int) Math.min(mark, all.length), (int) Math.max(0, all.length - mark),
                    StandardCharsets.UTF_8);
            int n = 0;
            int full = 0;
            long before = 0;
            long after = 0;
            long committed = 0;
            double pause = 0;
            for (String line : text.split("\n")) {
                Matcher m = PAUSE.matcher(line);
                if (!m.find()) {
                    continue;
                }
                n++;
                if (m.group(1).startsWith("Pause Full")) {
                    full++;
                }
                before = Math.max(before, Long.parseLong(m.group(2)));
                after = Math.max(after, Long.parseLong(m.group(3)));
                committed = Math.max(committed, Long.parseLong(m.group(4)));
                pause += Double.parseDouble(m.group(5));
            }
            return new Window(n, full, before, after, committed, pause);
        } catch (IOException e) {
            return new Window(-1, -1, -1, -1, -1, -1);
        }
    }
}
