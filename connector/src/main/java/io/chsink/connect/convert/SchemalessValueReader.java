package io.chsink.connect.convert;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a JSON value without a schema into what JsonConverter makes of it (schemas.enable=false, or a null schema):
 * null, Boolean, Long for integers (JsonNode.longValue(), so integers beyond a long wrap as Jackson narrows them),
 * Double for other numbers (of the exact BigDecimal), String, ArrayList for arrays and HashMap with String keys for
 * objects.
 */
final class SchemalessValueReader {
    private SchemalessValueReader() {
    }

    /** The value starting at the parser's current token; leaves the parser on the value's last token. */
    static Object read(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == null) {
            throw FastPathMiss.INSTANCE;
        }
        switch (t) {
            case VALUE_NULL:
                return null;
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NUMBER_INT:
                return JsonNumbers.longValue(p);
            case VALUE_NUMBER_FLOAT:
                return JsonNumbers.node(p).doubleValue();
            case VALUE_STRING:
                return p.getText();
            case START_ARRAY: {
                List<Object> list = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    list.add(read(p));
                }
                return list;
            }
            case START_OBJECT: {
                Map<Object, Object> map = new HashMap<>();
                String key;
                while ((key = p.nextFieldName()) != null) {
                    p.nextToken();
                    map.put(key, read(p));
                }
                if (p.currentToken() != JsonToken.END_OBJECT) {
                    throw FastPathMiss.INSTANCE;
                }
                return map;
            }
            default:
                throw FastPathMiss.INSTANCE;
        }
    }
}
