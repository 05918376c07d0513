package io.chsink.connect.mapping.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.chsink.connect.mapping.ValueException;
import java.util.Arrays;
import java.util.Collections;
import org.junit.jupiter.api.Test;

/** The ClickHouse type a Dynamic value is stored under, by its Java kind. */
class DynamicWriterTest {
    @Test
    void dynamicValuesAreStoredUnderTheTypeTheirKindNames() {
        assertEquals("Int64", DynamicWriter.typeOf(1L));
        assertEquals("Array(Nullable(Float64))", DynamicWriter.typeOf(Arrays.asList(1L, null, 2.5)));
        assertEquals("Decimal(38, 2)", DynamicWriter.typeOf(new java.math.BigDecimal("-12.34")));
        assertEquals("Array(Array(String))", DynamicWriter.typeOf(Arrays.asList(Arrays.asList("a"), Collections.emptyList())));
        assertThrows(ValueException.class, () -> DynamicWriter.typeOf(Arrays.asList((1L << 60) + 1, 0.5)));
        assertThrows(ValueException.class, () -> DynamicWriter.typeOf(Arrays.asList("a", 1L)));
        assertEquals("Array(JSON(max_dynamic_types=16, max_dynamic_paths=256))",
                DynamicWriter.typeOf(Arrays.asList(Collections.singletonMap("a", 1L), null)));
    }
}
