package io.chsink.connect.testing;

import io.chsink.connect.offset.Consumption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** A {@link Consumption} for unit tests that keeps the seeks asked of it, in order (pauses are ignored). */
public final class RecordedSeeks implements Consumption {
    public final List<Map<TopicPartition, Long>> seeks = new ArrayList<>();

    @Override
    public void pause(TopicPartition... partitions) {
    }

    @Override
    public void resume(TopicPartition... partitions) {
    }

    @Override
    public void seek(Map<TopicPartition, Long> offsets) {
        seeks.add(new HashMap<>(offsets));
    }
}
