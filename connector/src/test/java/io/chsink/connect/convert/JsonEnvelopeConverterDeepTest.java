package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

/**
 * What ConvertersFuzzTest found in JsonEnvelopeConverter: JSON nested as deep as Jackson allows (999 levels) could
 * overflow a task thread's stack (a StackOverflowError that kills the task); it is now a DataException that says so.
 */
class JsonEnvelopeConverterDeepTest {
    static byte[] deep(int depth) {
        String schema = "{\"type\":\"array\",\"items\":".repeat(depth) + "{\"type\":\"int32\"}" + "}".repeat(depth);
        String payload = "[".repeat(depth) + "1" + "]".repeat(depth);
        return ("{\"schema\":" + schema + ",\"payload\":" + payload + "}").getBytes(StandardCharsets.UTF_8);
    }

    static Throwable readOnStack(byte[] record, long stackBytes) throws InterruptedException {
        JsonEnvelopeConverter c = new JsonEnvelopeConverter();
        c.configure(Map.of("schemas.enable", "true"), false);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                c.toConnectData("deep", record);
            } catch (Throwable e) {
                thrown.set(e);
            }
        }, "json-deep", stackBytes);
        t.start();
        t.join(30_000);
        return thrown.get();
    }

    @Test
    void jsonNestedTooDeepForTheStackIsADataException() throws InterruptedException {
        Throwable e = readOnStack(deep(499), 160 * 1024);
        assertTrue(e instanceof DataException, String.valueOf(e));
        assertEquals("JsonEnvelopeConverter cannot read a record of topic deep: its JSON is nested too deep for this "
                + "thread's stack (raise the worker's -Xss, or nest the data less)", e.getMessage());
    }

    @Test
    void theSameRecordReadsOnADefaultStack() {
        JsonEnvelopeConverter c = new JsonEnvelopeConverter();
        c.configure(Map.of("schemas.enable", "true"), false);
        SchemaAndValue v = c.toConnectData("deep", deep(499));
        Object x = v.value();
        for (int i = 0; i < 499; i++) {
            x = ((List<?>) x).get(0);
        }
        assertEquals(1, x);
    }
}
