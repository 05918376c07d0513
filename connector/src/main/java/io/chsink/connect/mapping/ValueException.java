package io.chsink.connect.mapping;

/**
 * A value that cannot be written exactly into its column. Carries only the reason; {@link TableMapping} adds
 * topic, partition, offset, field, column and type. No stack trace: it is data, not a bug.
 */
public final class ValueException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ValueException(String reason) {
        super(reason, null, false, false);
    }

    /** A short description of a value's kind for error messages (never the value itself, which may be secret). */
    public static String kindOf(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof CharSequence) {
            return "string of length " + ((CharSequence) v).length();
        }
        return v.getClass().getSimpleName();
    }
}
