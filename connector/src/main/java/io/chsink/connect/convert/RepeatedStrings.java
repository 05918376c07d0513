package io.chsink.connect.convert;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;

/**
 * The short strings a converter reads, kept so that a string equal to one read before is that same instance instead
 * of a new one: most of a change event's short strings repeat from record to record (its source block's version,
 * connector, name, db, schema and table, the op, a status column), and each new String is two allocations and a copy.
 * A small table indexed by the characters' hash, one string per slot (the last one read there) with that hash; a string
 * is taken from it only when its characters are equal, so what the caller gets is always equal to {@code getText()}.
 * The hash spares comparing the characters of a string that is not the one kept (timestamps share long prefixes).
 *
 * <p>Safe to share between threads: a slot is read once into a local and its characters compared before it is
 * returned (a hash written by another thread meanwhile only costs a miss or a comparison), and Strings are immutable.
 */
final class RepeatedStrings {
    /** Longer strings are rarely repeated (text columns, timestamps as text): they are made as before. */
    static final int MAX_CHARS = 32;
    private static final int SLOTS = 512;

    private final String[] slots = new String[SLOTS];
    private final int[] hashes = new int[SLOTS];

    /** The text of the parser's current VALUE_STRING token, as {@code getText()} gives it. */
    String text(JsonParser p) throws IOException {
        int len = p.getTextLength(); // first: a long string's characters may be in several segments, joined on asking
        if (len > MAX_CHARS) {
            return p.getText();
        }
        char[] chars = p.getTextCharacters();
        int off = p.getTextOffset();
        int h = 0;
        for (int i = 0; i < len; i++) {
            h = 31 * h + chars[off + i];
        }
        int slot = (h ^ (h >>> 9)) & (SLOTS - 1);
        String s = slots[slot];
        if (s != null && hashes[slot] == h && equal(s, chars, off, len)) {
            return s;
        }
        s = new String(chars, off, len);
        slots[slot] = s;
        hashes[slot] = h;
        return s;
    }

    private static boolean equal(String s, char[] chars, int off, int len) {
        if (s.length() != len) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            if (s.charAt(i) != chars[off + i]) {
                return false;
            }
        }
        return true;
    }
}
