package io.chsink.connect.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableColumn.DefaultKind;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

/** What the task works out per schema stays bounded when every record brings a new instance of its schema. */
class SchemaMemoTest {
    /** A schema of 20 fields, made anew: what a transform without a cache hands the sink with every record. */
    private static Schema fresh() {
        SchemaBuilder b = SchemaBuilder.struct().name("srv.public.items.Value");
        for (int i = 0; i < 20; i++) {
            b.field("column_with_a_name_" + i, i % 2 == 0 ? Schema.OPTIONAL_STRING_SCHEMA : Schema.INT64_SCHEMA);
        }
        return b.build();
    }

    @Test
    void identityAndEqualityMemosStartOverPastTheLimit() {
        SchemaMemo<String> byIdentity = SchemaMemo.byIdentity();
        SchemaMemo<String> byEquality = SchemaMemo.byEquality();
        Schema first = fresh();
        byIdentity.put(first, "a");
        byEquality.put(first, "a");
        Schema equal = fresh();
        assertNull(byIdentity.get(equal), "another instance is another identity");
        assertEquals("a", byEquality.get(equal), "but the same schema by equality");
        for (int i = 1; i < SchemaMemo.LIMIT; i++) {
            byIdentity.put(fresh(), "x");
        }
        assertEquals(SchemaMemo.LIMIT, byIdentity.size());
        assertEquals("a", byIdentity.get(first), "kept up to the limit");
        byIdentity.put(first, "b");
        assertEquals(SchemaMemo.LIMIT, byIdentity.size(), "a kept schema replaced: no start over");
        byIdentity.put(fresh(), "y");
        assertEquals(1, byIdentity.size(), "one more: started over");
        assertNull(byIdentity.get(first));
        assertEquals("z", byIdentity.computeIfAbsent(first, s -> "z"));
        assertSame(null, byIdentity.computeIfAbsent(fresh(), s -> null), "a null result");
        assertEquals(2, byIdentity.size(), "is not kept");
    }

    @Test
    void aTableMappingKeepsAFlatHeapOverRecordsWithNewSchemaInstances() {
        TableMapping mapping = new TableMapping(new TableSchema(new TableId("db", "t"), List.of(
                new TableColumn("column_with_a_name_0", ClickHouseType.parse("String"), DefaultKind.NONE))));
        Runtime.getRuntime().gc();
        long before = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        int records = 50_000;
        for (int i = 0; i < records; i++) {
            assertTrue(mapping.lacksColumnsFor(fresh()), "19 fields are no column");
        }
        System.gc();
        System.gc();
        long grown = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() - before;
        System.out.printf("SchemaMemoTest: %d schema instances looked at, heap grown by %d bytes%n", records, grown);
        // 50,000 schemas of 20 fields kept would be about 100 MB; the memo keeps at most 1,000 (about 2 MB).
        assertFalse(grown > 10_000_000, "the heap grew by " + grown + " bytes: schemas are hoarded");
    }
}
