package io.chsink.connect.metrics;

/** The counters of one target table (the getters are {@link Counters}'). */
final class TableMetrics extends Counters implements TableMetricsMBean {
}
