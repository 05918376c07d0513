package io.chsink.it.cdc;

import java.util.Random;

/** Random text values of the CDC workloads, drawn from the workload's own Random (so a seed repeats them). */
final class RandomText {
    private static final int[] ALPHABET = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,.;:-_'\"|\\/"
            + "äöüßéñ€漢字😀").codePoints().toArray();

    private RandomText() {
    }

    /** Up to {@code n} code points of letters, digits, punctuation, quotes, umlauts, CJK and an emoji; now and then a
     * tab or newline when {@code controls}. */
    static String text(Random random, int n, boolean controls) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (controls && random.nextInt(40) == 0) {
                b.append(random.nextBoolean() ? '\t' : '\n');
            } else {
                b.appendCodePoint(ALPHABET[random.nextInt(ALPHABET.length)]);
            }
        }
        return b.toString();
    }

    /** A small JSON object with a number, a string, an array and a nested object. */
    static String json(Random random) {
        return "{\"n\": " + random.nextInt(1000) + ", \"s\": \"" + text(random, 8, false).replace("\\", "")
                .replace("\"", "") + "\", \"tags\": [" + random.nextInt(10) + ", " + random.nextBoolean()
                + "], \"nested\": {\"x\": " + (random.nextInt(200) - 100) / 8.0 + "}}";
    }
}
