package io.chsink.it.bench;

import io.chsink.it.events.EventAvro;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventJson;
import io.chsink.it.avro.TestRegistry;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The events dataset read by one converter on one thread, bytes → SchemaAndValue: the plugin's AvroConverter on
 * Confluent-framed Avro ({@link EventAvro}, ~70 bytes a record, the writer schema fetched once from a
 * {@link TestRegistry} and cached) against its JsonEnvelopeConverter on the same events as JSON with schemas
 * ({@link EventJson#withSchema}, ~840 bytes). Both yield the same Struct per event. One op = one record.
 * Both converters come from the connector jar of the unpacked plugin archive ({@link ConnectorClasses}).
 * Run: {@code mvn -B package -Pjmh -Djmh.args="io.chsink.it.bench.AvroConverterBenchmark -prof gc"}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class AvroConverterBenchmark {
    static final int RECORDS = 10_000;

    @Param({"AvroConverter", "JsonEnvelopeConverter"})
    public String converter;

    private TestRegistry registry;
    private Converter reader;
    private byte[][] records;

    @Setup
    public void setUp() throws Exception {
        boolean avro = converter.equals("AvroConverter");
        String name = avro ? "io.chsink.connect.convert.avro.AvroConverter" : "io.chsink.connect.convert.JsonEnvelopeConverter";
        reader = (Converter) ConnectorClasses.load(name).getDeclaredConstructor().newInstance();
        EventAvro encoder = null;
        if (avro) {
            registry = new TestRegistry();
            encoder = EventAvro.registered(registry, "events-value");
            reader.configure(Map.of("schema.registry.url", registry.url()), false);
        } else {
            reader.configure(Map.of("schemas.enable", "true"), false);
        }
        EventGenerator events = new EventGenerator(42);
        records = new byte[RECORDS][];
        long bytes = 0;
        for (int i = 0; i < RECORDS; i++) {
            records[i] = avro ? encoder.encode(events.next()) : EventJson.withSchema(events.next());
            bytes += records[i].length;
        }
        System.out.printf("%n%s: %d records, %.1f bytes per record%n", converter, RECORDS, bytes / (double) RECORDS);
    }

    @TearDown
    public void tearDown() {
        if (registry != null) {
            registry.close();
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
