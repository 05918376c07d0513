package io.chsink.it.avro;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Writes values as Confluent's Avro serializers put them on a topic: magic byte 0, the writer schema's registry id
 * (4 bytes, big-endian), then the value in Avro binary, written by Apache Avro's GenericDatumWriter.
 */
public final class AvroWire {
    private final Schema schema;
    private final int id;
    private final GenericDatumWriter<Object> writer;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    private BinaryEncoder encoder;

    public AvroWire(Schema schema, int id) {
        this.schema = schema;
        this.id = id;
        this.writer = new GenericDatumWriter<>(schema, GenericData.get());
    }

    public Schema schema() {
        return schema;
    }

    public int id() {
        return id;
    }

    /** One framed value (a GenericRecord, or a Java value for a primitive schema). */
    public byte[] write(Object datum) {
        out.reset();
        out.write(0);
        out.write(id >>> 24);
        out.write(id >>> 16);
        out.write(id >>> 8);
        out.write(id);
        try {
            encoder = EncoderFactory.get().binaryEncoder(out, encoder);
            writer.write(datum, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
