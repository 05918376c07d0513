package io.chsink.connect.config;

import java.util.Locale;

/**
 * cdc.null.defaults: whether a cdc.mode=debezium connector may run with a value converter that writes a field's
 * schema default where a change event has null.
 */
public enum CdcNullDefaults {
    /** Validation and task start refuse such a converter configuration, naming the key to set. */
    REFUSE,
    /** Accepted: a column set to NULL in the source lands as its default (the task logs a WARN). */
    ALLOW;

    public static CdcNullDefaults parse(String s) {
        return valueOf(s.trim().toUpperCase(Locale.ROOT));
    }

    public String configValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
