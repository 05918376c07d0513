package io.chsink.it.events;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Deterministic events from a seed: the same seed always yields the same sequence.
 * <ul>
 *   <li>event_time: uniform over 2026-01-01 .. 2026-03-31 UTC (three monthly partitions);</li>
 *   <li>user_id: 1 .. 100,000, skewed towards low ids;</li>
 *   <li>event_type: 8 values, mostly page views; only purchases carry revenue (0.99 .. 999.99);</li>
 *   <li>url: 40 .. 80 characters from a pool of product and section pages, popular pages repeat often;</li>
 *   <li>country: exactly 20 values, weighted; the first 20 events cover all of them, so any N >= 20 has all 20.</li>
 * </ul>
 */
public final class EventGenerator implements Iterator<Event> {
    public static final long START_EPOCH_SECOND = 1_767_225_600L; // 2026-01-01T00:00:00Z
    public static final long END_EPOCH_SECOND = 1_775_001_600L;   // 2026-04-01T00:00:00Z, exclusive

    /** The 20 countries, with relative weights. */
    public static final List<String> COUNTRIES = List.of("US", "GB", "DE", "FR", "IN", "BR", "JP", "CA", "AU", "ES",
            "IT", "NL", "SE", "PL", "MX", "KR", "CN", "ZA", "AR", "NG");
    private static final int[] COUNTRY_WEIGHTS = {30, 10, 9, 7, 8, 6, 5, 4, 3, 3, 3, 2, 2, 2, 2, 2, 3, 1, 1, 1};
    public static final List<String> EVENT_TYPES = List.of("page_view", "click", "search", "add_to_cart",
            "remove_from_cart", "checkout", "purchase", "signup");
    private static final int[] EVENT_TYPE_WEIGHTS = {50, 20, 10, 8, 3, 4, 3, 2};
    private static final List<String> CATEGORIES = List.of("books", "garden", "kitchen", "electronics", "toys",
            "sports", "fashion", "health", "automotive", "music");
    private static final List<String> SOURCES = List.of("newsletter", "search", "social", "partner", "direct");

    private final long seed;
    private final SplittableRandom random;
    private long produced;

    public EventGenerator(long seed) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    public long seed() {
        return seed;
    }

    /** How many events {@link #next()} has returned. */
    public long produced() {
        return produced;
    }

    /** Always true: the sequence is endless. */
    @Override
    public boolean hasNext() {
        return true;
    }

    @Override
    public Event next() {
        long time = START_EPOCH_SECOND + random.nextLong(END_EPOCH_SECOND - START_EPOCH_SECOND);
        long user = 1 + (long) (100_000 * Math.pow(random.nextDouble(), 2));
        String type = EVENT_TYPES.get(weighted(EVENT_TYPE_WEIGHTS));
        String url = url();
        long duration = type.equals("page_view") ? 200 + random.nextLong(120_000) : random.nextLong(5_000);
        String country = produced < COUNTRIES.size() ? COUNTRIES.get((int) produced) : COUNTRIES.get(weighted(COUNTRY_WEIGHTS));
        long revenue = type.equals("purchase") ? 99 + random.nextLong(99_901) : 0;
        produced++;
        return new Event(time, user, type, url, duration, country, revenue);
    }

    /** The next {@code count} events. */
    public Stream<Event> take(long count) {
        return Stream.generate(this::next).limit(count);
    }

    /** The first {@code count} events of a fresh generator with this seed. */
    public static Iterable<Event> events(long seed, long count) {
        return () -> new Iterator<>() {
            private final EventGenerator generator = new EventGenerator(seed);

            @Override
            public boolean hasNext() {
                return generator.produced < count;
            }

            @Override
            public Event next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return generator.next();
            }
        };
    }

    private String url() {
        // Squaring a uniform number favours small page ids: a few pages are hot, the long tail is cold.
        int page = (int) (5_000 * Math.pow(random.nextDouble(), 2));
        String category = CATEGORIES.get(page % CATEGORIES.size());
        String path = "https://www.shop.example.com/" + category + "/item-" + page;
        return switch (random.nextInt(3)) {
            case 0 -> path;
            case 1 -> path + "/reviews?sort=newest&page=" + (1 + page % 7);
            default -> path + "?utm_source=" + SOURCES.get(page % SOURCES.size());
        };
    }

    private int weighted(int[] weights) {
        int total = 0;
        for (int w : weights) {
            total += w;
        }
        int pick = random.nextInt(total);
        for (int i = 0; ; i++) {
            pick -= weights[i];
            if (pick < 0) {
                return i;
            }
        }
    }
}
