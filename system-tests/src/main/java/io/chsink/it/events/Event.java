package io.chsink.it.events;

import java.util.Objects;

/** One row of the events dataset (see {@link EventsTable} for the ClickHouse columns). */
public final class Event {
    private final long eventTime;
    private final long userId;
    private final String eventType;
    private final String url;
    private final long durationMs;
    private final String country;
    private final long revenueCents;

    /**
     * @param eventTime    seconds since the epoch (UTC), column {@code event_time DateTime}
     * @param durationMs   0 .. 4294967295 (UInt32)
     * @param revenueCents revenue in cents: {@code revenue Decimal(10,2)} holds {@code revenueCents / 100}
     */
    public Event(long eventTime, long userId, String eventType, String url, long durationMs, String country, long revenueCents) {
        if (durationMs < 0 || durationMs > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("durationMs out of UInt32 range: " + durationMs);
        }
        this.eventTime = eventTime;
        this.userId = userId;
        this.eventType = Objects.requireNonNull(eventType);
        this.url = Objects.requireNonNull(url);
        this.durationMs = durationMs;
        this.country = Objects.requireNonNull(country);
        this.revenueCents = revenueCents;
    }

    public long eventTime() {
        return eventTime;
    }

    public long userId() {
        return userId;
    }

    public String eventType() {
        return eventType;
    }

    public String url() {
        return url;
    }

    public long durationMs() {
        return durationMs;
    }

    public String country() {
        return country;
    }

    public long revenueCents() {
        return revenueCents;
    }

    /** The revenue as ClickHouse writes a Decimal(10,2), for example {@code 12.05}. */
    public String revenueText() {
        return String.format("%s%d.%02d", revenueCents < 0 ? "-" : "", Math.abs(revenueCents) / 100, Math.abs(revenueCents) % 100);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Event e && eventTime == e.eventTime && userId == e.userId && durationMs == e.durationMs
                && revenueCents == e.revenueCents && eventType.equals(e.eventType) && url.equals(e.url)
                && country.equals(e.country);
    }

    @Override
    public int hashCode() {
        return Objects.hash(eventTime, userId, eventType, url, durationMs, country, revenueCents);
    }

    @Override
    public String toString() {
        return "Event{time=" + eventTime + ", user=" + userId + ", type=" + eventType + ", url=" + url
                + ", durationMs=" + durationMs + ", country=" + country + ", revenue=" + revenueText() + "}";
    }
}
