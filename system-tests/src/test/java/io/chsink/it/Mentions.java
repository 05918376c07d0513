package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The check of the failure-reporting tests: a message (error, trace, DLQ header) names every part it must. */
final class Mentions {
    private Mentions() {
    }

    /** Fails naming the first of {@code parts} that {@code text} does not contain, with the whole text. */
    static void assertMentions(String text, String... parts) {
        for (String p : parts) {
            assertTrue(text.contains(p), () -> "expected '" + p + "' in:\n" + text);
        }
    }
}
