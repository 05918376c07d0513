package io.chsink.connect.config;

import java.util.Locale;

/** What the connector promises about each record reaching ClickHouse. */
public enum DeliveryGuarantee {
    /** Every record lands; a crash or rebalance may land some twice. */
    AT_LEAST_ONCE;

    public static DeliveryGuarantee parse(String s) {
        return valueOf(s.trim().toUpperCase(Locale.ROOT));
    }

    public String configValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
