package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.chsink.it.kafka.EventProducer;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Composite and semi-structured columns round-trip exactly through the real Connect worker with JsonConverter, with
 * schemas (Connect ARRAY, MAP, STRUCT, Avro-style union Structs) and without (lists, maps, nested maps): what lands
 * equals, column by column, a reference table filled from SQL literals of the same values, including each Dynamic and
 * Variant value's type and each JSON path's type. Edges: empty arrays and maps, nulls inside arrays, null arrays and
 * maps (which land empty), deep nesting, unicode, a flattened Nested column fed from one list of Structs and an
 * unflattened one (flatten_nested=0).
 */
class CompositeTypesTest {
    static final String COLUMNS = "id UInt32, a2 Array(Array(UInt8)), an Array(Nullable(Int8)), "
            + "alc Array(LowCardinality(String)), deep Array(Array(Array(String))), m Map(String, UInt64), "
            + "mlc Map(LowCardinality(String), Array(Nullable(Int32))), t Tuple(x Int32, y Nullable(String)), "
            + "tu Tuple(Float64, String), n Nested(a UInt32, b String), j JSON(a UInt32, `b.c` String), "
            + "v Variant(String, Int64, Array(UInt8)), d Dynamic, p Point, r Ring, ls LineString, pg Polygon, "
            + "mpg MultiPolygon, s SimpleAggregateFunction(sum, UInt64)";
    /** Added with flatten_nested=0: one column of type Nested(a UInt32, b String). */
    static final String UNFLATTENED = "n2 Nested(a UInt32, b String)";

    private static final String REFERENCE_ROWS = "(1, [[1,2],[3]], [1,NULL,-128], ['a','b','a'], [[['α','β☃'],[]],[]], "
            + "{'k':9007199254740993}, {'x':[1,NULL],'y':[]}, (1,NULL), (1.5,'p'), [1,2], ['q','w'], "
            + "'{\"a\":42,\"b\":{\"c\":\"x\"},\"z\":[1,2],\"u\":\"ü\",\"day\":\"2024-01-01\",\"o\":[{\"k\":1},{\"k\":\"v\"}]}', 'str'::String, 9007199254740993::Int64, (1.5,-2), "
            + "[(0,0),(1,0),(1,1),(0,0)], [(0,0),(2,2)], [[(0,0),(1,0),(1,1),(0,0)],[]], [[[(0,0),(1,1)]]], 5, [(3,'e')]), "
            + "(2, [], [], [], [], {}, {}, (-1,''), (0,''), [], [], '{}', NULL, CAST(NULL, 'Dynamic'), (0,0), [], [], [], [], 0, []), "
            + "(3, [[]], [NULL], [''], [[[]]], {'':0}, {'':[NULL]}, (2147483647,'\\t'), (-0.5,'ü'), [], [], "
            + "'{\"a\":0,\"q\":{\"r\":[\"s\"]}}', [1,2]::Array(UInt8), 'text'::String, (-1,1), [], [], [], [], 7, []), "
            + "(4, [], [], [], [], {}, {}, (0,NULL), (0,''), [], [], '{}', NULL, CAST(NULL, 'Dynamic'), (0,0), [], [], [], [], 0, [])";

    /** Everything compared, with the type each Dynamic/Variant value and each JSON path landed as. */
    private static final String READ_BACK = "SELECT id, a2, an, alc, deep, m, mlc, t, tu, n.a, n.b, n2, "
            + "toJSONString(j), JSONAllPathsWithTypes(j), j.o[].k, arrayMap(x -> dynamicType(x), j.o[].k), v, variantType(v), d, dynamicType(d), p, r, ls, pg, mpg, s "
            + "FROM %s ORDER BY id FORMAT TSV";

