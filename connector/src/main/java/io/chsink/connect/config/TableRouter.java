package io.chsink.connect.config;

import io.chsink.connect.schema.TableId;
import java.util.HashMap;
import java.util.Map;

/** Resolves the target table of a topic: topic.to.table.map first, else table.name.format. */
public final class TableRouter {
    private final String database;
    private final String format;
    private final Map<String, String> explicit;
    private final Map<String, TableId> cache = new HashMap<>();

    public TableRouter(SinkConfig config) {
        this.database = config.database();
        this.format = config.tableNameFormat();
        this.explicit = config.topicTables();
    }

    public TableId tableFor(String topic) {
        TableId t = cache.get(topic);
        if (t == null) {
            t = resolve(topic);
            cache.put(topic, t);
        }
        return t;
    }

    private TableId resolve(String topic) {
        String mapped = explicit.get(topic);
        if (mapped != null) {
            int dot = mapped.indexOf('.');
            return dot > 0 ? new TableId(mapped.substring(0, dot), mapped.substring(dot + 1))
                    : new TableId(database, mapped);
        }
        return new TableId(database, format.replace("${topic}", topic));
    }
}
