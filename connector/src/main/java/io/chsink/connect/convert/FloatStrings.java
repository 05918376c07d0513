package io.chsink.connect.convert;

/**
 * The JSON strings Kafka's JsonConverter writes for float32 and float64 values that JSON numbers cannot hold: its
 * Jackson generator quotes non-finite numbers (JsonWriteFeature.WRITE_NAN_AS_STRINGS, on by default), so NaN,
 * +Infinity and -Infinity arrive as {@code "NaN"}, {@code "Infinity"} and {@code "-Infinity"} (Java's own
 * Double.toString). Only these exact strings are floats; JsonConverter itself reads them, and any other string, as
 * 0.0.
 */
final class FloatStrings {
    private FloatStrings() {
    }

    /** The value one of the three strings stands for, or null for any other string. */
    static Double parse(String s) {
        switch (s) {
            case "NaN":
                return Double.NaN;
            case "Infinity":
                return Double.POSITIVE_INFINITY;
            case "-Infinity":
                return Double.NEGATIVE_INFINITY;
            default:
                return null;
        }
    }
}
