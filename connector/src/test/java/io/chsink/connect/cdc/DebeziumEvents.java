package io.chsink.connect.cdc;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Change events as Debezium's PostgreSQL and MySQL connectors write them through JsonConverter (the schema and
 * payload layout of Debezium 3.x: Envelope with before/after Value structs, the connector's Source struct, op,
 * ts_ms), read back by a real JsonConverter, with or without schemas.
 */
final class DebeziumEvents {
    static final String TOPIC = "srv.public.items";

    private static final String VALUE = "{\"type\":\"struct\",\"optional\":true,\"name\":\"srv.public.items.Value\","
            + "\"fields\":[{\"type\":\"int32\",\"optional\":false,\"field\":\"id\"},"
            + "{\"type\":\"string\",\"optional\":true,\"field\":\"name\"},"
            + "{\"type\":\"int64\",\"optional\":true,\"field\":\"qty\"}]";
    private static final String PG_SOURCE = "{\"type\":\"struct\",\"optional\":false,"
            + "\"name\":\"io.debezium.connector.postgresql.Source\",\"field\":\"source\",\"fields\":["
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"version\"},"
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"connector\"},"
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"name\"},"
            + "{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"},"
            + "{\"type\":\"string\",\"optional\":true,\"name\":\"io.debezium.data.Enum\",\"version\":1,"
            + "\"parameters\":{\"allowed\":\"true,first,first_in_data_collection,last_in_data_collection,last,false,"
            + "incremental\"},\"default\":\"false\",\"field\":\"snapshot\"},"
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"db\"},"
            + "{\"type\":\"string\",\"optional\":true,\"field\":\"sequence\"},"
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"schema\"},"
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"table\"},"
            + "{\"type\":\"int64\",\"optional\":true,\"field\":\"txId\"},"
            + "{\"type\":\"int64\",\"optional\":true,\"field\":\"lsn\"},"
            + "{\"type\":\"int64\",\"optional\":true,\"field\":\"xmin\"}]}";
    private static final String MYSQL_SOURCE = "{\"type\":\"struct\",\"optional\":false,"
            + "\"name\":\"io.debezium.connector.mysql.Source\",\"field\":\"source\",\"fields\":["
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"version\"},"
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"connector\"},"
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"name\"},"
            + "{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"},"
            + "{\"type\":\"string\",\"optional\":true,\"field\":\"snapshot\"},"
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"db\"},"
            + "{\"type\":\"string\",\"optional\":true,\"field\":\"table\"},"
            + "{\"type\":\"int64\",\"optional\":false,\"field\":\"server_id\"},"
            + "{\"type\":\"string\",\"optional\":false,\"field\":\"file\"},"
            + "{\"type\":\"int64\",\"optional\":false,\"field\":\"pos\"},"
            + "{\"type\":\"int32\",\"optional\":false,\"field\":\"row\"}]}";

    private DebeziumEvents() {
    }

    static String envelopeSchema(String source) {
        return "{\"type\":\"struct\",\"optional\":false,\"name\":\"srv.public.items.Envelope\",\"version\":2,"
                + "\"fields\":[" + VALUE + ",\"field\":\"before\"}," + VALUE + ",\"field\":\"after\"}," + source + ","
                + "{\"type\":\"string\",\"optional\":false,\"field\":\"op\"},"
                + "{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"}]}";
    }

    /** A PostgreSQL change event's JSON (with schema): before/after are JSON objects or "null". */
    static String postgres(String op, String before, String after, String snapshot, Long lsn) {
        String source = "{\"version\":\"3.6.1.Final\",\"connector\":\"postgresql\",\"name\":\"srv\","
                + "\"ts_ms\":1764590000000,\"snapshot\":\"" + snapshot + "\",\"db\":\"app\",\"sequence\":null,"
                + "\"schema\":\"public\",\"table\":\"items\",\"txId\":771,\"lsn\":" + lsn + ",\"xmin\":null}";
        return "{\"schema\":" + envelopeSchema(PG_SOURCE) + ",\"payload\":{\"before\":" + before + ",\"after\":"
                + after + ",\"source\":" + source + ",\"op\":\"" + op + "\",\"ts_ms\":1764590000123}}";
    }

    static String mysql(String op, String before, String after, String file, long pos, int row) {
        String source = "{\"version\":\"3.6.1.Final\",\"connector\":\"mysql\",\"name\":\"srv\",\"ts_ms\":1764590000000,"
                + "\"snapshot\":\"false\",\"db\":\"app\",\"table\":\"items\",\"server_id\":1,\"file\":\"" + file
                + "\",\"pos\":" + pos + ",\"row\":" + row + "}";
        return "{\"schema\":" + envelopeSchema(MYSQL_SOURCE) + ",\"payload\":{\"before\":" + before + ",\"after\":"
                + after + ",\"source\":" + source + ",\"op\":\"" + op + "\",\"ts_ms\":1764590000123}}";
    }

    static String item(int id, String name, Long qty) {
        return "{\"id\":" + id + ",\"name\":" + (name == null ? "null" : "\"" + name + "\"") + ",\"qty\":" + qty + "}";
    }

    /** The record Connect hands the sink: the value read by a JsonConverter (schemas.enable as given). */
    static SinkRecord record(String json, boolean schemas, long offset) {
        return record(TOPIC, null, json, schemas, offset);
    }

    static SinkRecord record(String topic, Object key, String json, boolean schemas, long offset) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", String.valueOf(schemas)), false);
        SchemaAndValue v = json == null ? SchemaAndValue.NULL
                : c.toConnectData(topic, json.getBytes(StandardCharsets.UTF_8));
        return new SinkRecord(topic, 0, null, key, v.schema(), v.value(), offset, 1000L, TimestampType.CREATE_TIME);
    }

    /** The schemaless payload of a schema'd event: what JsonConverter with schemas.enable=false gets. */
    static String payloadOnly(String json) {
        int p = json.indexOf(",\"payload\":");
        return json.substring(p + ",\"payload\":".length(), json.length() - 1);
    }
}
