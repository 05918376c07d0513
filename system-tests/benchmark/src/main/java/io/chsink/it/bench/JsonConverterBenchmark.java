package io.chsink.it.bench;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventJson;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Reading the events dataset's records on one thread, bytes → SchemaAndValue (Converter.toConnectData, what a
 * Connect worker does for every record before put()): Kafka's JsonConverter against the connector's
 * io.chsink.connect.convert.JsonEnvelopeConverter, on the ~840-byte envelopes with schemas that EventProducer writes
 * ({@code format=schema}), on the ~200-byte plain JSON ({@code format=schemaless}, schemas.enable=false) and on path
 * V's Debezium change events of 4 tables as Kafka's JsonConverter writes them (~3,900 bytes, {@code format=debezium},
 * 10% of the updates with the TOAST placeholder; tombstones left out). One op = one record, so the score is records per
 * second. The records (generated events, seed 42) are encoded beforehand.
 * Run: {@code mvn -B package -Pjmh -Djmh.args="io.chsink.it.bench.JsonConverterBenchmark"} (add JMH options such as
 * {@code -prof gc} after it).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class JsonConverterBenchmark {
    static final int RECORDS = 10_000;

    @Param({"JsonConverter", "JsonEnvelopeConverter"})
    public String converter;

    @Param({"schema", "schemaless", "debezium"})
    public String format;

    private Converter reader;
    /** Each record's topic (path V's: one per table). */
    private String[] topics;
    private byte[][] records;

    @Setup
    public void setUp() throws ReflectiveOperationException {
        boolean withSchema = !format.equals("schemaless");
        reader = converter.equals("JsonConverter") ? new JsonConverter()
                : (Converter) ConnectorClasses.load("io.chsink.connect.convert.JsonEnvelopeConverter")
                        .getDeclaredConstructor().newInstance();
        reader.configure(Map.of("schemas.enable", String.valueOf(withSchema)), false);
        if (format.equals("debezium")) {
            topics = new String[RECORDS];
            records = changeEvents(topics);
            return;
        }
        EventGenerator events = new EventGenerator(42);
        records = new byte[RECORDS][];
        topics = new String[RECORDS];
        java.util.Arrays.fill(topics, "events");
        for (int i = 0; i < RECORDS; i++) {
            records[i] = withSchema ? EventJson.withSchema(events.next()) : EventJson.schemaless(events.next());
        }
    }

    /** The values of path V's first {@link #RECORDS} change events (seed 42, 4 tables), tombstones and truncates left out. */
    static byte[][] changeEvents(String[] topics) {
        java.util.List<DebeziumEvents> shapes = new java.util.ArrayList<>();
        java.util.UUID run = new java.util.UUID(42, 42);
        for (int t = 0; t < 4; t++) {
            shapes.add(new DebeziumEvents("bench", CdcPath.tableName(t), run));
        }
        ChangeWire wire = new ChangeWire.Json();
        java.util.List<byte[]> out = new java.util.ArrayList<>();
        new ChangeStream(4, RECORDS * 2L, 42, 10).generate(c -> {
            if (c.op() != 't' && out.size() < RECORDS) {
                DebeziumEvents s = shapes.get(c.table());
                topics[out.size()] = s.topic;
                out.add(wire.value(s, s.topic, s.envelope(c)));
            }
        });
        return out.toArray(new byte[0][]);
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public void toConnectData(Blackhole bh) {
        for (int i = 0; i < records.length; i++) {
            bh.consume(reader.toConnectData(topics[i], records[i]));
        }
    }
}
