package io.chsink.connect.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.schema.ClickHouseType;
import org.junit.jupiter.api.Test;

/** How a table column travels: the wire type its codec names and the nulls it writes. */
class ColumnCodecTest {
    @Test
    void lowCardinalityOfNullableNonStringsTravelsAsNullable() {
        io.chsink.connect.schema.TableColumn c = new io.chsink.connect.schema.TableColumn("x",
                ClickHouseType.parse("LowCardinality(Nullable(Int32))"),
                io.chsink.connect.schema.TableColumn.DefaultKind.NONE);
        ColumnCodec codec = ColumnCodec.forColumn(c);
        assertEquals("Nullable(Int32)", codec.wireType());
        NativeColumn col = codec.newColumn(2);
        col.markRow();
        codec.write(null, col);
        codec.write(7, col);
    }
}
