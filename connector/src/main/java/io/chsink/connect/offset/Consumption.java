package io.chsink.connect.offset;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkTaskContext;

/** What the task may ask of Connect's consumer: pause, resume and seek partitions. */
public interface Consumption {
    void pause(TopicPartition... partitions);

    void resume(TopicPartition... partitions);

    /** Connect redelivers the partitions' records from these offsets after the current batch. */
    void seek(Map<TopicPartition, Long> offsets);

    /** Connect's own, for a running task. */
    static Consumption of(SinkTaskContext context) {
        return new Consumption() {
            @Override
            public void pause(TopicPartition... partitions) {
                context.pause(partitions);
            }

            @Override
            public void resume(TopicPartition... partitions) {
                context.resume(partitions);
            }

            @Override
            public void seek(Map<TopicPartition, Long> offsets) {
                context.offset(offsets);
            }
        };
    }
}
