package io.chsink.connect.encoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ByteSinkTest {
    private static byte[] bytes(ByteSink s) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        s.writeTo(out);
        return out.toByteArray();
    }

    @Test
    void writesLittleEndianAndLeb128() throws IOException {
        ByteSink s = new ByteSink(1);
        s.putShort(0x0102);
        s.putInt(0x01020304);
        s.putLong(-2L);
        s.putVarUInt(300);
        assertArrayEquals(new byte[] {2, 1, 4, 3, 2, 1, (byte) 0xFE, -1, -1, -1, -1, -1, -1, -1, (byte) 0xAC, 0x02},
                bytes(s));
    }

    @Test
    void writesStringsAsLengthAndUtf8ForAsciiAndNonAscii() throws IOException {
        ByteSink s = new ByteSink(1);
        s.putUtf8("ab");
        s.putUtf8("é");
        StringBuilder longAscii = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            longAscii.append('x');
        }
        s.putUtf8(longAscii.toString());
        byte[] out = bytes(s);
        assertArrayEquals(new byte[] {2, 'a', 'b', 2, (byte) 0xC3, (byte) 0xA9, (byte) 0xC8, 0x01},
                java.util.Arrays.copyOf(out, 8));
        assertArrayEquals(longAscii.toString().getBytes(StandardCharsets.US_ASCII),
                java.util.Arrays.copyOfRange(out, 8, out.length));
    }

    @Test
    void truncateForgetsARowAndTheBufferKeepsGrowing() throws IOException {
        ByteSink s = new ByteSink(1);
        s.putInt(7);
        int mark = s.size();
        s.putUtf8("withdrawn");
        s.truncate(mark);
        for (int i = 0; i < 1000; i++) {
            s.putByte(1);
        }
        byte[] out = bytes(s);
        assertArrayEquals(new byte[] {7, 0, 0, 0, 1}, java.util.Arrays.copyOf(out, 5));
        org.junit.jupiter.api.Assertions.assertEquals(1004, out.length);
    }

    /** A plain growable byte array, the model the sink is compared with (truncation is O(1)). */
    private static final class Model {
        byte[] bytes = new byte[1024];
        int size;

        void write(byte[] b, int len) {
            if (size + len > bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, Math.max(size + len, bytes.length * 2));
            }
            System.arraycopy(b, 0, bytes, size, len);
            size += len;
        }

        void write(int b) {
            write(new byte[] {(byte) b}, 1);
        }
    }

    /**
     * Random writes, row rollbacks and clears across many chunk boundaries give exactly the bytes a plain byte array
     * holds, and clear() keeps the chunks (no new capacity for the same content).
     */
    @Test
    void chunkBoundariesRollbacksAndReuseMatchAPlainStream() throws IOException {
        java.util.Random rnd = new java.util.Random(7);
        ByteSink s = new ByteSink(16);
        for (int round = 0; round < 3; round++) {
            Model model = new Model();
            int capacityBefore = s.capacity();
            rnd.setSeed(7); // the same content every round: the second and third reuse the chunks
            for (int op = 0; op < 20_000; op++) {
                int mark = s.size();
                int modelMark = model.size;
                java.nio.ByteBuffer bb = java.nio.ByteBuffer.allocate(16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                int kind = rnd.nextInt(7);
                if (kind == 0) {
                    int v = rnd.nextInt();
                    s.putByte(v);
                    model.write(v);
                } else if (kind == 1) {
                    short v = (short) rnd.nextInt();
                    s.putShort(v);
                    bb.putShort(v);
                    model.write(bb.array(), 2);
                } else if (kind == 2) {
                    int v = rnd.nextInt();
                    s.putInt(v);
                    bb.putInt(v);
                    model.write(bb.array(), 4);
                } else if (kind == 3) {
                    long v = rnd.nextLong();
                    s.putLong(v);
                    bb.putLong(v);
                    model.write(bb.array(), 8);
                } else if (kind == 4) {
                    // Now and then a run longer than a chunk.
                    byte[] b = new byte[rnd.nextInt(rnd.nextInt(200) == 0 ? 3 * ByteSink.MAX_CHUNK : 300)];
                    rnd.nextBytes(b);
                    s.putBytes(b, 0, b.length);
                    model.write(b, b.length);
                } else if (kind == 5) {
                    String str = rnd.nextBoolean() ? "url-" + rnd.nextInt() : "\u00e9-" + rnd.nextInt();
                    s.putUtf8(str);
                    byte[] b = str.getBytes(StandardCharsets.UTF_8);
                    model.write(b.length);
                    model.write(b, b.length);
                } else {
                    int n = rnd.nextInt(100);
                    s.putZeros(n);
                    model.write(new byte[n], n);
                }
                org.junit.jupiter.api.Assertions.assertEquals(model.size, s.size());
                if (rnd.nextInt(10) == 0) { // withdraw what was just written, as a rejected row is
                    s.truncate(mark);
                    model.size = modelMark;
                }
            }
            assertArrayEquals(java.util.Arrays.copyOf(model.bytes, model.size), bytes(s));
            if (round > 0) {
                org.junit.jupiter.api.Assertions.assertEquals(capacityBefore, s.capacity());
            }
            s.clear();
            org.junit.jupiter.api.Assertions.assertEquals(0, bytes(s).length);
        }
    }
    /**
     * A reader gives back the strings, longs and bytes written across many chunks (some empty, some left with an
     * unused tail, strings straddling their ends), from any position, and writeTo a range writes exactly those bytes.
     */
    @Test
    void readsBackAndWritesRangesAcrossChunks() throws IOException {
        java.util.Random rnd = new java.util.Random(9);
        ByteSink s = new ByteSink(16);
        java.util.List<Object> values = new java.util.ArrayList<>();
        java.util.List<Integer> starts = new java.util.ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            int mark = s.size();
            starts.add(mark);
            if (rnd.nextBoolean()) {
                String v = "x".repeat(rnd.nextInt(rnd.nextInt(50) == 0 ? 300_000 : 200)) + "\u00e9" + i;
                s.putUtf8(v);
                values.add(v);
            } else {
                long v = rnd.nextLong();
                s.putLong(v);
                values.add(v);
            }
            if (rnd.nextInt(8) == 0) { // a withdrawn value
                s.putUtf8("withdrawn".repeat(rnd.nextInt(100)));
                s.truncate(s.size() - rnd.nextInt(2));
                s.truncate(starts.get(i));
                starts.remove(i);
                values.remove(i);
                i--;
            }
        }
        byte[] all = bytes(s);
        for (int k = 0; k < 200; k++) {
            int first = rnd.nextInt(values.size());
            ByteSink.Reader r = s.reader(starts.get(first));
            for (int i = first; i < Math.min(values.size(), first + 20); i++) {
                assertEquals(starts.get(i), r.position());
                Object v = values.get(i);
                if (v instanceof Long) {
                    assertEquals(v, r.readLong());
                } else {
                    byte[] b = new byte[(int) r.readVarUInt()];
                    r.readBytes(b, 0, b.length);
                    assertEquals(v, new String(b, StandardCharsets.UTF_8));
                }
            }
            int from = rnd.nextInt(all.length + 1);
            int to = from + rnd.nextInt(Math.min(all.length - from, 3 * ByteSink.MAX_CHUNK) + 1);
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            s.writeTo(out, from, to);
            assertArrayEquals(java.util.Arrays.copyOfRange(all, from, to), out.toByteArray());
        }
    }
}
