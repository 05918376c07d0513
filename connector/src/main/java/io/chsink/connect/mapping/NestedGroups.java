package io.chsink.connect.mapping;

import io.chsink.connect.encoder.ArrayColumn;
import io.chsink.connect.encoder.NativeBlock;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.schema.ClickHouseType.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Array columns named {@code n.a}, {@code n.b} (a flattened Nested) must hold arrays of equal length in each row,
 * or the server rejects the whole block. After a row is written, {@link #check} finds a column whose array length
 * differs from its group's first column, so that the record alone is rejected.
 */
final class NestedGroups {
    private final int[][] groups;

    NestedGroups(ColumnCodec[] codecs) {
        Map<String, List<Integer>> byPrefix = new LinkedHashMap<>();
        for (int i = 0; i < codecs.length; i++) {
            String name = codecs[i].column().name();
            String prefix = prefix(name);
            if (prefix != null && codecs[i].column().type().kind() == Kind.ARRAY) {
                byPrefix.computeIfAbsent(prefix, k -> new ArrayList<>()).add(i);
            }
        }
        List<int[]> gs = new ArrayList<>();
        for (List<Integer> g : byPrefix.values()) {
            if (g.size() > 1) {
                gs.add(g.stream().mapToInt(Integer::intValue).toArray());
            }
        }
        this.groups = gs.toArray(new int[0][]);
    }

    static String prefix(String column) {
        int dot = column.indexOf('.');
        return dot > 0 ? column.substring(0, dot) : null;
    }

    /** The index of a column whose last array length differs from its group's, or -1 when all agree. */
    int check(NativeBlock block) {
        for (int[] g : groups) {
            long first = length(block.column(g[0]));
            for (int k = 1; k < g.length; k++) {
                if (length(block.column(g[k])) != first) {
                    return g[k];
                }
            }
        }
        return -1;
    }

    private static long length(NativeColumn c) {
        return ((ArrayColumn) c).lastLength();
    }
}
