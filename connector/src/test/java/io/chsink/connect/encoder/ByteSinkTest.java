package io.chsink.connect.encoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

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
}
