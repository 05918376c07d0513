package io.chsink.connect.convert;

import org.apache.kafka.connect.data.Schema;

/**
 * Tells a Debezium change event by its value schema: a struct named {@code *.Envelope} with the fields
 * {@code before}, {@code after} and {@code op}, as Debezium's connectors write it (with JsonConverter's
 * schemas.enable=true). The flattened form of ExtractNewRecordState is not one: its schema is the row's.
 */
final class ChangeEventSchemas {
    private static final String SUFFIX = ".Envelope";

    private ChangeEventSchemas() {
    }

    static boolean isEnvelope(Schema s) {
        if (s == null || s.type() != Schema.Type.STRUCT) {
            return false;
        }
        String name = s.name();
        return name != null && name.endsWith(SUFFIX) && s.field("before") != null && s.field("after") != null
                && s.field("op") != null;
    }
}
