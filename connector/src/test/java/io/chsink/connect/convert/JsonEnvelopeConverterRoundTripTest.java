package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.junit.jupiter.api.Test;

/**
 * Envelopes that JsonConverter itself writes (decimal.format BASE64 and NUMERIC) for random values of a schema with
 * every Connect type, optional and required, with defaults, nested structs, arrays and both map encodings: the fast
 * path reads every one of them (no fallback) into exactly what JsonConverter reads.
 */
class JsonEnvelopeConverterRoundTripTest {
    static final Schema DECIMAL = Decimal.builder(3).optional().build();
    static final Schema INNER = SchemaBuilder.struct().name("inner").optional()
            .field("s", Schema.OPTIONAL_STRING_SCHEMA)
            .field("d", DECIMAL)
            .build();
    static final Schema SCHEMA = SchemaBuilder.struct().name("all").version(2).doc("every type")
            .field("b", Schema.BOOLEAN_SCHEMA)
            .field("i8", Schema.INT8_SCHEMA)
            .field("i16", Schema.OPTIONAL_INT16_SCHEMA)
            .field("i32", SchemaBuilder.int32().defaultValue(-1).build())
            .field("i64", Schema.INT64_SCHEMA)
            .field("f32", Schema.OPTIONAL_FLOAT32_SCHEMA)
            .field("f64", Schema.FLOAT64_SCHEMA)
            .field("s", SchemaBuilder.string().optional().defaultValue("none").build())
            .field("bytes", Schema.OPTIONAL_BYTES_SCHEMA)
            .field("dec", Decimal.builder(2).parameter("connect.decimal.precision", "10").build())
            .field("date", Date.builder().optional().build())
            .field("time", Time.SCHEMA)
            .field("ts", Timestamp.builder().optional().build())
            .field("inner", INNER)
            .field("list", SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).optional().build())
            .field("structs", SchemaBuilder.array(INNER).build())
            .field("byName", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_FLOAT64_SCHEMA).build())
            .field("byId", SchemaBuilder.map(Schema.INT32_SCHEMA, INNER).optional().build())
            .field("byBytes", SchemaBuilder.map(Schema.BYTES_SCHEMA, Schema.STRING_SCHEMA).optional().build())
            .build();

    static Struct value(Random r) {
        Struct v = new Struct(SCHEMA)
                .put("b", r.nextBoolean())
                .put("i8", (byte) r.nextInt())
                .put("i16", r.nextBoolean() ? null : (short) r.nextInt())
                .put("i32", r.nextInt())
                .put("i64", r.nextLong())
                .put("f32", r.nextBoolean() ? null : (float) (r.nextGaussian() * Math.pow(10, r.nextInt(60) - 30)))
                .put("f64", r.nextGaussian() * Math.pow(10, r.nextInt(600) - 300))
                .put("s", r.nextBoolean() ? null : text(r))
                .put("bytes", r.nextBoolean() ? null : bytes(r))
                .put("dec", BigDecimal.valueOf(r.nextLong() % 10_000_000_000L, 2))
                .put("date", r.nextBoolean() ? null : new java.util.Date((r.nextInt(40_000) - 20_000) * 86_400_000L))
                .put("time", new java.util.Date(r.nextInt(86_400_000)))
                .put("ts", r.nextBoolean() ? null : new java.util.Date(r.nextLong() % 10_000_000_000_000L))
                .put("inner", r.nextBoolean() ? null : inner(r))
                .put("list", r.nextBoolean() ? null : Arrays.asList(r.nextLong(), null, (long) r.nextInt()))
                .put("structs", List.of(inner(r), inner(r)));
        Map<String, Double> byName = new HashMap<>();
        byName.put(text(r), r.nextDouble());
        byName.put("null", null);
        v.put("byName", byName);
        if (r.nextBoolean()) {
            v.put("byId", Map.of(r.nextInt(), inner(r), 7, inner(r)));
        }
        if (r.nextBoolean()) {
            v.put("byBytes", Map.of(bytes(r), text(r)));
        }
        return v;
    }

    static Struct inner(Random r) {
        return new Struct(INNER).put("s", r.nextBoolean() ? null : text(r))
                .put("d", r.nextBoolean() ? null : BigDecimal.valueOf(r.nextLong(), 3));
    }

    static String text(Random r) {
        String[] parts = {"a", "\u00e9", "\"", "\\", "\n", "\u65e5\u672c", "\ud83d\ude00", " ", "\u0001", "z9"};
        StringBuilder sb = new StringBuilder();
        for (int i = r.nextInt(12); i > 0; i--) {
            sb.append(parts[r.nextInt(parts.length)]);
        }
        return sb.toString();
    }

    static byte[] bytes(Random r) {
        byte[] b = new byte[r.nextInt(20)];
        r.nextBytes(b);
        return b;
    }

    @Test
    void readsWhatJsonConverterWritesWithoutFallingBack() {
        for (String format : new String[] {"BASE64", "NUMERIC"}) {
            for (boolean replace : new boolean[] {true, false}) {
                ConverterPair pair = ConverterPair.of(true, replace, format);
                Random r = new Random(42);
                List<String> written = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    written.add(new String(pair.reference.fromConnectData("t", SCHEMA, value(r)), StandardCharsets.UTF_8));
                }
                for (String json : written) {
                    pair.assertSameResult(json);
                }
                assertEquals(0, pair.fast.fallbacks(), format + " " + replace);
                assertEquals(1, pair.fast.cachedSchemas());
            }
        }
    }
}
