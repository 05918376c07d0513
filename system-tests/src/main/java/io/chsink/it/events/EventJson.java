package io.chsink.it.events;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/**
 * Events as Kafka Connect's JsonConverter reads them: with an embedded schema (schemas.enable=true; event_time
 * a Connect Timestamp, revenue a Connect Decimal with scale 2) or as plain JSON objects (schemas.enable=false;
 * event_time an ISO-8601 string, revenue a JSON number).
 */
public final class EventJson {
    private static final String SCHEMA = "{\"type\":\"struct\",\"name\":\"io.chsink.demo.Event\",\"optional\":false,"
            + "\"fields\":["
            + "{\"field\":\"event_time\",\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\","
            + "\"version\":1,\"optional\":false},"
            + "{\"field\":\"user_id\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"event_type\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"url\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"duration_ms\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"country\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"revenue\",\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\","
            + "\"version\":1,\"parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":\"10\"},\"optional\":false}"
            + "]}";

    private EventJson() {
    }

    public static byte[] withSchema(Event e) {
        StringBuilder sb = new StringBuilder(900);
        sb.append("{\"schema\":").append(SCHEMA).append(",\"payload\":{")
                .append("\"event_time\":").append(e.eventTime() * 1000).append(',')
                .append("\"user_id\":").append(e.userId()).append(',')
                .append("\"event_type\":\"").append(e.eventType()).append("\",")
                .append("\"url\":\"").append(e.url()).append("\",")
                .append("\"duration_ms\":").append(e.durationMs()).append(',')
                .append("\"country\":\"").append(e.country()).append("\",")
                .append("\"revenue\":\"")
                .append(Base64.getEncoder().encodeToString(BigInteger.valueOf(e.revenueCents()).toByteArray()))
                .append("\"}}");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] schemaless(Event e) {
        StringBuilder sb = new StringBuilder(200);
        sb.append("{\"event_time\":\"").append(Instant.ofEpochSecond(e.eventTime())).append("\",")
                .append("\"user_id\":").append(e.userId()).append(',')
                .append("\"event_type\":\"").append(e.eventType()).append("\",")
                .append("\"url\":\"").append(e.url()).append("\",")
                .append("\"duration_ms\":").append(e.durationMs()).append(',')
                .append("\"country\":\"").append(e.country()).append("\",")
                .append("\"revenue\":").append(e.revenueText()).append('}');
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }
}
