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
 * ({@code format=schema}) and on the ~200-byte plain JSON ({@code format=schemaless}, schemas.enable=false). One op =
 * one record, so the score is records per second. The records (generated events, seed 42) are encoded beforehand.
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

    @Param({"schema", "schemaless"})
    public String format;

    private Converter reader;
    private byte[][] records;

    @Setup
    public void setUp() throws ReflectiveOperationException {
        boolean withSchema = format.equals("schema");
        reader = converter.equals("JsonConverter") ? new JsonConverter()
                : (Converter) ConnectorClasses.load("io.chsink.connect.convert.JsonEnvelopeConverter")
                        .getDeclaredConstructor().newInstance();
        reader.configure(Map.of("schemas.enable", String.valueOf(withSchema)), false);
        EventGenerator events = new EventGenerator(42);
        records = new byte[RECORDS][];
        for (int i = 0; i < RECORDS; i++) {
            records[i] = withSchema ? EventJson.withSchema(events.next()) : EventJson.schemaless(events.next());
        }
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public void toConnectData(Blackhole bh) {
        for (byte[] r : records) {
            bh.consume(reader.toConnectData("events", r));
        }
    }
}
