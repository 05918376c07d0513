package io.chsink.it.bench;

import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.sink.SinkRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The connector's encoder on the events schema, records → Native bytes, per record: {@code append} is
 * TableMapping.append into a fresh block (column writers resolved once per schema, values written into growing
 * column buffers; buffer growth included); {@code appendIntoReusedBlock} appends into a block emptied with
 * NativeBlock.reset, as the task's BlockRecycler hands the buffers of a table's last block to its next one;
 * {@code appendAndWrite} adds NativeBlock.writeTo into a discarding stream to the reused block. The records (Struct with schema, as JsonConverter makes them) are built once, outside the measurement.
 * Run with JMH's GC profiler so that allocation per record shows as {@code gc.alloc.rate.norm} (bytes/op, one op =
 * one record): {@code mvn -B package -Pjmh} (see README "Benchmarks").
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class EncoderBenchmark {
    /** Records per invocation: one block of this many rows. */
    static final int ROWS = 100_000;

    private List<SinkRecord> records;
    private ConnectorEncoder encoder;
    private final OutputStream discard = OutputStream.nullOutputStream();
    private Object reused;

    @Setup
    public void setUp() {
        records = ConnectorEncoder.records("events", 42, ROWS, 4);
        encoder = ConnectorEncoder.forEventsTable();
        reused = append();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public Object append() {
        // Sized as the task sizes a new block's buffers before they grow (BlockSizing, under the default flush.max.rows).
        Object block = encoder.newBlock(ConnectorDefaults.INITIAL_ROWS);
        for (SinkRecord r : records) {
            encoder.append(r, block);
        }
        return block;
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public Object appendIntoReusedBlock() {
        if (!ConnectorEncoder.reset(reused)) {
            throw new IllegalStateException("the events table's columns cannot be reused");
        }
        for (SinkRecord r : records) {
            encoder.append(r, reused);
        }
        return reused;
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public Object appendAndWrite() {
        Object block = appendIntoReusedBlock();
        ConnectorEncoder.writeTo(block, discard);
        return block;
    }
}
