package io.chsink.connect.config;

import java.util.Locale;

/**
 * default.assignment: whether a connector that reads more topics than it has tasks may run with Kafka's default
 * partition assignment, under which every task inserts a block into every table ({@link AssignmentAdvice}).
 */
public enum DefaultAssignment {
    /** validate() refuses such a configuration, naming the key to set. */
    REFUSE,
    /** Accepted (the worker sets the assignor, or the user keeps the default): the connector logs a WARN at start. */
    ALLOW;

    public static DefaultAssignment parse(String s) {
        return valueOf(s.trim().toUpperCase(Locale.ROOT));
    }

    public String configValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