    private static final String SCHEMA = "{\"type\":\"struct\",\"optional\":false,\"fields\":["
            + field("id", "{\"type\":\"int32\",\"optional\":false}")
            + "," + field("a2", array(array("{\"type\":\"int16\",\"optional\":false}", false), true))
            + "," + field("an", array("{\"type\":\"int8\",\"optional\":true}", true))
            + "," + field("alc", array("{\"type\":\"string\",\"optional\":false}", true))
            + "," + field("deep", array(array(array("{\"type\":\"string\",\"optional\":false}", false), false), true))
            + "," + field("m", "{\"type\":\"map\",\"keys\":{\"type\":\"string\",\"optional\":false},"
                    + "\"values\":{\"type\":\"int64\",\"optional\":false},\"optional\":true}")
            + "," + field("mlc", "{\"type\":\"map\",\"keys\":{\"type\":\"string\",\"optional\":false},"
                    + "\"values\":" + array("{\"type\":\"int32\",\"optional\":true}", true) + ",\"optional\":true}")
            + "," + field("t", "{\"type\":\"struct\",\"optional\":false,\"fields\":["
                    + field("x", "{\"type\":\"int32\",\"optional\":false}") + ","
                    + field("y", "{\"type\":\"string\",\"optional\":true}") + "]}")
            + "," + field("tu", "{\"type\":\"struct\",\"optional\":false,\"fields\":["
                    + field("f1", "{\"type\":\"double\",\"optional\":false}") + ","
                    + field("f2", "{\"type\":\"string\",\"optional\":false}") + "]}")
            + "," + field("n", array(ab(), true))
            + "," + field("n2", array(ab(), true))
            + "," + field("j", "{\"type\":\"string\",\"optional\":true}")
            + "," + field("v", union(array("{\"type\":\"int32\",\"optional\":false}", true)))
            + "," + field("d", union("{\"type\":\"int64\",\"optional\":true}"))
            + "," + field("p", array(dbl(), false))
            + "," + field("r", array(array(dbl(), false), true))
            + "," + field("ls", array(array(dbl(), false), true))
            + "," + field("pg", array(array(array(dbl(), false), false), true))
            + "," + field("mpg", array(array(array(array(dbl(), false), false), false), true))
            + "," + field("s", "{\"type\":\"int64\",\"optional\":false}")
            + "]}";

    private static String field(String name, String schema) {
        return schema.replaceFirst("^\\{", "{\"field\":\"" + name + "\",");
    }

    private static String array(String items, boolean optional) {
        return "{\"type\":\"array\",\"items\":" + items + ",\"optional\":" + optional + "}";
    }

    private static String dbl() {
        return "{\"type\":\"double\",\"optional\":false}";
    }

    private static String ab() {
        return "{\"type\":\"struct\",\"optional\":false,\"fields\":[" + field("a", "{\"type\":\"int64\",\"optional\":false}")
                + "," + field("b", "{\"type\":\"string\",\"optional\":false}") + "]}";
    }

    /** An Avro union as the Avro converter presents it: a Struct named io.confluent.connect.avro.Union. */
    private static String union(String otherBranch) {
        String other = otherBranch.contains("array") ? field("array", otherBranch) : field("long", otherBranch);
        return "{\"type\":\"struct\",\"name\":\"io.confluent.connect.avro.Union\",\"optional\":true,\"fields\":["
                + field("string", "{\"type\":\"string\",\"optional\":true}") + "," + other + "]}";
    }

    /** The four rows as JSON payloads; {@code schemaless} changes only what a schema forces on the shapes. */
    private static String[] payloads(boolean schemaless) {
        String geo1 = "\"p\":[1.5,-2],\"r\":[[0,0],[1,0],[1,1],[0,0]],\"ls\":[[0,0],[2,2]],"
                + "\"pg\":[[[0,0],[1,0],[1,1],[0,0]],[]],\"mpg\":[[[[0,0],[1,1]]]]";
        String noGeo = "\"p\":[0,0],\"r\":[],\"ls\":[],\"pg\":[],\"mpg\":[]";
        String nullGeo = "\"p\":[-1,1],\"r\":null,\"ls\":null,\"pg\":null,\"mpg\":null";
        String j1 = "{\"a\":42,\"b\":{\"c\":\"x\"},\"z\":[1,2],\"u\":\"ü\",\"day\":\"2024-01-01\",\"o\":[{\"k\":1},{\"k\":\"v\"}]}";
        String j3 = "{\"a\":0,\"q\":{\"r\":[\"s\"]}}";
        return new String[] {
            "{\"id\":1,\"a2\":[[1,2],[3]],\"an\":[1,null,-128],\"alc\":[\"a\",\"b\",\"a\"],"
                    + "\"deep\":[[[\"α\",\"β☃\"],[]],[]],\"m\":{\"k\":9007199254740993},\"mlc\":{\"x\":[1,null],\"y\":[]},"
                    + "\"t\":{\"x\":1,\"y\":null}," + (schemaless ? "\"tu\":[1.5,\"p\"]" : "\"tu\":{\"f1\":1.5,\"f2\":\"p\"}")
                    + ",\"n\":[{\"a\":1,\"b\":\"q\"},{\"a\":2,\"b\":\"w\"}],\"n2\":[{\"a\":3,\"b\":\"e\"}],"
                    + "\"j\":" + (schemaless ? j1 : quote(j1)) + ","
                    + "\"v\":" + (schemaless ? "\"str\"" : "{\"string\":\"str\",\"array\":null}") + ","
                    + "\"d\":" + (schemaless ? "9007199254740993" : "{\"string\":null,\"long\":9007199254740993}") + ","
                    + geo1 + ",\"s\":5}",
            "{\"id\":2,\"a2\":[],\"an\":[],\"alc\":[],\"deep\":[],\"m\":{},\"mlc\":{},\"t\":{\"x\":-1,\"y\":\"\"},"
                    + (schemaless ? "\"tu\":[0,\"\"]" : "\"tu\":{\"f1\":0,\"f2\":\"\"}") + ",\"n\":[],\"n2\":[],"
                    + "\"j\":" + (schemaless ? "{}" : quote("{}")) + ","
                    + "\"v\":" + (schemaless ? "null" : "{\"string\":null,\"array\":null}") + ","
                    + "\"d\":null," + noGeo + ",\"s\":0}",
            "{\"id\":3,\"a2\":[[]],\"an\":[null],\"alc\":[\"\"],\"deep\":[[[]]],\"m\":{\"\":0},\"mlc\":{\"\":[null]},"
                    + "\"t\":{\"x\":2147483647,\"y\":\"\\t\"},"
                    + (schemaless ? "\"tu\":[-0.5,\"ü\"]" : "\"tu\":{\"f1\":-0.5,\"f2\":\"ü\"}") + ",\"n\":null,\"n2\":null,"
                    + "\"j\":" + (schemaless ? j3 : quote(j3)) + ","
                    + "\"v\":" + (schemaless ? "[1,2]" : "{\"string\":null,\"array\":[1,2]}") + ","
                    + "\"d\":" + (schemaless ? "\"text\"" : "{\"string\":\"text\",\"long\":null}") + ","
                    + nullGeo + ",\"s\":7}",
            // nulls for every array, map, JSON, Variant and Dynamic value: they land empty or NULL
            "{\"id\":4,\"a2\":null,\"an\":null,\"alc\":null,\"deep\":null,\"m\":null,\"mlc\":null,\"t\":{\"x\":0,\"y\":null},"
                    + (schemaless ? "\"tu\":[0,\"\"]" : "\"tu\":{\"f1\":0,\"f2\":\"\"}") + ",\"n\":null,\"n2\":null,"
                    + "\"j\":null,\"v\":null,\"d\":null," + noGeo.replace("[]", "null") + ",\"s\":0}",
        };
    }

