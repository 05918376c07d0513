package io.chsink.connect.config;

import java.util.Locale;

/** What the connector promises about each record reaching ClickHouse. */
public enum DeliveryGuarantee {
    /** Every record lands; a crash or rebalance may land some twice. */
    AT_LEAST_ONCE,
    /**
     * Every record lands once: each block's composition is recorded in ClickHouse before its insert, and after a
     * crash or rebalance the same blocks are rebuilt and re-sent with the same deduplication token.
     */
    EXACTLY_ONCE;

    public static DeliveryGuarantee parse(String s) {
        return valueOf(s.trim().toUpperCase(Locale.ROOT));
    }

    public String configValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
