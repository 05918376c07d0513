package io.chsink.connect.convert;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;

/**
 * Jackson set up the way connect-json's JsonDeserializer is when JsonConverter builds it: leading zeros in numbers
 * allowed, floating-point numbers read as exact BigDecimals (USE_BIG_DECIMAL_FOR_FLOATS, and a node factory that
 * keeps their scale), everything else Jackson's defaults. The streaming parser and the trees made here therefore see
 * the same tokens and numbers JsonConverter's trees hold.
 */
final class KafkaJson {
    private final JsonFactory factory;
    private final JsonFactory nestedFactory;
    private final ObjectMapper mapper;

    KafkaJson() {
        factory = pooled(new JsonFactoryBuilder().enable(JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS)).build();
        StreamReadConstraints limits = factory.streamReadConstraints();
        nestedFactory = pooled(new JsonFactoryBuilder().enable(JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS)
                .streamReadConstraints(limits.rebuild().maxNestingDepth(limits.getMaxNestingDepth() - 1).build()))
                .build();
        mapper = new ObjectMapper(factory);
        mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        mapper.setNodeFactory(new JsonNodeFactory(true));
    }

    /**
     * Buffers recycled through a pool of this factory's own (Jackson 2.16 and later) instead of Jackson's default, a
     * ThreadLocal: a task thread reading many topics carries many ThreadLocals (the consumer's, Connect's), and the
     * lookup of Jackson's among them cost a tenth of the task's samples at 50 topics. With an older Jackson on the
     * worker (Connect 3.5 ships 2.13), the default stays.
     */
    private static JsonFactoryBuilder pooled(JsonFactoryBuilder b) {
        try {
            return b.recyclerPool(JsonRecyclerPools.newLockFreePool());
        } catch (LinkageError e) {
            return b;
        }
    }

    JsonParser parser(byte[] bytes) throws IOException {
        return factory.createParser(bytes);
    }

    /**
     * A parser of the JSON value in bytes[from, to) that sits one level deep in its document (an envelope's payload):
     * its nesting limit is one less, so it fails exactly where parsing the whole document would.
     */
    JsonParser nestedParser(byte[] bytes, int from, int to) throws IOException {
        return nestedFactory.createParser(bytes, from, to - from);
    }

    /** The JSON value in bytes[from, to) as a tree, as JsonConverter's deserializer would build it. */
    JsonNode tree(byte[] bytes, int from, int to) throws IOException {
        return mapper.readTree(bytes, from, to - from);
    }
}
