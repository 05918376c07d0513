package io.chsink.connect.convert;

/**
 * The internal signal of the fast path: this record has something the streaming reader does not reproduce exactly
 * as JsonConverter would, so the whole record goes to JsonConverter instead. Carries no stack trace (it is a
 * control-flow signal, thrown on a per-record path) and never leaves the converter.
 */
final class FastPathMiss extends RuntimeException {
    private static final long serialVersionUID = 1L;

    static final FastPathMiss INSTANCE = new FastPathMiss();

    private FastPathMiss() {
        super("not on the fast path", null, false, false);
    }
}
