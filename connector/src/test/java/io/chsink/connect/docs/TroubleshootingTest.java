package io.chsink.connect.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/troubleshooting.md documents every message the connector raises, and nothing it no longer raises.
 *
 * <p><b>What counts as a message.</b> The test reads the sources under {@code src/main/java} (comments left out)
 * and takes the message text of:
 * <ul>
 *   <li>every construction {@code new X(...)} of a message carrier {@link #CARRIERS}: Connect's exceptions
 *       (ConnectException, RetriableException, DataException, ConfigException), the connector's bad-record
 *       exception (RecordMappingException) and the reasons it wraps (ValueException; ChangeEvent.Malformed,
 *       AvroInput.BadAvro, DefaultLiterals.NoLiteral, ConnectTypes.Unmappable, WriterSchemas.NotAvro,
 *       RegistryException), IllegalStateException and IllegalArgumentException, and InsertFailure (the text of
 *       a failed insert). The message is the first argument that holds a string literal; for a ConfigException
 *       of three arguments it is the third (Connect prints it after "Invalid value ... for configuration ...");
 *   <li>every {@code LOG.warn}, {@code LOG.error} (or {@code log.}): the format, its first argument;
 *   <li>every {@code addErrorMessage(...)} (validate()), and the calls of the helpers that build messages from a
 *       reason, {@link #HELPERS} (validate()'s {@code error(key, message)}, the reason of
 *       ClickHouseCurrentRows.bad, AvroConverter.bad, TypeParser.error, KeyStoreFiles' error function);
 *   <li>every assignment to, and {@code append} chain on, a variable named like a message ({@link #VARIABLES}:
 *       message, m, text, why, reason, says, problem, warning), declared {@code String} or reassigned;
 *   <li>every {@code return} of a method that builds a message, named {@code ...problem}, {@code ...warning},
 *       {@code ...reason} (any case) or {@code message}.
 * </ul>
 * An expression {@code c ? a : b} gives a message for each branch. A message without any string literal (a
 * variable passed on, {@code e.getMessage()}) is where its text comes from that counts, not where it goes.
 *
 * <p><b>The key of a message.</b> Its text is the concatenation of its parts: string literals as they are
 * (in a {@code String.format} format, each {@code %s}, {@code %d}, ... is a placeholder; in a log format each
 * {@code {}}), constants ({@code static final String} of the sources, such as {@code SinkConfig.CDC_MODE}) by their
 * value, and every other part (a variable, a call, a parenthesized expression) as a placeholder, written
 * {@code …}. The key is that text
 * <ol>
 *   <li>without the frame every bad record starts with, {@code Cannot write record topic=… partition=… offset=…}
 *       and an optional {@code  into table …}, then {@code ": "} ({@link #FRAME});
 *   <li>without leading placeholders, spaces and {@code :;,.)'"}, and without trailing placeholders, spaces and
 *       {@code :;,.'"(};
 *   <li>cut to at most {@value #MAX_KEY} characters, at the last space that allows, and trimmed again (the start
 *       of a message is what a reader searches the page for; the rest of it stays in the code).
 * </ol>
 * A message whose key has fewer than 4 letters (a wrapper such as {@code "… (…): …"}) is skipped.
 *
 * <p><b>The page.</b> Every {@code ###} entry under {@code ## What can go wrong} has exactly one message line,
 * holding one or more code spans: {@code Message: } for the connector's messages, or {@code Message (WHO): } for
 * the messages of another component users meet with this connector (Kafka Connect, a converter, Kafka's
 * consumer), which this test does not read. The test asserts that (a) every key appears as a code span of a
 * {@code Message: } line of exactly one entry; (b) every such code span is still the key of a message, or
 * (without {@code …}, at least 15 characters) the start of a string literal of the sources, as for the frames of
 * bad records.
 */
class TroubleshootingTest {
    static final Path SOURCES = Paths.get("src", "main", "java");
    static final Path PAGE = Paths.get("..", "docs", "troubleshooting.md");
    static final String PH = "\u2026";
    static final int MAX_KEY = 45;

    static final Set<String> CARRIERS = new HashSet<>(Arrays.asList("ConnectException", "RetriableException",
            "DataException", "ConfigException", "RecordMappingException", "ValueException", "IllegalStateException",
            "IllegalArgumentException", "Malformed", "BadAvro", "NoLiteral", "Unmappable", "NotAvro",
            "RegistryException", "InsertFailure"));

    /** Class (simple name) -> call pattern -> the argument that is the message (-1: the last). */
    static final Map<String, Map<Pattern, Integer>> HELPERS = new HashMap<>();

    static {
        helper("ClickHouseSinkConnector", "(?<![\\w.])error\\s*\\(", -1); // validate(): error(key, message)
        helper("ClickHouseCurrentRows", "(?<![\\w.])bad\\s*\\(", 0); // why an array is not read back
        helper("AvroConverter", "(?<![\\w.])bad\\s*\\(", 1); // bad(topic, why, cause)
        helper("TypeParser", "(?<![\\w.])error\\s*\\(", 0); // why a type does not parse
        helper("KeyStoreFiles", "\\berror\\.apply\\s*\\(", 0); // a store that cannot be read
    }

    static final String VARIABLES = "message|m|text|why|reason|says|problem|warning";
    static final Pattern BUILDER = Pattern.compile("(?i).*(problem|warning|reason)|message");
    static final Pattern FRAME = Pattern.compile("^Cannot write record topic=" + PH + " partition=" + PH + " offset="
            + PH + "(?: into table " + PH + ")?: ");

    private static void helper(String cls, String call, int arg) {
        HELPERS.computeIfAbsent(cls, c -> new LinkedHashMap<>()).put(Pattern.compile(call), arg);
    }

    /** A message found in the sources. */
    static final class Found {
        final String key;
        final String text;
        final String where;

        Found(String key, String text, String where) {
            this.key = key;
            this.text = text;
            this.where = where;
        }
    }

    /**
     * An entry of the page: its heading, the line of its message line, that line's code spans, and whether they are
     * the connector's messages ({@code Message: }) or another component's ({@code Message (WHO): }).
     */
    static final class Entry {
        final String heading;
        final int line;
        final List<String> spans;
        final boolean own;

        Entry(String heading, int line, List<String> spans, boolean own) {
            this.heading = heading;
            this.line = line;
            this.spans = spans;
            this.own = own;
        }
    }

    /** A message line of another component: {@code Message (Kafka Connect): `...`}. */
    static final Pattern FOREIGN = Pattern.compile("^Message \\([^)]+\\): ");

    @Test
    void everyMessageHasAnEntry() throws IOException {
        List<Found> found = scan(SOURCES);
        assertTrue(found.size() > 100, "the scan found only " + found.size() + " messages");
        Map<String, List<Entry>> bySpan = new HashMap<>();
        for (Entry e : entries(PAGE)) {
            for (String s : e.own ? e.spans : List.<String>of()) {
                bySpan.computeIfAbsent(s, k -> new ArrayList<>()).add(e);
            }
        }
        List<String> missing = new ArrayList<>();
        List<String> twice = new ArrayList<>();
        for (Found f : found) {
            List<Entry> in = bySpan.get(f.key);
            if (in == null) {
                missing.add("`" + f.key + "`  (" + f.where + ": " + f.text + ")");
            } else if (in.size() > 1) {
                twice.add("`" + f.key + "` is in " + in.stream().map(e -> "'" + e.heading + "'")
                        .collect(Collectors.joining(" and ")));
            }
        }
        assertTrue(missing.isEmpty() && twice.isEmpty(), "docs/troubleshooting.md: " + missing.size()
                + " message(s) without an entry (add each key to the Message: line of an entry):\n  "
                + String.join("\n  ", missing) + (twice.isEmpty() ? "" : "\nin more than one entry:\n  "
                + String.join("\n  ", twice)));
    }

    @Test
    void everyEntryNamesMessagesThatExist() throws IOException {
        List<Found> found = scan(SOURCES);
        Set<String> keys = found.stream().map(f -> f.key).collect(Collectors.toSet());
        List<String> literals = literals(SOURCES);
        List<String> stale = new ArrayList<>();
        for (Entry e : entries(PAGE)) {
            for (String s : e.own ? e.spans : List.<String>of()) {
                boolean inLiteral = !s.contains(PH) && s.length() >= 15
                        && literals.stream().anyMatch(l -> l.startsWith(s));
                if (!keys.contains(s) && !inLiteral) {
                    stale.add("docs/troubleshooting.md:" + e.line + " ('" + e.heading + "'): `" + s + "`");
                }
            }
        }
        assertTrue(stale.isEmpty(), stale.size() + " Message: code span(s) match no message of src/main/java any "
                + "more (update or remove them):\n  " + String.join("\n  ", stale));
    }

    @Test
    void theScanCanTellAMessageFromItsFrame() {
        assertTrue(key(template("String.format(\"Cannot write record topic=%s partition=%d offset=%d into table %s:"
                + " the record value is null\", a, b, c, d)", Mode.PLAIN, Map.of())).equals(
                "the record value is null"));
        assertTrue(key(template("\"Table \" + t.quoted() + \" for topic '\" + topic + \"' no longer exists\"",
                Mode.PLAIN, Map.of())).equals("Table " + PH + " for topic '" + PH + "' no longer exists"));
        assertTrue(key(template("\"Could not re-read the columns of {}; keeping the known ones: {}\"", Mode.LOG,
                Map.of())).equals("Could not re-read the columns of " + PH + "; keeping")); // cut at MAX_KEY
        assertTrue(key(template("SinkConfig.AUTO_CREATE + \"=true needs \" + missing", Mode.PLAIN,
                Map.of("SinkConfig.AUTO_CREATE", "auto.create"))).equals("auto.create=true needs"));
    }

    // ---------------------------------------------------------------- the page

    static List<Entry> entries(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        List<Entry> out = new ArrayList<>();
        List<String> format = new ArrayList<>();
        boolean inSection = false;
        String heading = null;
        int headingLine = 0;
        int messageLines = 0;
        Pattern span = Pattern.compile("`([^`]+)`");
        for (int i = 0; i <= lines.size(); i++) {
            String l = i < lines.size() ? lines.get(i) : "## end";
            boolean h2 = l.startsWith("## ");
            boolean h3 = l.startsWith("### ");
            if ((h2 || h3) && heading != null && messageLines != 1) {
                format.add("docs/troubleshooting.md:" + headingLine + " '" + heading + "' has " + messageLines
                        + " lines starting with 'Message: ' or 'Message (WHO): ', not 1");
            }
            if (h2) {
                inSection = l.trim().equals("## What can go wrong");
                heading = null;
            } else if (h3) {
                heading = inSection ? l.substring(4).trim() : null;
                headingLine = i + 1;
                messageLines = 0;
            } else if (l.startsWith("Message: ") || FOREIGN.matcher(l).find()) {
                if (heading == null) {
                    format.add("docs/troubleshooting.md:" + (i + 1) + ": a Message: line outside an entry of '## What "
                            + "can go wrong'");
                    continue;
                }
                messageLines++;
                List<String> spans = new ArrayList<>();
                Matcher m = span.matcher(l);
                while (m.find()) {
                    spans.add(m.group(1).trim());
                }
                if (spans.isEmpty()) {
                    format.add("docs/troubleshooting.md:" + (i + 1) + ": a Message: line without a code span");
                }
                out.add(new Entry(heading, i + 1, spans, l.startsWith("Message: ")));
            }
        }
        assertTrue(format.isEmpty(), String.join("\n", format));
        assertTrue(out.size() > 20, "docs/troubleshooting.md has only " + out.size() + " entries");
        return out;
    }

    // ---------------------------------------------------------------- the sources

    enum Mode { PLAIN, FORMAT, LOG }

    static List<Found> scan(Path root) throws IOException {
        Map<Path, String> files = sources(root);
        Map<String, String> constants = new HashMap<>();
        Map<Path, Map<String, String>> local = new HashMap<>();
        Pattern constant = Pattern.compile("static\\s+final\\s+String\\s+([A-Z][A-Z0-9_]*)\\s*=\\s*"
                + "((?:\"(?:[^\"\\\\]|\\\\.)*\"\\s*\\+?\\s*)+);");
        for (Map.Entry<Path, String> f : files.entrySet()) {
            String cls = className(f.getKey());
            Map<String, String> mine = new HashMap<>();
            Matcher m = constant.matcher(f.getValue());
            while (m.find()) {
                StringBuilder v = new StringBuilder();
                Matcher lit = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(m.group(2));
                while (lit.find()) {
                    v.append(unescape(lit.group(1)));
                }
                mine.put(m.group(1), v.toString());
                constants.put(cls + "." + m.group(1), v.toString());
            }
            local.put(f.getKey(), mine);
        }
        List<Found> out = new ArrayList<>();
        for (Map.Entry<Path, String> f : files.entrySet()) {
            Map<String, String> c = new HashMap<>(constants);
            c.putAll(local.get(f.getKey()));
            String where = root.relativize(f.getKey()).toString().replace('\\', '/');
            scanFile(f.getValue(), className(f.getKey()), c, where, out);
        }
        return out;
    }

    private static void scanFile(String st, String cls, Map<String, String> constants, String where,
            List<Found> out) {
        Matcher m = Pattern.compile("\\bnew\\s+((?:\\w+\\.)*)(\\w+)\\s*\\(").matcher(st);
        while (m.find()) {
            if (!CARRIERS.contains(m.group(2))) {
                continue;
            }
            List<String> args = args(st, m.end() - 1);
            String expr = null;
            if (m.group(2).equals("ConfigException") && args.size() >= 3) {
                expr = args.get(2);
            } else {
                for (String a : args) {
                    if (a.contains("\"")) {
                        expr = a;
                        break;
                    }
                }
            }
            add(expr, Mode.PLAIN, st, m.start(), constants, where, out);
        }
        m = Pattern.compile("\\b(?:LOG|log)\\.(?:warn|error)\\s*\\(").matcher(st);
        while (m.find()) {
            add(args(st, m.end() - 1).get(0), Mode.LOG, st, m.start(), constants, where, out);
        }
        m = Pattern.compile("\\baddErrorMessage\\s*\\(").matcher(st);
        while (m.find()) {
            add(args(st, m.end() - 1).get(0), Mode.PLAIN, st, m.start(), constants, where, out);
        }
        for (Map.Entry<Pattern, Integer> h : HELPERS.getOrDefault(cls, Map.of()).entrySet()) {
            m = h.getKey().matcher(st);
            while (m.find()) {
                String before = st.substring(Math.max(0, m.start() - 40), m.start());
                if (before.matches("(?s).*(String|void|Object|static|>)\\s+")) {
                    continue; // the helper's declaration
                }
                List<String> args = args(st, m.end() - 1);
                int i = h.getValue() < 0 ? args.size() - 1 : h.getValue();
                add(args.get(i), Mode.PLAIN, st, m.start(), constants, where, out);
            }
        }
        m = Pattern.compile("(?<![\\w.])(" + VARIABLES + ")\\s*=(?!=)").matcher(st);
        while (m.find()) {
            String before = st.substring(Math.max(0, m.start() - 40), m.start());
            if (before.matches("(?s).*(\\bString|[;{}])\\s*")) {
                add(st.substring(m.end(), statementEnd(st, m.end())), Mode.PLAIN, st, m.start(), constants, where,
                        out);
            }
        }
        m = Pattern.compile("(?<![\\w.])(" + VARIABLES + ")\\.append\\(").matcher(st);
        while (m.find()) {
            List<String> pieces = new ArrayList<>();
            int open = m.end() - 1;
            while (true) {
                int close = closing(st, open);
                String arg = st.substring(open + 1, close).trim();
                pieces.add(isLiteral(arg) ? unescape(arg.substring(1, arg.length() - 1)) : null);
                Matcher next = Pattern.compile("^\\s*\\.append\\(").matcher(st.substring(close + 1));
                if (!next.find()) {
                    break;
                }
                open = close + next.end();
            }
            found(merge(pieces), st, m.start(), where, out);
        }
        m = Pattern.compile("\\bString\\s+(\\w+)\\s*\\([^)]*\\)\\s*(?:throws[\\w\\s,.]+)?\\{").matcher(st);
        while (m.find()) {
            if (!BUILDER.matcher(m.group(1)).matches()) {
                continue;
            }
            int end = closing(st, m.end() - 1);
            Matcher r = Pattern.compile("\\breturn\\b").matcher(st.substring(m.end(), end));
            while (r.find()) {
                int from = m.end() + r.end();
                add(st.substring(from, statementEnd(st, from)), Mode.PLAIN, st, m.end() + r.start(), constants,
                        where, out);
            }
        }
    }

    private static void add(String expr, Mode mode, String st, int at, Map<String, String> constants, String where,
            List<Found> out) {
        if (expr == null) {
            return;
        }
        for (String branch : branches(expr)) {
            if (branch.contains("\"")) {
                found(template(branch, mode, constants), st, at, where, out);
            }
        }
    }

    private static void found(List<String> template, String st, int at, String where, List<Found> out) {
        String key = key(template);
        if (key.replaceAll("[^A-Za-z]", "").length() < 4) {
            return;
        }
        int line = 1;
        for (int i = 0; i < at; i++) {
            if (st.charAt(i) == '\n') {
                line++;
            }
        }
        out.add(new Found(key, text(template), where + ":" + line));
    }

    /** The key of a message template (pieces: fixed text, or null for a placeholder); see the class comment. */
    static String key(List<String> template) {
        String t = FRAME.matcher(text(template)).replaceFirst("");
        t = trim(t);
        if (t.length() > MAX_KEY) {
            int cut = t.lastIndexOf(' ', MAX_KEY);
            t = trim(t.substring(0, cut > 0 ? cut : MAX_KEY));
        }
        return t;
    }

    private static String text(List<String> template) {
        StringBuilder b = new StringBuilder();
        for (String p : template) {
            b.append(p == null ? PH : p);
        }
        return b.toString();
    }

    private static String trim(String s) {
        return s.replaceAll("^[\\s:;,.)'\"" + PH + "]+", "").replaceAll("[\\s:;,.'\"(" + PH + "]+$", "");
    }

    /** The message of one expression: its pieces, fixed text or null for a placeholder, merged. */
    static List<String> template(String expr, Mode mode, Map<String, String> constants) {
        List<String> pieces = new ArrayList<>();
        for (String op : split(expr.trim(), '+')) {
            op = op.trim();
            if (isLiteral(op)) {
                String text = unescape(op.substring(1, op.length() - 1));
                if (mode == Mode.FORMAT) {
                    Matcher f = Pattern.compile("%(?:\\d+\\$)?[-#+ 0,(<]*\\d*(?:\\.\\d+)?[a-zA-Z%]").matcher(text);
                    int pos = 0;
                    while (f.find()) {
                        pieces.add(text.substring(pos, f.start()));
                        pieces.add(f.group().equals("%%") ? "%" : null);
                        pos = f.end();
                    }
                    pieces.add(text.substring(pos));
                } else if (mode == Mode.LOG) {
                    String[] bits = text.split("\\{\\}", -1);
                    for (int i = 0; i < bits.length; i++) {
                        if (i > 0) {
                            pieces.add(null);
                        }
                        pieces.add(bits[i]);
                    }
                } else {
                    pieces.add(text);
                }
                continue;
            }
            Matcher c = Pattern.compile("^((?:\\w+\\.)*)([A-Z][A-Z0-9_]*)$").matcher(op);
            if (c.matches()) {
                String[] segs = c.group(1).split("\\.");
                String qualifier = c.group(1).isEmpty() ? "" : segs[segs.length - 1] + ".";
                String v = constants.get(qualifier + c.group(2));
                if (v != null) {
                    pieces.add(v);
                    continue;
                }
            }
            if (op.matches("(?s)String\\.format\\s*\\(.*") && closing(op, op.indexOf('(')) == op.length() - 1) {
                for (String a : args(op, op.indexOf('('))) {
                    if (a.contains("\"")) {
                        pieces.addAll(template(a, Mode.FORMAT, constants));
                        break;
                    }
                }
                continue;
            }
            pieces.add(null);
        }
        return merge(pieces);
    }

    private static List<String> merge(List<String> pieces) {
        List<String> out = new ArrayList<>();
        for (String p : pieces) {
            String last = out.isEmpty() ? "" : out.get(out.size() - 1);
            if (p == null) {
                if (out.isEmpty() || last != null) {
                    out.add(null);
                }
            } else if (!out.isEmpty() && last != null) {
                out.set(out.size() - 1, last + p);
            } else {
                out.add(p);
            }
        }
        return out;
    }

    /** The branches of a top-level {@code c ? a : b} (recursively), or the expression itself. */
    static List<String> branches(String e) {
        int[] question = {-1};
        int[] nested = {0};
        int colon = scan(e, 0, (j, depth) -> {
            char c = e.charAt(j);
            if (depth != 0) {
                return false;
            } else if (c == '?') {
                if (question[0] < 0) {
                    question[0] = j;
                } else {
                    nested[0]++;
                }
            } else if (c == ':' && question[0] >= 0 && e.charAt(j - 1) != ':'
                    && (j + 1 >= e.length() || e.charAt(j + 1) != ':')) {
                if (nested[0] == 0) {
                    return true;
                }
                nested[0]--;
            }
            return false;
        });
        if (colon < 0) {
            return List.of(e);
        }
        List<String> out = new ArrayList<>(branches(e.substring(question[0] + 1, colon)));
        out.addAll(branches(e.substring(colon + 1)));
        return out;
    }

    /** The top-level arguments of the call whose '(' is at {@code open}. */
    static List<String> args(String s, int open) {
        return split(s.substring(open + 1, closing(s, open)), ',');
    }

    /** {@code s} split at {@code sep} outside literals and brackets. */
    static List<String> split(String s, char sep) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int j; (j = scan(s, start, (i, depth) -> depth == 0 && s.charAt(i) == sep)) >= 0; start = j + 1) {
            out.add(s.substring(start, j));
        }
        out.add(s.substring(start));
        return out;
    }

    /** The index of the bracket that closes the one at {@code open}. */
    static int closing(String s, int open) {
        int j = scan(s, open, (i, depth) -> depth == 0 && ")]}".indexOf(s.charAt(i)) >= 0);
        if (j < 0) {
            throw new IllegalStateException("unbalanced brackets from " + s.substring(open, Math.min(s.length(),
                    open + 80)));
        }
        return j;
    }

    /** The index of the ';' that ends the statement going on at {@code from}. */
    static int statementEnd(String s, int from) {
        int j = scan(s, from, (i, depth) -> depth == 0 && s.charAt(i) == ';');
        return j < 0 ? s.length() : j;
    }

    /** What {@link #scan} asks of each character: stop here? */
    interface Stop {
        boolean at(int index, int depth);
    }

    /**
     * Walks {@code s} from {@code from}, skipping string and char literals and counting bracket depth (a bracket
     * counts at the depth it opens or closes to), and returns the first index where {@code stop} holds, or -1.
     */
    static int scan(String s, int from, Stop stop) {
        int depth = 0;
        for (int j = from; j < s.length(); j++) {
            char c = s.charAt(j);
            if (c == '"' || c == '\'') {
                j = literalEnd(s, j);
                continue;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            }
            if (stop.at(j, depth)) {
                return j;
            }
        }
        return -1;
    }

    /** The index of the quote that closes the literal opened at {@code start}. */
    static int literalEnd(String s, int start) {
        char q = s.charAt(start);
        int j = start + 1;
        while (s.charAt(j) != q) {
            j += s.charAt(j) == '\\' ? 2 : 1;
        }
        return j;
    }

    private static boolean isLiteral(String op) {
        return op.length() >= 2 && op.charAt(0) == '"' && literalEnd(op, 0) == op.length() - 1;
    }

    static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                b.append(c);
                continue;
            }
            char n = s.charAt(++i);
            switch (n) {
                case 'n':
                    b.append('\n');
                    break;
                case 't':
                    b.append('\t');
                    break;
                case 'r':
                    b.append('\r');
                    break;
                case 'u':
                    b.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                    i += 4;
                    break;
                default:
                    b.append(n); // \" \' \\
            }
        }
        return b.toString();
    }

    /** The string literals of the sources, unescaped. */
    static List<String> literals(Path root) throws IOException {
        List<String> out = new ArrayList<>();
        Pattern lit = Pattern.compile("\"((?:[^\"\\\\\\n]|\\\\.)*)\"");
        for (String st : sources(root).values()) {
            Matcher m = lit.matcher(st);
            while (m.find()) {
                out.add(unescape(m.group(1)));
            }
        }
        return out;
    }

    /** The sources under {@code root}, each with its comments blanked out (line numbers kept). */
    static Map<Path, String> sources(Path root) throws IOException {
        Map<Path, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s.filter(f -> f.toString().endsWith(".java"))::iterator) {
                out.put(p, withoutComments(new String(Files.readAllBytes(p), StandardCharsets.UTF_8)));
            }
        }
        return out;
    }

    static String withoutComments(String src) {
        char[] out = src.toCharArray();
        int i = 0;
        while (i < src.length()) {
            char c = src.charAt(i);
            if (c == '"' || c == '\'') {
                i = literalEnd(src, i) + 1;
            } else if (src.startsWith("//", i)) {
                int j = src.indexOf('\n', i);
                j = j < 0 ? src.length() : j;
                Arrays.fill(out, i, j, ' ');
                i = j;
            } else if (src.startsWith("/*", i)) {
                int j = src.indexOf("*/", i) + 2;
                for (int k = i; k < j; k++) {
                    if (out[k] != '\n') {
                        out[k] = ' ';
                    }
                }
                i = j;
            } else {
                i++;
            }
        }
        return new String(out);
    }

    private static String className(Path p) {
        String n = p.getFileName().toString();
        return n.substring(0, n.length() - ".java".length());
    }
}
