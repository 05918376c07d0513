package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

/**
 * What ConvertersFuzzTest's long run found in JsonEnvelopeConverter (besides JsonEnvelopeConverterDeepTest): schemas
 * on which Kafka's JsonConverter, the fallback, throws a ClassCastException; each is now a DataException.
 */
class JsonEnvelopeConverterFuzzFindingsTest {
    @Test
    void aLogicalNameOnAnArrayWithADefaultIsADataException() {
        JsonEnvelopeConverter c = new JsonEnvelopeConverter();
        c.configure(Map.of("schemas.enable", "true"), false);
        for (String json : new String[] {
            // seed 1796403700636 index 113732: Date's converter makes a java.util.Date, the array's check casts it
            "{\"schema\":{\"type\":\"array\",\"name\":\"org.apache.kafka.connect.data.Date\",\"default\":-0,"
                    + "\"items\":{\"type\":\"float\"}},\"payload\":[]}",
            // index 153425: Decimal's converter makes a BigDecimal
            "{\"schema\":{\"type\":\"array\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"parameters\":"
                    + "{\"scale\":\"2\"},\"default\":1e309,\"items\":{\"type\":\"bytes\",\"optional\":false}},\"payload\":[]}"}) {
            DataException e = assertThrows(DataException.class,
                    () -> c.toConnectData("t", json.getBytes(StandardCharsets.UTF_8)));
            assertTrue(e.getMessage().startsWith("JsonEnvelopeConverter cannot read a record of topic t: Kafka's "
                    + "JsonConverter fails on its schema or value (java.lang.ClassCastException"), e.getMessage());
        }
    }
}
