package io.chsink.connect.convert;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NumericNode;
import java.io.IOException;

/**
 * The number at the parser's current token, the way JsonConverter sees it. Its deserializer turns an integer into
 * an IntNode, LongNode or BigIntegerNode by size and any other number into a DecimalNode holding the exact
 * BigDecimal; JsonConverter then calls intValue(), longValue(), floatValue(), doubleValue() or decimalValue() on that
 * node. Integers that fit a long take a direct path with the same results (IntNode and LongNode narrow with a cast);
 * everything else builds the same node and asks it, so the conversions are Jackson's own.
 */
final class JsonNumbers {
    private JsonNumbers() {
    }

    /** Whether the current token is an integer that fits a long (an IntNode or LongNode in JsonConverter's tree). */
    static boolean isSmallInt(JsonParser p) throws IOException {
        return p.currentToken() == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
    }

    /** The node JsonConverter's deserializer makes of the current number token; a miss for any other token. */
    static NumericNode node(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT) {
            switch (p.getNumberType()) {
                case INT:
                    return IntNode.valueOf(p.getIntValue());
                case LONG:
                    return LongNode.valueOf(p.getLongValue());
                default:
                    return BigIntegerNode.valueOf(p.getBigIntegerValue());
            }
        }
        if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            return DecimalNode.valueOf(p.getDecimalValue());
        }
        throw FastPathMiss.INSTANCE;
    }

    /** JsonNode.intValue() of the current number. */
    static int intValue(JsonParser p) throws IOException {
        return isSmallInt(p) ? (int) p.getLongValue() : node(p).intValue();
    }

    /** JsonNode.longValue() of the current number. */
    static long longValue(JsonParser p) throws IOException {
        return isSmallInt(p) ? p.getLongValue() : node(p).longValue();
    }
}
