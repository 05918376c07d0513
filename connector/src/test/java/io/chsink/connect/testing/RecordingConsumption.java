package io.chsink.connect.testing;

import io.chsink.connect.offset.Consumption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/** Our consumption interface, keeping what was asked: the partitions paused now and every seek. */
public final class RecordingConsumption implements Consumption {
    public final Set<TopicPartition> paused = new HashSet<>();
    public final Map<TopicPartition, Long> sought = new HashMap<>();
    /** Every partition resumed, in order. */
    public final List<TopicPartition> resumed = new ArrayList<>();
    public int pauses;
    public int resumes;

    @Override
    public void pause(TopicPartition... partitions) {
        pauses++;
        paused.addAll(List.of(partitions));
    }

    @Override
    public void resume(TopicPartition... partitions) {
        resumes++;
        paused.removeAll(List.of(partitions));
        resumed.addAll(List.of(partitions));
    }

    @Override
    public void seek(Map<TopicPartition, Long> offsets) {
        sought.putAll(offsets);
    }
}