    private static String quote(String json) {
        return "\"" + json.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private final SinkHarness h = new SinkHarness();

    static void createTable(SinkHarness h, String table) {
        h.stack.clickhouse().exec("CREATE TABLE `" + table + "` (" + COLUMNS + ") ENGINE = MergeTree ORDER BY id");
        h.stack.clickhouse().exec("ALTER TABLE `" + table + "` ADD COLUMN " + UNFLATTENED + " SETTINGS flatten_nested = 0");
    }

    private void run(boolean withSchema) throws Exception {
        String topic = SinkHarness.unique(withSchema ? "composite_schema" : "composite_schemaless");
        String reference = topic + "_ref";
        String connector = SinkHarness.unique("sink");
        createTable(h, topic);
        createTable(h, reference);
        // (strings in JSON stay String, as the connector writes them: no date inference from the literal text)
        h.stack.clickhouse().exec("INSERT INTO `" + reference + "` SETTINGS input_format_try_infer_dates = 0, "
                + "input_format_try_infer_datetimes = 0 VALUES " + REFERENCE_ROWS);
        h.stack.kafka().createTopic(topic, 1);
        String[] rows = payloads(!withSchema);
        if (withSchema) {
            for (int i = 0; i < rows.length; i++) {
                rows[i] = "{\"schema\":" + SCHEMA + ",\"payload\":" + rows[i] + "}";
            }
        }
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, Arrays.asList(rows));
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("value.converter.schemas.enable", Boolean.toString(withSchema));
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            h.awaitRows(topic, rows.length, connector);
            String expected = h.ch().query(String.format(READ_BACK, "`" + reference + "`"));
            assertEquals(4, expected.split("\n").length, expected);
            assertEquals(expected, h.ch().query(String.format(READ_BACK, "`" + topic + "`")));
            // and independently of the reference: the typed paths, variants and dynamic types that landed
            assertEquals("{'a':'UInt32','b.c':'String','day':'String','o':'Array(JSON(max_dynamic_types=16, max_dynamic_paths=256))',"
                    + "'u':'String','z':'Array(Nullable(Int64))'}\tString\tInt64\n"
                    + "{'a':'UInt32','b.c':'String'}\tNone\tNone\n"
                    + "{'a':'UInt32','b.c':'String','q.r':'Array(Nullable(String))'}\tArray(UInt8)\tString\n"
                    + "{'a':'UInt32','b.c':'String'}\tNone\tNone\n",
                    h.ch().query("SELECT JSONAllPathsWithTypes(j), variantType(v), dynamicType(d) FROM `" + topic
                            + "` ORDER BY id FORMAT TSV"));
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void connectArraysMapsStructsAndUnionsLandExactly() throws Exception {
        run(true);
    }

    @Test
    void schemalessListsMapsAndNestedMapsLandExactly() throws Exception {
        run(false);
    }
}
