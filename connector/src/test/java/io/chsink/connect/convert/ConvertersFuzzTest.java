package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import io.chsink.connect.convert.avro.AvroConverter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the two converters that parse untrusted bytes with their own code, JsonEnvelopeConverter (envelope and
 * schemaless) and AvroConverter (Confluent wire format, writer schemas served by a local HTTP stand-in of the
 * registry, as in AvroConverterTest). Inputs are mutations of valid records (bit flips, byte inserts and deletes,
 * splices of two records, truncations at every length), and crafted ones: JSON nested 10^5 deep, numbers with huge
 * exponents or 10^6 digits, invalid UTF-8; for Avro writer schemas served by id that differ from what the bytes were
 * written with, unknown ids, wrong magic bytes, declared lengths and block counts near Integer.MAX_VALUE and
 * Long.MAX_VALUE, negative ones, recursive and deeply nested schemas.
 *
 * <p>The property, for every input: the converter returns a value or throws a DataException whose message says what
 * was wrong (AvroConverter's names the topic); never another exception or error, never longer than
 * {@value #HANG_MS} ms (a liveness bound: a "hang"), never allocating more than {@link #allocationBound} bytes.
 *
 * <p>Each input is made from its own Random(seed, index), so a failure prints the seed and index that remake it.
 * The normal test run does every truncation of the valid records, {@value #SHORT_FIXED_INPUTS} inputs of a fixed
 * seed and {@value #SHORT_BUDGET_MS} ms of a time-derived seed per converter (about 14 s each); a long run is
 * {@code mvn -B -pl connector test -Dtest=ConvertersFuzzTest -Dchsink.fuzz.inputs=5000000} (inputs per converter,
 * -Dchsink.fuzz.seed=S to repeat a seed); one input: {@code -Dchsink.fuzz.seed=S -Dchsink.fuzz.index=I}. How to
 * run it and what it found: docs/development.md, "Fuzzing the converters".
 */
class ConvertersFuzzTest {
    static final long FIXED_SEED = 0x2026_1204_F022L;
    static final long HANG_MS = 5_000;
    /** Inputs per converter for a long run; 0: the short run. */
    static final long INPUTS = Long.getLong("chsink.fuzz.inputs", 0);
    static final Long ONLY_SEED = Long.getLong("chsink.fuzz.seed");
    static final long ONLY_INDEX = Long.getLong("chsink.fuzz.index", -1);
    /** Short run: inputs of the fixed seed, then the time-derived seed for the rest of the budget. */
    static final int SHORT_FIXED_INPUTS = 8_000;
    static final long SHORT_BUDGET_MS = 4_000;
    static final String TOPIC = "fuzz-topic";

    private static final AtomicInteger TOTAL_TRIED = new AtomicInteger();
    private static final AtomicInteger TOTAL_FAILED = new AtomicInteger();

    @AfterAll
    static void total() {
        System.out.println("fuzz: " + TOTAL_TRIED.get() + " inputs tried, " + TOTAL_FAILED.get() + " failures");
    }

    // ---------------------------------------------------------------------------------------------- the harness

    /** What one input did: null if the property held, else why not. */
    interface Target {
        String check(byte[] input) throws Exception;
    }

    /** Makes input number {@code index} from its own Random. */
    interface Maker {
        Input make(Random r, long index);
    }

    /** An input and the converter (target) it is for. */
    static final class Input {
        final String what;
        final byte[] bytes;
        final Target target;

        Input(String what, byte[] bytes, Target target) {
            this.what = what;
            this.bytes = bytes;
            this.target = target;
        }
    }

    /** Runs inputs in one worker thread, each bounded in time and in the bytes its thread allocates. */
    static final class Runner implements AutoCloseable {
        private final String name;
        private ExecutorService worker;
        int tried;
        int failed;
        final List<String> samples = new ArrayList<>();
        /** Failures by their first line (exception and message start): how many, and the first seed and index. */
        final Map<String, String> kinds = new java.util.TreeMap<>();

        Runner(String name) {
            this.name = name;
            worker = newWorker();
        }

        private static ExecutorService newWorker() {
            return Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(null, r, "fuzz-worker", 0);
                t.setDaemon(true);
                return t;
            });
        }

        void run(long seed, long index, Input in) {
            tried++;
            TOTAL_TRIED.incrementAndGet();
            Future<String> f = worker.submit(() -> {
                com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
                long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
                String why;
                try {
                    why = in.target.check(in.bytes);
                } catch (Throwable t) { // an Error too: StackOverflowError, OutOfMemoryError
                    why = "threw " + t + at(t);
                }
                long used = mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
                if (why == null && used > allocationBound(in.bytes.length)) {
                    why = "allocated " + used + " bytes for an input of " + in.bytes.length;
                }
                return why;
            });
            String why;
            try {
                why = f.get(HANG_MS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                why = "hang: no answer in " + HANG_MS + " ms";
                f.cancel(true);
                worker.shutdownNow();
                worker = newWorker(); // the stuck thread is a daemon; the rest go on
            } catch (ExecutionException e) {
                why = "harness: " + e.getCause();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            if (why != null) {
                failed++;
                TOTAL_FAILED.incrementAndGet();
                String kind = why.split("\n")[0].replaceAll("[0-9]+", "N");
                kind = kind.substring(0, Math.min(kind.length(), 140));
                boolean fresh = !kinds.containsKey(kind);
                kinds.merge(kind, "1 (first: seed=" + seed + " index=" + index + ")", (a, b) -> {
                    int n = Integer.parseInt(a.substring(0, a.indexOf(' ')));
                    return (n + 1) + a.substring(a.indexOf(' '));
                });
                if ((fresh && samples.size() < 100) || samples.size() < 10) {
                    String s = name + " seed=" + seed + " index=" + index + " (" + in.what + ", " + in.bytes.length
                            + " bytes: " + preview(in.bytes) + "): " + why;
                    samples.add(s);
                    System.out.println("fuzz failure: " + s + "\n  remake it: -Dtest=ConvertersFuzzTest -Dchsink.fuzz.seed="
                            + seed + " -Dchsink.fuzz.index=" + index);
                }
            }
        }

        /** Runs the inputs of one seed: count of them, or until the deadline (count 0). */
        void runSeed(long seed, long count, long deadlineNanos, Maker maker) {
            for (long i = 0; count > 0 ? i < count : System.nanoTime() < deadlineNanos; i++) {
                Random r = new Random(seed * 0x9E3779B97F4A7C15L + i);
                run(seed, i, maker.make(r, i));
            }
        }

        @Override
        public void close() {
            worker.shutdownNow();
        }

        /** The short run, a long run or one input, as the system properties say; asserts no failures. */
        void fuzz(Maker maker) {
            long timeSeed = System.currentTimeMillis();
            if (ONLY_SEED != null && ONLY_INDEX >= 0) {
                Random r = new Random(ONLY_SEED * 0x9E3779B97F4A7C15L + ONLY_INDEX);
                Input in = maker.make(r, ONLY_INDEX);
                System.out.println("fuzz: input " + ONLY_INDEX + " of seed " + ONLY_SEED + ": " + in.what + ", "
                        + preview(in.bytes));
                run(ONLY_SEED, ONLY_INDEX, in);
            } else if (ONLY_SEED != null || INPUTS > 0) {
                long seed = ONLY_SEED != null ? ONLY_SEED : timeSeed;
                long count = INPUTS > 0 ? INPUTS : SHORT_FIXED_INPUTS;
                System.out.println("fuzz " + name + ": " + count + " inputs of seed " + seed);
                long start = System.nanoTime();
                long step = Math.max(1, count / 20);
                for (long from = 0; from < count; from += step) {
                    long n = Math.min(step, count - from);
                    for (long i = from; i < from + n; i++) {
                        Random r = new Random(seed * 0x9E3779B97F4A7C15L + i);
                        run(seed, i, maker.make(r, i));
                    }
                    if (INPUTS > 0) {
                        System.out.println("fuzz " + name + ": " + (from + n) + " inputs, " + failed + " failures, "
                                + (System.nanoTime() - start) / 1_000_000_000L + " s");
                    }
                }
            } else {
                System.out.println("fuzz " + name + ": seeds " + FIXED_SEED + " (fixed, " + SHORT_FIXED_INPUTS
                        + " inputs) and " + timeSeed + " (time-derived, " + SHORT_BUDGET_MS / 1000 + " s)");
                runSeed(FIXED_SEED, SHORT_FIXED_INPUTS, 0, maker);
                runSeed(timeSeed, 0, System.nanoTime() + SHORT_BUDGET_MS * 1_000_000L, maker);
            }
            System.out.println("fuzz " + name + ": " + tried + " inputs tried, " + failed + " failures");
            kinds.forEach((k, v) -> System.out.println("fuzz " + name + " failure kind: " + k + ": " + v));
            assertEquals(0, failed, name + ": " + failed + " of " + tried + " inputs broke the property, e.g.\n"
                    + String.join("\n", samples));
        }
    }

    /** Generous: what reading a record may allocate (a huge declared length must not be allocated). */
    static long allocationBound(int inputLength) {
        return 256L * 1024 * 1024 + 512L * inputLength;
    }

    static String at(Throwable t) {
        StackTraceElement[] st = t.getStackTrace();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Math.min(st.length, 6); i++) {
            b.append("\n    at ").append(st[i]);
        }
        if (t instanceof StackOverflowError) { // where the recursion started
            for (int i = Math.max(6, st.length - 40); i < st.length; i++) {
                if (!st[i].getClassName().startsWith("java.") && !st[i].getClassName().contains("ConvertersFuzzTest")) {
                    b.append("\n    from ").append(st[i]);
                }
            }
        }
        return b.toString();
    }

    static String preview(byte[] b) {
        int n = Math.min(b.length, 160);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int c = b[i] & 0xFF;
            if (c >= 0x20 && c < 0x7F && c != '\\') {
                s.append((char) c);
            } else {
                s.append(String.format("\\x%02x", c));
            }
        }
        return n < b.length ? s + "..." : s.toString();
    }

    /** The property: a value, or a DataException with a message that says something (and names mustName). */
    static String property(Callable<Object> convert, String mustName) throws Exception {
        try {
            convert.call();
            return null;
        } catch (DataException e) {
            String m = e.getMessage();
            if (m == null || m.trim().length() < 10) {
                return "a DataException without a reason: " + e + at(e);
            }
            if (mustName != null && !m.contains(mustName)) {
                return "a DataException that does not name " + mustName + ": " + m;
            }
            return null;
        }
    }

    // ------------------------------------------------------------------------------------------------ mutations

    static final byte[] INTERESTING = {0, 1, '"', '\\', '{', '}', '[', ']', ',', ':', '-', '+', '.', 'e', 'E', '0',
        '9', 'n', 't', 'f', ' ', (byte) 0x7F, (byte) 0x80, (byte) 0xBF, (byte) 0xC0, (byte) 0xC3, (byte) 0xED,
        (byte) 0xF0, (byte) 0xF4, (byte) 0xF8, (byte) 0xFF};

    /** One to four byte-level mutations: bit flip, byte set, insert, delete, duplicate or move a range. */
    static byte[] mutate(Random r, byte[] in) {
        byte[] b = in;
        int ops = 1 + r.nextInt(4);
        for (int k = 0; k < ops; k++) {
            int op = r.nextInt(7);
            if (b.length == 0) {
                op = 2;
            }
            int at = b.length == 0 ? 0 : r.nextInt(b.length);
            switch (op) {
                case 0: // bit flip
                    b = b.clone();
                    b[at] ^= (byte) (1 << r.nextInt(8));
                    break;
                case 1: // interesting byte
                    b = b.clone();
                    b[at] = INTERESTING[r.nextInt(INTERESTING.length)];
                    break;
                case 2: { // insert bytes
                    int n = 1 + r.nextInt(r.nextBoolean() ? 2 : 8);
                    byte[] ins = new byte[n];
                    for (int i = 0; i < n; i++) {
                        ins[i] = r.nextBoolean() ? INTERESTING[r.nextInt(INTERESTING.length)] : (byte) r.nextInt(256);
                    }
                    b = insert(b, Math.min(at + r.nextInt(2), b.length), ins);
                    break;
                }
                case 3: { // delete a range
                    int n = 1 + r.nextInt(Math.min(8, b.length - at));
                    b = concat(Arrays.copyOfRange(b, 0, at), Arrays.copyOfRange(b, at + n, b.length));
                    break;
                }
                case 4: { // duplicate a range
                    int n = 1 + r.nextInt(Math.min(16, b.length - at));
                    b = insert(b, at, Arrays.copyOfRange(b, at, at + n));
                    break;
                }
                case 5: { // copy a range over another place
                    b = b.clone();
                    int n = 1 + r.nextInt(Math.min(8, b.length - at));
                    int to = r.nextInt(b.length - n + 1);
                    System.arraycopy(b.clone(), at, b, to, n);
                    break;
                }
                default: // random byte
                    b = b.clone();
                    b[at] = (byte) r.nextInt(256);
                    break;
            }
        }
        return b;
    }

    /** The start of a and the end of b, cut at random places. */
    static byte[] splice(Random r, byte[] a, byte[] b) {
        int i = r.nextInt(a.length + 1);
        int j = r.nextInt(b.length + 1);
        return concat(Arrays.copyOfRange(a, 0, i), Arrays.copyOfRange(b, j, b.length));
    }

    static byte[] insert(byte[] b, int at, byte[] ins) {
        byte[] out = new byte[b.length + ins.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(ins, 0, out, at, ins.length);
        System.arraycopy(b, at, out, at + ins.length, b.length - at);
        return out;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String repeat(String s, int n) {
        StringBuilder b = new StringBuilder(s.length() * n);
        for (int i = 0; i < n; i++) {
            b.append(s);
        }
        return b.toString();
    }

    static <T> T pick(Random r, List<T> list) {
        return list.get(r.nextInt(list.size()));
    }

    static <T> T pick(Random r, T[] a) {
        return a[r.nextInt(a.length)];
    }

    // ------------------------------------------------------------------------------------------------------ JSON

    static final String[] JSON_TYPES = {"int8", "int16", "int32", "int64", "float", "double", "boolean", "string",
        "bytes", "array", "map", "struct", "null", "foo", ""};
    static final String[] LOGICAL = {"org.apache.kafka.connect.data.Decimal", "org.apache.kafka.connect.data.Date",
        "org.apache.kafka.connect.data.Time", "org.apache.kafka.connect.data.Timestamp", "x"};
    static final String[] NUMBERS = {"0", "-0", "1", "-1", "127", "128", "-129", "32768", "2147483647", "2147483648",
        "-2147483649", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "1.5", "-0.0", "1e308", "1e309", "-1e309", "4.9e-324", "1e-400", "1e999999999",
        "-1e999999999", "1e-999999999", "1E+2147483647", "1e-2147483648", "1e2147483648", "123.456e-789012345",
        "0.1e99999999999999999999", "00012", "1.", ".5", "1e", "--1", "NaN", "Infinity", "-Infinity", "\"NaN\"",
        "\"Infinity\"", "\"-Infinity\"", "\"AQID\"", "\"\"", "\"=\"", "true", "null", "[]", "{}"};

    static final String STRUCT_SCHEMA = "{\"type\":\"struct\",\"optional\":false,\"name\":\"row\",\"fields\":["
            + "{\"field\":\"i8\",\"type\":\"int8\",\"optional\":false},"
            + "{\"field\":\"i16\",\"type\":\"int16\",\"optional\":true},"
            + "{\"field\":\"i32\",\"type\":\"int32\",\"optional\":false,\"default\":7},"
            + "{\"field\":\"i64\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"f32\",\"type\":\"float\",\"optional\":true},"
            + "{\"field\":\"f64\",\"type\":\"double\",\"optional\":false},"
            + "{\"field\":\"b\",\"type\":\"boolean\",\"optional\":true},"
            + "{\"field\":\"s\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"by\",\"type\":\"bytes\",\"optional\":true},"
            + "{\"field\":\"dec\",\"type\":\"bytes\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Decimal\","
            + "\"version\":1,\"parameters\":{\"scale\":\"2\"}},"
            + "{\"field\":\"date\",\"type\":\"int32\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Date\"},"
            + "{\"field\":\"time\",\"type\":\"int32\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Time\"},"
            + "{\"field\":\"ts\",\"type\":\"int64\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Timestamp\"},"
            + "{\"field\":\"arr\",\"type\":\"array\",\"optional\":true,\"items\":{\"type\":\"int32\",\"optional\":true}},"
            + "{\"field\":\"ms\",\"type\":\"map\",\"optional\":true,\"keys\":{\"type\":\"string\"},\"values\":{\"type\":\"int64\"}},"
            + "{\"field\":\"mi\",\"type\":\"map\",\"optional\":true,\"keys\":{\"type\":\"int32\"},\"values\":{\"type\":\"string\"}},"
            + "{\"field\":\"in\",\"type\":\"struct\",\"optional\":true,\"fields\":[{\"field\":\"x\",\"type\":\"double\"}]}]}";
    static final String STRUCT_PAYLOAD = "{\"i8\":1,\"i16\":-300,\"i32\":70000,\"i64\":9000000000,\"f32\":1.5,"
            + "\"f64\":\"NaN\",\"b\":true,\"s\":\"h\u00e9llo \\u00e9 \\ud83d\\ude00\",\"by\":\"AQID\",\"dec\":\"AQ==\","
            + "\"date\":19000,\"time\":3600000,\"ts\":1700000000000,\"arr\":[1,null,3],\"ms\":{\"a\":1,\"b\":2},"
            + "\"mi\":[[1,\"one\"],[2,\"two\"]],\"in\":{\"x\":2.5e10}}";

    static final List<String> JSON_ENVELOPES = List.of(
            "{\"schema\":" + STRUCT_SCHEMA + ",\"payload\":" + STRUCT_PAYLOAD + "}",
            "{\"schema\":{\"type\":\"int32\",\"optional\":false},\"payload\":5}",
            "{\"schema\":{\"type\":\"int64\"},\"payload\":-12}",
            "{\"schema\":{\"type\":\"double\"},\"payload\":1.25e3}",
            "{\"schema\":{\"type\":\"string\",\"optional\":true},\"payload\":\"x\\\"y\"}",
            "{\"schema\":{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"parameters\":{\"scale\":\"3\"}},"
                    + "\"payload\":\"AeI=\"}",
            "{\"schema\":{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"parameters\":{\"scale\":\"3\"}},"
                    + "\"payload\":12.345}",
            "{\"schema\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"int16\"}}},"
                    + "\"payload\":[[1,2],[],[3]]}",
            "{\"schema\":{\"type\":\"map\",\"keys\":{\"type\":\"string\"},\"values\":{\"type\":\"boolean\"}},"
                    + "\"payload\":{\"k\":false}}",
            "{\"schema\":null,\"payload\":{\"a\":[1,2.5,\"x\",null,{\"b\":true}]}}",
            "{ \"schema\" : {\"type\":\"int8\"} , \"payload\" : 3 }",
            "{\"payload\":5,\"schema\":{\"type\":\"int32\"}}");
    static final List<String> JSON_PLAIN = List.of(
            "{\"id\":1,\"name\":\"a\\u0000b\",\"tags\":[\"x\",\"y\"],\"m\":{\"k\":[1,2,{\"z\":null}]},\"f\":-1.5e-7}",
            "[1,2,3,[4,[5,[6]]],{},[]]",
            "\"just a string \u20ac\"",
            "12345678901234567890123",
            "-0.000000000000000000001",
            "true",
            "null",
            "{\"a\":{\"b\":{\"c\":{\"d\":[true,false,null]}}}}");

    /** JSON converters: envelope (two configurations) and schemaless. */
    static final class JsonTargets {
        final List<Target> envelope = new ArrayList<>();
        final List<Target> plain = new ArrayList<>();

        JsonTargets() {
            envelope.add(json(Map.of("schemas.enable", "true")));
            envelope.add(json(Map.of("schemas.enable", "true", "replace.null.with.default", "false",
                    "decimal.format", "NUMERIC", "schemas.cache.size", "4")));
            plain.add(json(Map.of("schemas.enable", "false")));
        }

        static Target json(Map<String, String> config) {
            JsonEnvelopeConverter c = new JsonEnvelopeConverter();
            c.configure(config, false);
            return b -> property(() -> c.toConnectData(TOPIC, b), null);
        }
    }

    /** A JSON input: mostly mutations of valid records, and the crafted kinds of the class comment. */
    static Input jsonInput(JsonTargets t, Random r) {
        boolean envelope = r.nextInt(3) != 0;
        Target target = envelope ? pick(r, t.envelope) : pick(r, t.plain);
        List<String> corpus = envelope ? JSON_ENVELOPES : JSON_PLAIN;
        byte[] base = utf8(pick(r, r.nextInt(5) == 0 ? (envelope ? JSON_PLAIN : JSON_ENVELOPES) : corpus));
        int kind = r.nextInt(100);
        if (kind < 50) {
            return new Input("mutated", mutate(r, base), target);
        }
        if (kind < 60) {
            return new Input("spliced", splice(r, base, utf8(pick(r, r.nextBoolean() ? JSON_ENVELOPES : JSON_PLAIN))), target);
        }
        if (kind < 68) {
            return new Input("truncated", Arrays.copyOf(base, r.nextInt(base.length + 1)), target);
        }
        if (kind < 74) {
            return new Input("deep", deepJson(r, envelope), target);
        }
        if (kind < 84) {
            return new Input("number", numberJson(r, envelope, base), target);
        }
        if (kind < 90) {
            return new Input("bad utf-8", badUtf8(r, base), target);
        }
        return new Input("schema", randomEnvelope(r), pick(r, t.envelope));
    }

    /** Arrays, objects or both nested 10^3 to 10^5 deep, alone or as an envelope's payload or schema. */
    static byte[] deepJson(Random r, boolean envelope) {
        int depth = r.nextBoolean() ? 990 + r.nextInt(20) : r.nextBoolean() ? 100_000 : 1 + r.nextInt(5000);
        StringBuilder b = new StringBuilder(depth * 8);
        int style = r.nextInt(3);
        String[] close = new String[depth];
        for (int i = 0; i < depth; i++) {
            boolean arr = style == 0 || (style == 2 && r.nextBoolean());
            b.append(arr ? "[" : "{\"a\":");
            close[i] = arr ? "]" : "}";
        }
        b.append(r.nextBoolean() ? "1" : "null");
        if (r.nextInt(4) != 0) {
            for (int i = depth - 1; i >= 0; i--) {
                b.append(close[i]);
            }
        }
        String v = b.toString();
        if (!envelope) {
            return utf8(v);
        }
        switch (r.nextInt(3)) {
            case 0:
                return utf8("{\"schema\":{\"type\":\"array\",\"items\":{\"type\":\"int32\"}},\"payload\":" + v + "}");
            case 1:
                return utf8("{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"a\",\"type\":\"int32\"}],\"x\":" + v
                        + "},\"payload\":" + v + "}");
            default:
                StringBuilder s = new StringBuilder();
                int d = Math.min(depth, 20_000);
                for (int i = 0; i < d; i++) {
                    s.append("{\"type\":\"array\",\"items\":");
                }
                s.append("{\"type\":\"int32\"}");
                s.append(repeat("}", d));
                return utf8("{\"schema\":" + s + ",\"payload\":" + v + "}");
        }
    }

    /** A number with a huge exponent, or 10^6 digits, put where a record holds a number, or alone. */
    static byte[] numberJson(Random r, boolean envelope, byte[] base) {
        String n;
        switch (r.nextInt(4)) {
            case 0:
                n = pick(r, NUMBERS);
                break;
            case 1:
                n = (r.nextBoolean() ? "-" : "") + "1" + repeat("0", r.nextBoolean() ? 1_000_000 : 990 + r.nextInt(20));
                break;
            case 2:
                n = "0." + repeat("3", r.nextBoolean() ? 1_000_000 : 500 + r.nextInt(600)) + (r.nextBoolean() ? "e-7" : "");
                break;
            default:
                n = (r.nextInt(10) + 1) + "." + r.nextInt(1000) + "e" + (r.nextBoolean() ? "-" : "")
                        + pick(r, new String[] {"99999999", "999999999", "2147483647", "2147483648", "9999999999999",
                            "300", "20", "64", "19", "400"});
                break;
        }
        if (r.nextInt(4) == 0) {
            if (!envelope) {
                return utf8(n);
            }
            String type = pick(r, new String[] {"int8", "int16", "int32", "int64", "float", "double"});
            String name = r.nextInt(4) == 0 ? ",\"name\":\"" + pick(r, LOGICAL) + "\",\"parameters\":{\"scale\":\"2\"}" : "";
            return utf8("{\"schema\":{\"type\":\"" + type + "\"" + name + "},\"payload\":" + n + "}");
        }
        // Replace one number of the record.
        String s = new String(base, StandardCharsets.UTF_8);
        List<int[]> spans = new ArrayList<>();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c == '-' || Character.isDigit(c)) && (i == 0 || ":,[".indexOf(s.charAt(i - 1)) >= 0)) {
                int j = i + 1;
                while (j < s.length() && "0123456789.eE+-".indexOf(s.charAt(j)) >= 0) {
                    j++;
                }
                spans.add(new int[] {i, j});
            }
        }
        if (spans.isEmpty()) {
            return utf8(n);
        }
        int[] sp = pick(r, spans);
        return utf8(s.substring(0, sp[0]) + n + s.substring(sp[1]));
    }

    static final byte[][] BAD_UTF8 = {{(byte) 0x80}, {(byte) 0xC0, (byte) 0x80}, {(byte) 0xC3}, {(byte) 0xED, (byte) 0xA0,
        (byte) 0x80}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xF8, (byte) 0x88, (byte) 0x80,
        (byte) 0x80, (byte) 0x80}, {(byte) 0xFF}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0xF0, (byte) 0x9F, (byte) 0x98}};

    /** Invalid UTF-8 put inside a string of the record (after a quote), or anywhere. */
    static byte[] badUtf8(Random r, byte[] base) {
        List<Integer> quotes = new ArrayList<>();
        for (int i = 0; i < base.length; i++) {
            if (base[i] == '"') {
                quotes.add(i + 1);
            }
        }
        int at = !quotes.isEmpty() && r.nextInt(4) != 0 ? pick(r, quotes) : r.nextInt(base.length + 1);
        return insert(base, at, pick(r, BAD_UTF8));
    }

    /** An envelope of a random schema (types, logical names, parameters, defaults) and a random payload. */
    static byte[] randomEnvelope(Random r) {
        return utf8("{\"schema\":" + randomJsonSchema(r, 0) + ",\"payload\":" + randomJsonValue(r, 0) + "}");
    }

    static String randomJsonSchema(Random r, int depth) {
        StringBuilder b = new StringBuilder("{");
        String type = pick(r, JSON_TYPES);
        b.append("\"type\":\"").append(type).append('"');
        if (r.nextInt(4) == 0) {
            b.append(",\"optional\":").append(r.nextBoolean());
        }
        if (r.nextInt(4) == 0) {
            b.append(",\"name\":\"").append(pick(r, LOGICAL)).append('"');
        }
        if (r.nextInt(4) == 0) {
            b.append(",\"parameters\":{\"scale\":").append(pick(r, new String[] {"\"2\"", "\"-5\"", "\"x\"", "\"99999999999\"",
                "2", "null", "\"2147483647\""})).append('}');
        }
        if (r.nextInt(6) == 0) {
            b.append(",\"default\":").append(randomJsonValue(r, depth + 1));
        }
        if (r.nextInt(8) == 0) {
            b.append(",\"version\":").append(pick(r, NUMBERS));
        }
        if (depth < 4) {
            if ("array".equals(type) || r.nextInt(10) == 0) {
                b.append(",\"items\":").append(r.nextInt(8) == 0 ? "null" : randomJsonSchema(r, depth + 1));
            }
            if ("map".equals(type) || r.nextInt(10) == 0) {
                b.append(",\"keys\":").append(randomJsonSchema(r, depth + 1)).append(",\"values\":")
                        .append(randomJsonSchema(r, depth + 1));
            }
            if ("struct".equals(type) || r.nextInt(10) == 0) {
                b.append(",\"fields\":[");
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    String f = randomJsonSchema(r, depth + 1);
                    b.append(i > 0 ? "," : "").append("{\"field\":\"").append((char) ('a' + r.nextInt(3))).append("\",")
                            .append(f, 1, f.length());
                }
                b.append(']');
            }
        }
        return b.append('}').toString();
    }

    static String randomJsonValue(Random r, int depth) {
        int k = r.nextInt(depth > 3 ? 4 : 7);
        switch (k) {
            case 0:
                return pick(r, NUMBERS);
            case 1:
                return pick(r, new String[] {"\"\"", "\"a\"", "\"AQID\"", "\"NaN\"", "\"2024-01-01\"", "\"\\ud800\"",
                    "\"\\u0000\"", "\"====\""});
            case 2:
                return pick(r, new String[] {"true", "false", "null"});
            case 3:
                return "null";
            case 4: {
                StringBuilder b = new StringBuilder("[");
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    b.append(i > 0 ? "," : "").append(randomJsonValue(r, depth + 1));
                }
                return b.append(']').toString();
            }
            case 5: {
                StringBuilder b = new StringBuilder("[");
                int n = r.nextInt(3);
                for (int i = 0; i < n; i++) {
                    b.append(i > 0 ? "," : "").append('[').append(randomJsonValue(r, depth + 1)).append(',')
                            .append(randomJsonValue(r, depth + 1)).append(']');
                }
                return b.append(']').toString();
            }
            default: {
                StringBuilder b = new StringBuilder("{");
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    b.append(i > 0 ? "," : "").append('"').append((char) ('a' + r.nextInt(3))).append("\":")
                            .append(randomJsonValue(r, depth + 1));
                }
                return b.append('}').toString();
            }
        }
    }

    @Test
    void jsonEnvelopeConverter() {
        JsonTargets targets = new JsonTargets();
        try (Runner run = new Runner("JsonEnvelopeConverter")) {
            if (ONLY_SEED == null && INPUTS == 0) {
                // Every truncation of every record, on both paths.
                long i = 0;
                for (String s : concatLists(JSON_ENVELOPES, JSON_PLAIN)) {
                    byte[] b = utf8(s);
                    for (int len = 0; len <= b.length; len++) {
                        for (Target t : concatLists(targets.envelope, targets.plain)) {
                            run.run(-1, i++, new Input("truncated at " + len, Arrays.copyOf(b, len), t));
                        }
                    }
                }
            }
            run.fuzz((r, i) -> jsonInput(targets, r));
        }
    }

    static <T> List<T> concatLists(List<T> a, List<T> b) {
        List<T> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    // ------------------------------------------------------------------------------------------------------ Avro

    static final String INNER = "{\"type\":\"record\",\"name\":\"Inner\",\"fields\":[{\"name\":\"x\",\"type\":\"long\"},"
            + "{\"name\":\"y\",\"type\":[\"null\",\"double\"],\"default\":null}]}";
    static final List<String> AVRO_SCHEMAS = List.of(
            "{\"type\":\"record\",\"name\":\"Row\",\"namespace\":\"t\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"},"
                    + "{\"name\":\"name\",\"type\":\"string\"}]}",
            "{\"type\":\"record\",\"name\":\"All\",\"namespace\":\"t\",\"doc\":\"all types\",\"fields\":["
                    + "{\"name\":\"b\",\"type\":\"boolean\"},{\"name\":\"i\",\"type\":\"int\",\"default\":3},"
                    + "{\"name\":\"l\",\"type\":\"long\"},{\"name\":\"f\",\"type\":\"float\"},{\"name\":\"d\",\"type\":\"double\"},"
                    + "{\"name\":\"s\",\"type\":\"string\",\"doc\":\"text\"},{\"name\":\"by\",\"type\":\"bytes\"},"
                    + "{\"name\":\"fx\",\"type\":{\"type\":\"fixed\",\"name\":\"F4\",\"size\":4}},"
                    + "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\"],\"default\":\"A\"}},"
                    + "{\"name\":\"arr\",\"type\":{\"type\":\"array\",\"items\":\"int\"}},"
                    + "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"string\"}},"
                    + "{\"name\":\"opt\",\"type\":[\"null\",\"string\"],\"default\":null},"
                    + "{\"name\":\"u\",\"type\":[\"int\",\"string\"," + INNER + "]},"
                    + "{\"name\":\"inner\",\"type\":\"Inner\"},"
                    + "{\"name\":\"dec\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":10,\"scale\":2}},"
                    + "{\"name\":\"decf\",\"type\":{\"type\":\"fixed\",\"name\":\"DF\",\"size\":8,\"logicalType\":\"decimal\","
                    + "\"precision\":18,\"scale\":4}},"
                    + "{\"name\":\"date\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}},"
                    + "{\"name\":\"t\",\"type\":{\"type\":\"int\",\"logicalType\":\"time-millis\"}},"
                    + "{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
                    + "{\"name\":\"i8\",\"type\":{\"type\":\"int\",\"connect.type\":\"int8\"}},"
                    + "{\"name\":\"i16\",\"type\":{\"type\":\"int\",\"connect.type\":\"int16\"}}]}",
            "{\"type\":\"record\",\"name\":\"WithMap\",\"fields\":[{\"name\":\"m\",\"type\":{\"type\":\"array\",\"items\":"
                    + "{\"type\":\"record\",\"name\":\"MapEntry\",\"namespace\":\"io.confluent.connect.avro\",\"fields\":["
                    + "{\"name\":\"key\",\"type\":\"int\"},{\"name\":\"value\",\"type\":\"string\"}]}}}]}",
            "{\"type\":\"record\",\"name\":\"Nested\",\"fields\":[{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":"
                    + "{\"type\":\"map\",\"values\":{\"type\":\"array\",\"items\":\"long\"}}}},"
                    + "{\"name\":\"o\",\"type\":[\"null\"," + INNER + "]}]}",
            "\"string\"",
            "\"bytes\"",
            "{\"type\":\"array\",\"items\":\"int\"}",
            "{\"type\":\"map\",\"values\":\"string\"}",
            "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"Empty\",\"fields\":[]}}",
            "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"Empty\",\"fields\":[]}}}",
            "{\"type\":\"map\",\"values\":{\"type\":\"record\",\"name\":\"Empty\",\"fields\":[]}}",
            "{\"type\":\"fixed\",\"name\":\"F16\",\"size\":16}",
            "\"long\"");

    static final String[] AVRO_TYPES = {"int", "long", "float", "double", "boolean", "string", "bytes", "null"};

    /** Random datum of a writer schema, for GenericDatumWriter. */
    static Object datum(Schema s, Random r, int depth) {
        String logical = s.getProp("logicalType");
        switch (s.getType()) {
            case NULL:
                return null;
            case BOOLEAN:
                return r.nextBoolean();
            case INT:
                if ("date".equals(logical)) {
                    return r.nextInt(100_000) - 50_000;
                }
                if ("time-millis".equals(logical)) {
                    return r.nextInt(86_400_000);
                }
                return r.nextInt(4) == 0 ? r.nextInt() : r.nextInt(200) - 100;
            case LONG:
                return r.nextInt(4) == 0 ? r.nextLong() : (long) r.nextInt(2000) - 1000;
            case FLOAT:
                return r.nextFloat() * 1000 - 500;
            case DOUBLE:
                return r.nextInt(8) == 0 ? Double.NaN : r.nextGaussian() * 1e6;
            case STRING:
                return randomString(r);
            case BYTES: {
                byte[] b = new byte[("decimal".equals(logical) ? 1 : 0) + r.nextInt(12)];
                r.nextBytes(b);
                return ByteBuffer.wrap(b);
            }
            case FIXED: {
                byte[] b = new byte[s.getFixedSize()];
                r.nextBytes(b);
                return new GenericData.Fixed(s, b);
            }
            case ENUM:
                return new GenericData.EnumSymbol(s, pick(r, s.getEnumSymbols()));
            case ARRAY: {
                List<Object> l = new ArrayList<>();
                int n = depth > 3 ? 0 : r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    l.add(datum(s.getElementType(), r, depth + 1));
                }
                return l;
            }
            case MAP: {
                Map<String, Object> m = new HashMap<>();
                int n = depth > 3 ? 0 : r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    m.put(randomString(r), datum(s.getValueType(), r, depth + 1));
                }
                return m;
            }
            case UNION: {
                List<Schema> types = s.getTypes();
                return datum(depth > 3 && types.get(0).getType() == Schema.Type.NULL ? types.get(0) : pick(r, types), r, depth + 1);
            }
            case RECORD: {
                GenericData.Record rec = new GenericData.Record(s);
                for (Schema.Field f : s.getFields()) {
                    rec.put(f.pos(), datum(f.schema(), r, depth + 1));
                }
                return rec;
            }
            default:
                throw new AssertionError(s.getType());
        }
    }

    static String randomString(Random r) {
        String[] parts = {"", "a", "h\u00e9", "\u20ac", "\ud83d\ude00", "\u0000", "long text ", "\"", "\\"};
        StringBuilder b = new StringBuilder();
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
            b.append(pick(r, parts));
        }
        return b.toString();
    }

    static byte[] write(Schema schema, Object datum) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<Object>(schema, GenericData.get()).write(datum, enc);
            enc.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    static byte[] framed(int id, byte[] avro) {
        byte[] out = new byte[avro.length + 5];
        out[1] = (byte) (id >>> 24);
        out[2] = (byte) (id >>> 16);
        out[3] = (byte) (id >>> 8);
        out[4] = (byte) id;
        System.arraycopy(avro, 0, out, 5, avro.length);
        return out;
    }

    static byte[] withId(byte[] framed, int id) {
        byte[] out = framed.clone();
        out[1] = (byte) (id >>> 24);
        out[2] = (byte) (id >>> 16);
        out[3] = (byte) (id >>> 8);
        out[4] = (byte) id;
        return out;
    }

    /** Zig-zag varint of v, as Avro writes an int or long. */
    static byte[] varint(long v) {
        long n = (v << 1) ^ (v >> 63);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while ((n & ~0x7FL) != 0) {
            out.write((int) ((n & 0x7F) | 0x80));
            n >>>= 7;
        }
        out.write((int) n);
        return out.toByteArray();
    }

    static final long[] HUGE = {Integer.MAX_VALUE, Integer.MAX_VALUE - 1, Integer.MAX_VALUE - 8, Integer.MAX_VALUE + 1L,
        Integer.MIN_VALUE, -1, -2, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1,
        1L << 32, 1L << 40, 0xFFFFFFFFL, 100_000_000, 1 << 20, 65_536, 1023, 1024, 1025, 8192, -1024, -(1L << 33)};

    /** The local stand-in registry and the converters that ask it. */
    static final class AvroTargets implements AutoCloseable {
        /** id → the JSON body to answer. */
        final Map<Integer, String> bodies = new ConcurrentHashMap<>();
        final HttpServer server;
        final String url;
        final List<byte[]> corpus = new ArrayList<>();
        /** Corpus index → base schema index. */
        final List<Integer> baseOf = new ArrayList<>();
        AvroConverter converter;
        AvroConverter keys;
        int nextId = 1000;
        int sinceNew;

        AvroTargets() throws IOException {
            // Without it each answer waits for a delayed ACK (about 40 ms) where this JVM made no HttpServer before.
            System.setProperty("sun.net.httpserver.nodelay", "true");
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
            server.createContext("/", x -> {
                String path = x.getRequestURI().getPath();
                String body = null;
                if (path.startsWith("/schemas/ids/")) {
                    try {
                        body = bodies.get(Integer.parseInt(path.substring(13)));
                    } catch (NumberFormatException e) {
                        body = null;
                    }
                }
                int status = body == null ? 404 : 200;
                if (body == null) {
                    body = "{\"error_code\":40403,\"message\":\"Schema not found\"}";
                }
                byte[] b = utf8(body);
                x.sendResponseHeaders(status, b.length);
                try (OutputStream out = x.getResponseBody()) {
                    out.write(b);
                }
            });
            server.start();
            url = "http://127.0.0.1:" + server.getAddress().getPort();
            Random r = new Random(FIXED_SEED);
            for (int s = 0; s < AVRO_SCHEMAS.size(); s++) {
                bodies.put(s + 1, schemaBody(AVRO_SCHEMAS.get(s)));
                Schema schema = new Schema.Parser().parse(AVRO_SCHEMAS.get(s));
                for (int k = 0; k < 12; k++) {
                    corpus.add(framed(s + 1, write(schema, datum(schema, r, 0))));
                    baseOf.add(s);
                }
            }
            renew();
        }

        /** New converters (empty caches); the mutated schemas served so far are forgotten. */
        void renew() {
            bodies.keySet().removeIf(id -> id >= 1000);
            Map<String, Object> config = new HashMap<>();
            config.put("schema.registry.url", url);
            config.put("retries.wait.ms", "1");
            config.put("max.retries", "0");
            converter = new AvroConverter();
            converter.configure(config, false);
            keys = new AvroConverter();
            keys.configure(config, true);
            sinceNew = 0;
        }

        /** Serves a schema under a new id. */
        int serve(String schemaJson) {
            if (++sinceNew > 300) {
                renew();
            }
            int id = nextId++;
            bodies.put(id, schemaBody(schemaJson));
            return id;
        }

        Target target(Random r) {
            AvroConverter c = r.nextInt(8) == 0 ? keys : converter;
            return b -> property(() -> c.toConnectData(TOPIC, b), "topic " + TOPIC);
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    static String schemaBody(String schema) {
        return "{\"schema\":\"" + schema.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
    }

    /** An Avro input: mostly mutations of valid records, and the crafted kinds of the class comment. */
    static Input avroInput(AvroTargets t, Random r) {
        int c = r.nextInt(t.corpus.size());
        byte[] base = t.corpus.get(c);
        int kind = r.nextInt(100);
        if (kind < 35) {
            byte[] body = mutate(r, Arrays.copyOfRange(base, 5, base.length));
            byte[] m = r.nextInt(10) == 0 ? mutate(r, base) : concat(Arrays.copyOf(base, 5), body);
            return new Input("mutated", m, t.target(r));
        }
        if (kind < 43) {
            byte[] other = t.corpus.get(r.nextInt(t.corpus.size()));
            return new Input("spliced", concat(Arrays.copyOf(base, 5), splice(r, Arrays.copyOfRange(base, 5, base.length),
                    Arrays.copyOfRange(other, 5, other.length))), t.target(r));
        }
        if (kind < 50) {
            return new Input("truncated", Arrays.copyOf(base, r.nextInt(base.length + 1)), t.target(r));
        }
        if (kind < 58) { // a header that lies: another schema's id, an unknown id, a wrong magic byte
            byte[] b;
            switch (r.nextInt(3)) {
                case 0:
                    b = withId(base, 1 + r.nextInt(AVRO_SCHEMAS.size()));
                    break;
                case 1:
                    b = withId(base, pick(r, new int[][] {{0}, {-1}, {Integer.MAX_VALUE}, {999}, {1 << 24}})[0]);
                    break;
                default:
                    b = base.clone();
                    b[0] = (byte) (1 + r.nextInt(255));
                    break;
            }
            return new Input("header", b, t.target(r));
        }
        if (kind < 70) { // a huge or negative length or block count, in place of bytes of a record or of a crafted one
            long v = r.nextInt(4) == 0 ? r.nextLong() : HUGE[r.nextInt(HUGE.length)];
            byte[] body = Arrays.copyOfRange(base, 5, base.length);
            int at = r.nextInt(body.length + 1);
            byte[] b;
            if (r.nextBoolean()) {
                int drop = Math.min(body.length - at, r.nextInt(3));
                b = concat(concat(Arrays.copyOf(body, at), varint(v)), Arrays.copyOfRange(body, at + drop, body.length));
            } else {
                b = concat(varint(v), r.nextBoolean() ? varint(HUGE[r.nextInt(HUGE.length)]) : new byte[] {2, 'a', 0});
            }
            return new Input("huge length " + v, concat(Arrays.copyOf(base, 5), b), t.target(r));
        }
        if (kind < 86) { // the bytes read with a mutated writer schema
            String schema = mutateSchema(r, AVRO_SCHEMAS.get(t.baseOf.get(c)));
            int id = t.serve(schema);
            byte[] b = withId(base, id);
            if (r.nextInt(4) == 0) {
                b = concat(Arrays.copyOf(b, 5), mutate(r, Arrays.copyOfRange(b, 5, b.length)));
            }
            return new Input("schema " + schema.substring(0, Math.min(200, schema.length())), b, t.target(r));
        }
        if (kind < 93) { // recursive or deeply nested writer schemas
            String schema = deepSchema(r);
            int id = t.serve(schema);
            byte[] body = new byte[r.nextInt(64)];
            for (int i = 0; i < body.length; i++) {
                body[i] = r.nextInt(3) == 0 ? (byte) r.nextInt(256) : (byte) (2 * r.nextInt(3));
            }
            return new Input("deep schema " + schema.substring(0, Math.min(120, schema.length())),
                    framed(id, body), t.target(r));
        }
        if (kind < 95) { // many blocks of empty records: few bytes that declare billions of values
            int s = 8 + r.nextInt(3);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int size = r.nextBoolean() ? 1 + r.nextInt(1000) : 20_000 + r.nextInt(200_000);
            long count = r.nextBoolean() ? 1 + r.nextInt(1 << 20) : pick(r, new long[][] {{1024}, {8 * 1024}, {400_000},
                {Integer.MAX_VALUE - 9}})[0];
            byte[] block = varint(count);
            byte[] inner = s == 9 ? concat(varint(count), new byte[] {0}) : s == 10 ? new byte[] {2, 'k'} : new byte[0];
            while (out.size() < size) {
                out.write(block, 0, block.length);
                for (int i = 0; i < (s == 8 ? 0 : 1); i++) {
                    out.write(inner, 0, inner.length);
                }
            }
            out.write(0);
            return new Input("empty-record blocks of " + count, framed(s + 1, out.toByteArray()), t.target(r));
        }
        // Crafted records of the small schemas: strings, bytes, arrays, maps, empty records, with lying counts.
        int s = 4 + r.nextInt(AVRO_SCHEMAS.size() - 4);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int parts = 1 + r.nextInt(6);
        for (int i = 0; i < parts; i++) {
            long v = r.nextBoolean() ? HUGE[r.nextInt(HUGE.length)] : r.nextInt(10) - 3;
            byte[] vb = varint(v);
            out.write(vb, 0, vb.length);
            if (r.nextBoolean()) {
                byte[] junk = new byte[r.nextInt(20)];
                r.nextBytes(junk);
                out.write(junk, 0, junk.length);
            }
        }
        return new Input("crafted", framed(s + 1, out.toByteArray()), t.target(r));
    }

    static final String[] SCHEMA_SWAPS = {"\"int\"", "\"long\"", "\"float\"", "\"double\"", "\"boolean\"", "\"string\"",
        "\"bytes\"", "\"null\"", "\"record\"", "\"enum\"", "\"fixed\"", "\"array\"", "\"map\"", "\"decimal\"",
        "\"date\"", "\"time-millis\"", "\"timestamp-millis\"", "\"int8\"", "\"int16\"", "[\"null\",\"int\"]",
        "[\"int\",\"long\",\"string\"]", "[\"string\"]", "[]", "{\"type\":\"fixed\",\"name\":\"Z\",\"size\":0}",
        "{\"type\":\"fixed\",\"name\":\"Z\",\"size\":2147483647}",
        "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":2147483647,\"scale\":-2147483648}",
        "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":\"x\",\"scale\":99999}",
        "{\"type\":\"int\",\"connect.type\":\"int64\"}", "{\"type\":\"int\",\"connect.version\":\"x\"}",
        "{\"type\":\"long\",\"connect.default\":\"x\",\"connect.name\":7}",
        "{\"type\":\"string\",\"connect.parameters\":{\"a\":1}}", "{\"type\":\"string\",\"connect.parameters\":[1]}",
        "{\"type\":\"int\",\"connect.name\":\"org.apache.kafka.connect.data.Decimal\"}",
        "{\"type\":\"long\",\"connect.name\":\"org.apache.kafka.connect.data.Date\"}",
        "{\"type\":\"enum\",\"name\":\"E2\",\"symbols\":[]}",
        "{\"type\":\"record\",\"name\":\"MapEntry\",\"namespace\":\"io.confluent.connect.avro\",\"fields\":[]}",
        "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"MapEntry\",\"namespace\":\"io.confluent.connect.avro\","
            + "\"fields\":[{\"name\":\"key\",\"type\":\"string\"}]}}",
        "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"E0\",\"fields\":[]}}",
        "\"t.Row\"", "\"Inner\"", "\"All\"", "\"Unknown\""};

    /** The schema with one to three of its type words swapped, or a few bytes changed. */
    static String mutateSchema(Random r, String schema) {
        String s = schema;
        int n = 1 + r.nextInt(3);
        for (int k = 0; k < n; k++) {
            if (r.nextInt(6) == 0) {
                s = new String(mutate(r, utf8(s)), StandardCharsets.UTF_8);
                continue;
            }
            List<int[]> spans = new ArrayList<>();
            for (String w : SCHEMA_SWAPS) {
                for (int i = s.indexOf(w); i >= 0; i = s.indexOf(w, i + 1)) {
                    spans.add(new int[] {i, i + w.length()});
                }
            }
            for (int i = s.indexOf("\"size\":"); i >= 0; i = s.indexOf("\"size\":", i + 1)) {
                int j = i + 7;
                while (j < s.length() && Character.isDigit(s.charAt(j))) {
                    j++;
                }
                spans.add(new int[] {i + 7, j, 1});
            }
            if (spans.isEmpty()) {
                break;
            }
            int[] sp = pick(r, spans);
            String with = sp.length == 3 ? String.valueOf(pick(r, new long[][] {{0}, {1}, {3}, {-1}, {2147483647},
                {1 << 20}})[0]) : pick(r, SCHEMA_SWAPS);
            s = s.substring(0, sp[0]) + with + s.substring(sp[1]);
        }
        return s;
    }

    /** A recursive schema (direct, through a union, an array, a map or a MapEntry), or one nested deep. */
    static String deepSchema(Random r) {
        switch (r.nextInt(6)) {
            case 0:
                return "{\"type\":\"record\",\"name\":\"Node\",\"fields\":[{\"name\":\"v\",\"type\":\"int\"},"
                        + "{\"name\":\"next\",\"type\":[\"null\",\"Node\"]}]}";
            case 1:
                return "{\"type\":\"record\",\"name\":\"Tree\",\"fields\":[{\"name\":\"kids\",\"type\":{\"type\":\"array\","
                        + "\"items\":\"Tree\"}},{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"Tree\"}}]}";
            case 2:
                return "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"MapEntry\",\"namespace\":"
                        + "\"io.confluent.connect.avro\",\"fields\":[{\"name\":\"key\",\"type\":\"string\"},{\"name\":\"value\","
                        + "\"type\":{\"type\":\"array\",\"items\":\"io.confluent.connect.avro.MapEntry\"}}]}}";
            case 3:
                return "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"ME\",\"connect.internal.type\":\"MapEntry\","
                        + "\"fields\":[{\"name\":\"key\",\"type\":{\"type\":\"array\",\"items\":\"ME\"}},"
                        + "{\"name\":\"value\",\"type\":\"int\"}]}}";
            case 4: {
                int depth = r.nextBoolean() ? 100_000 : 100 + r.nextInt(2000);
                return repeat("{\"type\":\"array\",\"items\":", depth) + "\"int\"" + repeat("}", depth);
            }
            default: {
                int depth = r.nextBoolean() ? 50_000 : 100 + r.nextInt(1500);
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < depth; i++) {
                    b.append("{\"type\":\"record\",\"name\":\"R").append(i).append("\",\"fields\":[{\"name\":\"f\",\"type\":[\"null\",");
                }
                b.append("\"int\"");
                for (int i = 0; i < depth; i++) {
                    b.append("]}]}");
                }
                return b.toString();
            }
        }
    }

    @Test
    void avroConverter() throws IOException {
        try (AvroTargets targets = new AvroTargets(); Runner run = new Runner("AvroConverter")) {
            if (ONLY_SEED == null && INPUTS == 0) {
                // Every truncation of one record of each schema.
                long i = 0;
                for (int c = 0; c < targets.corpus.size(); c += 12) {
                    byte[] b = targets.corpus.get(c);
                    for (int len = 0; len <= b.length; len++) {
                        AvroConverter conv = targets.converter;
                        run.run(-1, i++, new Input("truncated at " + len, Arrays.copyOf(b, len),
                                in -> property(() -> conv.toConnectData(TOPIC, in), "topic " + TOPIC)));
                    }
                }
            }
            run.fuzz((r, i) -> avroInput(targets, r));
        }
    }

    /** Not a test of the converters: the corpus records decode as it was written (the mutations start from values). */
    @Test
    void avroCorpusIsValid() throws IOException {
        try (AvroTargets targets = new AvroTargets()) {
            for (byte[] b : targets.corpus) {
                targets.converter.toConnectData(TOPIC, b);
            }
        }
        for (String s : JSON_ENVELOPES) {
            JsonEnvelopeConverter c = new JsonEnvelopeConverter();
            c.configure(Map.of("schemas.enable", "true"), false);
            c.toConnectData(TOPIC, utf8(s));
        }
    }
}
