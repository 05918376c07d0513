package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Every scalar ClickHouse type, written through the real Connect worker with JsonConverter, with schemas (Connect
 * types, logical types, Avro-union, Avro-enum, Debezium and decimal-precision schemas) and without (plain JSON),
 * and read back exactly: each table must equal a reference table filled by ClickHouse itself from SQL literals
 * of the intended values. Rows hold the edges: minimum and maximum of every type, NaN and infinities, empty
 * and non-ASCII strings, the largest decimal precision, dates before 1970 and after 2106, NULLs, missing fields
 * taking DEFAULT and EPHEMERAL-fed defaults, MATERIALIZED and ALIAS columns; and record metadata columns.
 */
class ScalarTypesTest {
    private static final int ROWS = 4;
    private static final String I128_MIN = BigInteger.ONE.shiftLeft(127).negate().toString();
    private static final String I128_MAX = BigInteger.ONE.shiftLeft(127).subtract(BigInteger.ONE).toString();
    private static final String I256_MIN = BigInteger.ONE.shiftLeft(255).negate().toString();
    private static final String I256_MAX = BigInteger.ONE.shiftLeft(255).subtract(BigInteger.ONE).toString();
    private static final String U128_MAX = BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE).toString();
    private static final String U256_MAX = BigInteger.ONE.shiftLeft(256).subtract(BigInteger.ONE).toString();
    static final String S_UNICODE = "naïve ☃ 日本語 😀";
    static final String S_ESCAPES = "tab\t nl\n quote\" bs\\ '";
    private static final String[] S = {"", S_UNICODE, S_ESCAPES, "x"};

    private static final String CREATE_SETTINGS = "SETTINGS allow_suspicious_low_cardinality_types = 1";

    private final SinkHarness h = new SinkHarness();

    /** One column: its DDL, Connect schema (JSON), and per row the JSON with schema, without, and the SQL literal. */
    private static final class Col {
        final String name;
        final String type;
        final String schema;
        final String[] withSchema = new String[ROWS];
        final String[] plain = new String[ROWS];
        final String[] sql = new String[ROWS];
        boolean optional;

        Col(String name, String type, String schema) {
            this.name = name;
            this.type = type;
            this.schema = schema;
        }

        /** The same JSON text with and without schema, and as SQL. Java null: the field is absent. */
        Col rows(String... v) {
            System.arraycopy(v, 0, withSchema, 0, ROWS);
            System.arraycopy(v, 0, plain, 0, ROWS);
            System.arraycopy(v, 0, sql, 0, ROWS);
            return this;
        }

        /** String values: JSON strings and SQL string literals. */
        Col strings(String... v) {
            for (int i = 0; i < ROWS; i++) {
                withSchema[i] = plain[i] = json(v[i]);
                sql[i] = v[i] == null ? "NULL" : sqlString(v[i]);
            }
            return this;
        }

        Col plain(String... v) {
            System.arraycopy(v, 0, plain, 0, ROWS);
            return this;
        }

        Col schema(String... v) {
            System.arraycopy(v, 0, withSchema, 0, ROWS);
            return this;
        }

        Col sql(String... v) {
            System.arraycopy(v, 0, sql, 0, ROWS);
            return this;
        }

        Col optional() {
            optional = true;
            return this;
        }
    }

    static String json(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\t': b.append("\\t"); break;
                default: b.append(c);
            }
        }
        return b.append('"').toString();
    }

    static String sqlString(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t") + "'";
    }

    private static String decimalSchema(int precision, int scale, boolean optional) {
        return "\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\":1,\"optional\":"
                + optional + ",\"parameters\":{\"scale\":\"" + scale + "\",\"connect.decimal.precision\":\""
                + precision + "\"}";
    }

    private static String decimalBytes(String value, int scale) {
        return json(Base64.getEncoder().encodeToString(new BigDecimal(value).setScale(scale).unscaledValue().toByteArray()));
    }

    private static Col decimal(String name, int p, int s, String sqlFn, String... v) {
        Col c = new Col(name, "Decimal(" + p + ", " + s + ")", decimalSchema(p, s, false));
        for (int i = 0; i < ROWS; i++) {
            c.withSchema[i] = decimalBytes(v[i], s);
            c.plain[i] = json(v[i]);
            c.sql[i] = sqlFn + "('" + v[i] + "', " + s + ")";
        }
        return c;
    }

    private static Col dateTime64(int p) {
        String tz = p % 2 == 1 ? "Asia/Tokyo" : null;
        String frac9 = "999999999";
        String[] v = {
            "1900-01-01T00:00:00Z",
            p == 9 ? "2262-04-11T23:47:16.854775807Z" : "2299-12-31T23:59:59" + (p == 0 ? "" : "." + frac9.substring(0, p)) + "Z",
            "1969-12-31T23:59:59" + (p == 0 ? "" : "." + "123456789".substring(0, p)) + "Z",
            "2026-01-01 12:00:00" + (p == 0 ? "" : "." + "5".repeat(p)),
        };
        Col c = new Col("p" + p, "DateTime64(" + p + (tz == null ? "" : ", '" + tz + "'") + ")", "\"type\":\"string\"");
        for (int i = 0; i < ROWS; i++) {
            c.withSchema[i] = c.plain[i] = json(v[i]);
            String text = v[i].replace("T", " ").replace("Z", "");
            String zone = v[i].endsWith("Z") ? "UTC" : tz == null ? "UTC" : tz;
            c.sql[i] = "toDateTime64('" + text + "', " + p + ", '" + zone + "')";
        }
        return c;
    }

    private static final String TIMESTAMP = "\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\",\"version\":1";
    private static final String DATE = "\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Date\",\"version\":1";
    private static final String TIME = "\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Time\",\"version\":1";
    private static final String UNION = "\"type\":\"struct\",\"name\":\"io.confluent.connect.avro.Union\",\"fields\":["
            + "{\"field\":\"int\",\"type\":\"int32\",\"optional\":true},{\"field\":\"string\",\"type\":\"string\",\"optional\":true}]";
    private static final String VSD = "\"type\":\"struct\",\"name\":\"io.debezium.data.VariableScaleDecimal\",\"fields\":["
            + "{\"field\":\"scale\",\"type\":\"int32\"},{\"field\":\"value\",\"type\":\"bytes\"}]";

    private static List<Col> columns() {
        List<Col> c = new ArrayList<>();
        c.add(new Col("id", "UInt32", "\"type\":\"int32\"").rows("1", "2", "3", "4"));
        c.add(new Col("i8", "Int8", "\"type\":\"int8\"").rows("-128", "127", "0", "1"));
        c.add(new Col("i16", "Int16", "\"type\":\"int16\"").rows("-32768", "32767", "-1", "0"));
        c.add(new Col("i32", "Int32", "\"type\":\"int32\"").rows("-2147483648", "2147483647", "7", "0"));
        c.add(new Col("i64", "Int64", "\"type\":\"int64\"").rows("-9223372036854775808", "9223372036854775807",
                "9007199254740993", "0"));
        c.add(new Col("i128", "Int128", "\"type\":\"string\"").strings(I128_MIN, I128_MAX, "-1", "0")
                .sql("toInt128('" + I128_MIN + "')", "toInt128('" + I128_MAX + "')", "-1", "0"));
        c.add(new Col("i256", "Int256", "\"type\":\"string\"").strings(I256_MIN, I256_MAX, "-1", "0")
                .sql("toInt256('" + I256_MIN + "')", "toInt256('" + I256_MAX + "')", "-1", "0"));
        c.add(new Col("u8", "UInt8", "\"type\":\"int16\"").rows("0", "255", "1", "0"));
        c.add(new Col("u16", "UInt16", "\"type\":\"int32\"").rows("0", "65535", "1", "0"));
        c.add(new Col("u32", "UInt32", "\"type\":\"int64\"").rows("0", "4294967295", "1", "0"));
        c.add(new Col("u64", "UInt64", "\"type\":\"string\"").strings("0", "18446744073709551615", "9007199254740993", "1")
                .sql("0", "toUInt64('18446744073709551615')", "9007199254740993", "1"));
        c.add(new Col("u128", "UInt128", "\"type\":\"string\"").strings("0", U128_MAX, "1", "0")
                .sql("0", "toUInt128('" + U128_MAX + "')", "1", "0"));
        c.add(new Col("u256", "UInt256", "\"type\":\"string\"").strings("0", U256_MAX, "1", "0")
                .sql("0", "toUInt256('" + U256_MAX + "')", "1", "0"));
        c.add(new Col("f32", "Float32", "\"type\":\"float\"").rows("-3.4028235E38", "3.4028235E38", "0.1", "1.4E-45"));
        c.add(new Col("f32s", "Float32", "\"type\":\"string\"").strings("nan", "inf", "-inf", "1e10")
                .sql("nan", "inf", "-inf", "1e10"));
        c.add(new Col("f64", "Float64", "\"type\":\"double\"").rows("-1.7976931348623157E308", "1.7976931348623157E308",
                "0.1", "4.9E-324"));
        c.add(new Col("f64s", "Float64", "\"type\":\"string\"").strings("-inf", "nan", "inf", "0.3")
                .sql("-inf", "nan", "inf", "0.3"));
        c.add(new Col("bf", "BFloat16", "\"type\":\"double\"").rows("-3.3895313892515355E38", "3.3895313892515355E38",
                "0.375", "65280"));
        c.add(new Col("b", "Bool", "\"type\":\"boolean\"").rows("false", "true", "true", "false")
                .plain("false", "true", "\"true\"", "0"));
        c.add(new Col("s", "String", "\"type\":\"string\"").strings(S));
        c.add(new Col("fs", "FixedString(4)", "\"type\":\"string\"").strings("", "abcd", "é", "ab"));
        c.add(new Col("uid", "UUID", "\"type\":\"string\"").strings("00000000-0000-0000-0000-000000000000",
                "ffffffff-ffff-ffff-ffff-ffffffffffff", "61f0c404-5cb3-11e7-907b-a6006ad3dba0",
                "61F0C404-5CB3-11E7-907B-A6006AD3DBA0").sql("'00000000-0000-0000-0000-000000000000'",
                "'ffffffff-ffff-ffff-ffff-ffffffffffff'", "'61f0c404-5cb3-11e7-907b-a6006ad3dba0'",
                "'61f0c404-5cb3-11e7-907b-a6006ad3dba0'"));
        c.add(new Col("ip4", "IPv4", "\"type\":\"string\"").strings("0.0.0.0", "255.255.255.255", "192.168.1.10", "10.0.0.1")
                .plain(json("0.0.0.0"), json("255.255.255.255"), json("192.168.1.10"), "167772161"));
        c.add(new Col("ip6", "IPv6", "\"type\":\"string\"").strings("::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "2001:db8::1", "10.0.0.1").sql("'::'", "'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'", "'2001:db8::1'",
                "toIPv6('10.0.0.1')"));
        c.add(new Col("d", "Date", DATE).rows("0", "65535", "20454", "1")
                .plain(json("1970-01-01"), json("2149-06-06"), json("2026-01-01T00:00:00Z"), "1")
                .sql("'1970-01-01'", "'2149-06-06'", "'2026-01-01'", "'1970-01-02'"));
        c.add(new Col("d32", "Date32", DATE).rows("-25567", "120529", "-1", "0")
                .plain(json("1900-01-01"), json("2299-12-31"), json("1969-12-31"), "0")
                .sql("'1900-01-01'", "'2299-12-31'", "'1969-12-31'", "'1970-01-01'"));
        c.add(new Col("dt", "DateTime", TIMESTAMP).rows("0", "4294967295000", "1767225600000", "1000")
                .plain(json("1970-01-01T00:00:00Z"), json("2106-02-07 06:28:15"), "1767225600",
                        json("1970-01-01T01:00:01+01:00"))
                .sql("toDateTime(0)", "toDateTime(4294967295)", "toDateTime(1767225600)", "toDateTime(1)"));
        c.add(new Col("dtz", "DateTime('Asia/Kolkata')", "\"type\":\"string\"").strings("1970-01-01 05:30:00",
                "2106-02-07T06:28:15Z", "2026-01-01 05:30:00", "2026-01-01T00:00:00[Europe/Berlin]")
                .sql("toDateTime(0)", "toDateTime(4294967295)", "toDateTime(1767225600)", "toDateTime(1767222000)"));
        for (int p = 0; p <= 9; p++) {
            c.add(dateTime64(p));
        }
        c.add(new Col("ts3", "DateTime64(3)", TIMESTAMP).rows("-2208988800000", "10413791999999", "-1", "1767225600123")
                .sql("fromUnixTimestamp64Milli(-2208988800000)", "fromUnixTimestamp64Milli(10413791999999)",
                        "fromUnixTimestamp64Milli(-1)", "fromUnixTimestamp64Milli(1767225600123)"));
        c.add(new Col("dbz", "DateTime64(6)", "\"type\":\"int64\",\"name\":\"io.debezium.time.MicroTimestamp\"")
                .rows("-2208988800000000", "10413791999999999", "-1", "1767225600123456")
                .sql("fromUnixTimestamp64Micro(-2208988800000000)", "fromUnixTimestamp64Micro(10413791999999999)",
                        "fromUnixTimestamp64Micro(-1)", "fromUnixTimestamp64Micro(1767225600123456)"));
        c.add(new Col("t", "Time", "\"type\":\"string\"").strings("-999:59:59", "999:59:59", "12:34:56", "0:00:00")
                .plain(json("-999:59:59"), json("999:59:59"), json("12:34:56"), "0")
                .sql("'-999:59:59'", "'999:59:59'", "'12:34:56'", "'00:00:00'"));
        c.add(new Col("t9", "Time64(9)", "\"type\":\"string\"").strings("-999:59:59.999999999", "999:59:59.999999999",
                "00:00:00.000000001", "1:00:00").plain(json("-999:59:59.999999999"), json("999:59:59.999999999"),
                json("00:00:00.000000001"), "3600").sql("'-999:59:59.999999999'", "'999:59:59.999999999'",
                "'00:00:00.000000001'", "'01:00:00'"));
        c.add(new Col("tl", "Time64(3)", TIME).rows("0", "86399999", "45296789", "1")
                .plain(json("00:00:00"), json("23:59:59.999"), "45296.789", "0.001")
                .sql("'00:00:00'", "'23:59:59.999'", "'12:34:56.789'", "'00:00:00.001'"));
        c.add(new Col("dbt", "Time64(6)", "\"type\":\"int64\",\"name\":\"io.debezium.time.MicroTime\"")
                .rows("0", "86399999999", "3723000001", "1")
                .plain(json("0:00:00"), json("23:59:59.999999"), json("1:02:03.000001"), "0.000001")
                .sql("'00:00:00'", "'23:59:59.999999'", "'01:02:03.000001'", "'00:00:00.000001'"));
        c.add(decimal("dec9", 9, 2, "toDecimal32", "-9999999.99", "9999999.99", "0.01", "0"));
        c.get(c.size() - 1).plain(json("-9999999.99"), "9999999.99", "0.01", "0");
        c.add(decimal("dec18", 18, 6, "toDecimal64", "-999999999999.999999", "999999999999.999999", "-0.000001", "1.5"));
        c.add(decimal("dec38", 38, 10, "toDecimal128", "-9999999999999999999999999999.9999999999",
                "9999999999999999999999999999.9999999999", "0.0000000001", "0"));
        String d76 = "9".repeat(38) + "." + "9".repeat(38);
        c.add(decimal("dec76", 76, 38, "toDecimal256", "-" + d76, d76, "0." + "0".repeat(37) + "1", "0"));
        c.add(new Col("e8", "Enum8('neg' = -128, 'a' = 1, 'pos' = 127)", "\"type\":\"string\",\"name\":\"E8\","
                + "\"parameters\":{\"io.confluent.connect.avro.Enum\":\"E8\",\"io.confluent.connect.avro.Enum.neg\":\"neg\"}")
                .strings("neg", "pos", "a", "a").plain(json("neg"), json("pos"), json("a"), "1"));
        c.add(new Col("e16", "Enum16('lo' = -32768, 'hi' = 32767)", "\"type\":\"string\"").strings("lo", "hi", "hi", "lo"));
        c.add(new Col("lc", "LowCardinality(String)", "\"type\":\"string\"").strings("", "☃", "a", "a"));
        c.add(new Col("lcn", "LowCardinality(Nullable(String))", "\"type\":\"string\"").optional()
                .strings(null, "x", "", null).schema("null", json("x"), json(""), null).plain("null", json("x"), json(""), null));
        c.add(new Col("lci", "LowCardinality(Nullable(UInt16))", "\"type\":\"int32\"").optional()
                .rows("null", "65535", "0", null).sql("NULL", "65535", "0", "NULL"));
        c.add(new Col("lcfs", "LowCardinality(FixedString(2))", "\"type\":\"string\"").strings("", "ab", "é", "a"));
        c.add(new Col("n", "Nullable(Int32)", "\"type\":\"int32\"").optional()
                .rows("null", "2147483647", "-2147483648", null).sql("NULL", "2147483647", "-2147483648", "NULL"));
        c.add(new Col("ns", "Nullable(String)", "\"type\":\"string\"").optional().strings("", null, "ü", null)
                .schema(json(""), "null", json("ü"), null).plain(json(""), "null", json("ü"), null));
        Col nd = new Col("nd", "Nullable(Decimal(10, 2))", decimalSchema(10, 2, true)).optional()
                .schema("null", decimalBytes("99999999.99", 2), decimalBytes("-0.01", 2), null)
                .plain("null", "99999999.99", "-0.01", null).sql("NULL", "99999999.99", "-0.01", "NULL");
        c.add(nd);
        c.add(new Col("ndt", "Nullable(DateTime64(3))", TIMESTAMP).optional()
                .rows("null", "1767225600123", "0", null).sql("NULL", "fromUnixTimestamp64Milli(1767225600123)",
                        "fromUnixTimestamp64Milli(0)", "NULL"));
        c.add(new Col("dflt", "Int32 DEFAULT 42", "\"type\":\"int32\"").optional().rows("1", "null", "-1", null)
                .sql("1", "42", "-1", "42"));
        c.add(new Col("dfls", "LowCardinality(String) DEFAULT 'dv'", "\"type\":\"string\"").optional()
                .strings("a", null, "", null).schema(json("a"), "null", json(""), null).plain(json("a"), "null", json(""), null)
                .sql("'a'", "'dv'", "''", "'dv'"));
        c.add(new Col("dflc", "String DEFAULT concat('d:', s)", "\"type\":\"string\"").optional()
                .rows(json("given"), null, "null", null)
                .sql("'given'", sqlString("d:" + S[1]), sqlString("d:" + S[2]), sqlString("d:" + S[3])));
        c.add(new Col("eph", "String EPHEMERAL", "\"type\":\"string\"").optional().rows(json("x"), "null", json(""), null)
                .sql("'x'", "''", "''", "''"));
        c.add(new Col("un", "Int64", UNION).schema("{\"int\":5,\"string\":null}", "{\"int\":null,\"string\":\"-7\"}",
                "{\"int\":-2147483648}", "{\"int\":0}").plain("5", json("-7"), "-2147483648", "0").sql("5", "-7", "-2147483648", "0"));
        c.add(vsd());
        return c;
    }

    private static Col vsd() {
        String[] v = {"12.5", "-0.0001", "1234567890123456.7891", "0"};
        Col c = new Col("vsd", "Decimal(20, 4)", VSD);
        for (int i = 0; i < ROWS; i++) {
            BigDecimal d = new BigDecimal(v[i]);
            c.withSchema[i] = "{\"scale\":" + d.scale() + ",\"value\":"
                    + json(Base64.getEncoder().encodeToString(d.unscaledValue().toByteArray())) + "}";
            c.plain[i] = json(v[i]);
            c.sql[i] = "toDecimal128('" + v[i] + "', 4)";
        }
        return c;
    }

    /** Columns the server computes or fills, and record metadata; not part of any payload. */
    private static final String EXTRA = "from_eph String DEFAULT concat('e:', eph), mat String MATERIALIZED concat(s, '!'), "
            + "al String ALIAS upper(s)";
    private static final String METADATA = "_topic LowCardinality(String), _partition Int32, _offset UInt64, "
            + "_timestamp DateTime64(3), _key Nullable(String), _header_h Nullable(String)";

    private static String ddl(List<Col> cols, boolean metadata) {
        StringJoiner j = new StringJoiner(", ");
        for (Col c : cols) {
            j.add("`" + c.name + "` " + c.type);
        }
        j.add(EXTRA);
        if (metadata) {
            j.add(METADATA);
        }
        return j.toString();
    }

    private static String readBack(List<Col> cols, String table) {
        StringJoiner j = new StringJoiner(", ");
        for (Col c : cols) {
            if (!c.name.equals("eph")) {
                j.add("`" + c.name + "`");
            }
        }
        return "SELECT " + j + ", from_eph, mat, al FROM `" + table + "` ORDER BY id FORMAT TSV";
    }

    private static String payload(List<Col> cols, int row, boolean withSchema) {
        StringJoiner fields = new StringJoiner(",");
        StringJoiner values = new StringJoiner(",");
        for (Col c : cols) {
            fields.add("{\"field\":\"" + c.name + "\"," + c.schema
                    + (c.schema.contains("\"optional\"") ? "" : ",\"optional\":" + c.optional) + "}");
            String v = withSchema ? c.withSchema[row] : c.plain[row];
            if (v != null) {
                values.add("\"" + c.name + "\":" + v);
            }
        }
        if (row == 0) {
            values.add("\"mat\":\"a field for a MATERIALIZED column is ignored\"");
            fields.add("{\"field\":\"mat\",\"type\":\"string\",\"optional\":false}");
        }
        String body = "{" + values + "}";
        return withSchema ? "{\"schema\":{\"type\":\"struct\",\"optional\":false,\"fields\":[" + fields + "]},\"payload\":"
                + body + "}" : body;
    }

    private void produce(String topic, List<Col> cols, boolean withSchema) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, h.stack.kafka().bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int row = 0; row < ROWS; row++) {
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, 0, 1_767_225_600_000L + row,
                        ("k" + (row + 1)).getBytes(StandardCharsets.UTF_8),
                        payload(cols, row, withSchema).getBytes(StandardCharsets.UTF_8));
                r.headers().add("h", ("hv" + (row + 1)).getBytes(StandardCharsets.UTF_8));
                producer.send(r);
            }
            producer.flush();
        }
    }

    @Test
    void everyScalarTypeRoundTripsExactlyWithAndWithoutSchemas() throws Exception {
        List<Col> cols = columns();
        String ref = SinkHarness.unique("scalar_ref");
        h.stack.clickhouse().exec("CREATE TABLE `" + ref + "` (" + ddl(cols, false) + ") ENGINE = MergeTree ORDER BY id " + CREATE_SETTINGS);
        StringJoiner names = new StringJoiner(", ");
        for (Col c : cols) {
            names.add("`" + c.name + "`");
        }
        String rows = SqlRows.values(cols.stream().map(c -> c.sql).toList(), ROWS);
        h.stack.clickhouse().exec("INSERT INTO `" + ref + "` (" + names + ") VALUES " + rows);
        String expected = h.ch().query(readBack(cols, ref));
        // The reference itself holds what the literals say (spot checks of the edges).
        String[] lines = expected.split("\n");
        assertEquals(ROWS, lines.length);

        String withSchema = SinkHarness.unique("scalar_schema");
        String plain = SinkHarness.unique("scalar_plain");
        String c1 = SinkHarness.unique("sink");
        String c2 = SinkHarness.unique("sink");
        for (String t : new String[] {withSchema, plain}) {
            h.stack.clickhouse().exec("CREATE TABLE `" + t + "` (" + ddl(cols, true) + ") ENGINE = MergeTree ORDER BY id " + CREATE_SETTINGS);
            h.stack.kafka().createTopic(t, 1);
        }
        produce(withSchema, cols, true);
        produce(plain, cols, false);
        Map<String, String> o1 = SinkHarness.overrides(withSchema, 1);
        Map<String, String> o2 = SinkHarness.overrides(plain, 1);
        o2.put("value.converter.schemas.enable", "false");
        try {
            h.createConnector(c1, "clickhouse-sink.json", o1);
            h.createConnector(c2, "clickhouse-sink.json", o2);
            h.awaitRows(withSchema, ROWS, c1);
            h.awaitRows(plain, ROWS, c2);
            assertEquals(expected, h.ch().query(readBack(cols, withSchema)), "with schemas");
            assertEquals(expected, h.ch().query(readBack(cols, plain)), "without schemas");
            for (String t : new String[] {withSchema, plain}) {
                assertEquals("1\t" + t + "\t0\t0\t2026-01-01 00:00:00.000\tk1\thv1\n"
                        + "4\t" + t + "\t0\t3\t2026-01-01 00:00:00.003\tk4\thv4\n",
                        h.ch().query("SELECT id, _topic, _partition, _offset, toTimeZone(_timestamp, 'UTC'), _key, "
                                + "_header_h FROM `" + t + "` WHERE id IN (1, 4) ORDER BY id FORMAT TSV"));
            }
        } finally {
            h.deleteQuietly(c1);
            h.deleteQuietly(c2);
        }
        assertEquals(I256_MAX + "\t" + U256_MAX + "\tinf\tnan\t" + "9".repeat(38) + "." + "9".repeat(38),
                h.ch().query("SELECT i256, u256, f32s, f64s, dec76 FROM `" + ref + "` WHERE id = 2 FORMAT TSV").trim());
    }
}
