package io.chsink.it;

import io.chsink.it.kafka.EventProducer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Records {@code {id, payload}} (JSON with JsonConverter's schema envelope) with ids 0, 1, 2, ... to a topic,
 * partitions taking turns (id {@code i} to partition {@code i % partitions}); in the background at a steady pace
 * ({@link #pace}), so that inserts flow while faults are aimed at them, then the rest at once ({@link #finish}).
 */
final class IdStream implements AutoCloseable {
    private static final String SCHEMA = "{\"type\":\"struct\",\"name\":\"chsink.it.IdRow\",\"optional\":false,\"fields\":["
            + "{\"field\":\"id\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"payload\",\"type\":\"string\",\"optional\":false}]}";
    private static final String PADDING = "x".repeat(160);

    private final String topic;
    private final int partitions;
    private final long total;
    private final EventProducer.Batches out;
    private long next;
    private volatile boolean pacing;
    private Thread pacer;

    IdStream(String bootstrapServers, String topic, int partitions, long total) {
        this.topic = topic;
        this.partitions = partitions;
        this.total = total;
        this.out = new EventProducer(bootstrapServers).batches();
    }

    /** The record value of id {@code id}: its payload names it, so that rows differ beyond the id. */
    static byte[] value(long id) {
        return ("{\"schema\":" + SCHEMA + ",\"payload\":{\"id\":" + id + ",\"payload\":\"" + id + "-" + PADDING + "\"}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Sends {@code perSecond} records a second (in four batches) in the background until {@link #finish}, never more
     * than {@code cap} in all.
     */
    synchronized IdStream pace(long perSecond, long cap) {
        pacing = true;
        pacer = new Thread(() -> {
            try {
                while (pacing) {
                    send(Math.min(perSecond / 4, Math.min(cap, total) - produced()));
                    Thread.sleep(250);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "id-stream-" + topic);
        pacer.setDaemon(true);
        pacer.start();
        return this;
    }

    private synchronized void send(long n) {
        for (long k = 0; k < n; k++, next++) {
            out.send(new ProducerRecord<>(topic, (int) (next % partitions), null, value(next)));
        }
        if (n > 0) {
            out.flush();
        }
    }

    synchronized long produced() {
        return next;
    }

    /** Stops the pace and sends the rest, up to the total; returns the total. */
    long finish() throws InterruptedException {
        pacing = false;
        if (pacer != null) {
            pacer.join();
        }
        send(total - produced());
        return produced();
    }

    @Override
    public void close() {
        pacing = false;
        out.close();
    }
}
