package io.chsink.connect.writer;

import com.clickhouse.client.api.ServerException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/** A failed insert, classified: retriable (the same block may succeed later) or permanent (a human must act). */
public final class InsertFailure {
    /**
     * Server error codes worth retrying with the same block: transient server, network and load conditions
     * (e.g. 159 TIMEOUT_EXCEEDED, 202 TOO_MANY_SIMULTANEOUS_QUERIES, 209 SOCKET_TIMEOUT, 210 NETWORK_ERROR,
     * 241 MEMORY_LIMIT_EXCEEDED, 242 TABLE_IS_READ_ONLY, 252 TOO_MANY_PARTS, 319 UNKNOWN_STATUS_OF_INSERT,
     * 999 KEEPER_EXCEPTION). Every other server error (unknown table, access denied, type mismatch) is permanent.
     */
    private static final Set<Integer> RETRIABLE_CODES = new HashSet<>(Arrays.asList(
            3, 107, 159, 164, 202, 203, 209, 210, 236, 241, 242, 252, 279, 285, 319, 425, 999, 1000));

    /**
     * Server error codes that mean the block no longer fits the table (a column was dropped, renamed or changed
     * type): NO_SUCH_COLUMN_IN_TABLE(16), NOT_FOUND_COLUMN_IN_BLOCK(10), THERE_IS_NO_COLUMN(8),
     * NUMBER_OF_COLUMNS_DOESNT_MATCH(20), ILLEGAL_COLUMN(44), UNKNOWN_IDENTIFIER(47), TYPE_MISMATCH(53),
     * CANNOT_CONVERT_TYPE(70).
     */
    private static final Set<Integer> TABLE_CHANGED_CODES = new HashSet<>(Arrays.asList(16, 10, 8, 20, 44, 47, 53, 70));

    private final boolean retriable;
    private final boolean tableMismatch;
    private final String message;
    private final Throwable cause;

    private InsertFailure(boolean retriable, String message, Throwable cause) {
        this(retriable, false, message, cause);
    }

    private InsertFailure(boolean retriable, boolean tableMismatch, String message, Throwable cause) {
        this.retriable = retriable;
        this.tableMismatch = tableMismatch;
        this.message = message;
        this.cause = cause;
    }

    public static InsertFailure classify(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root
                && (root instanceof java.util.concurrent.CompletionException
                    || root instanceof java.util.concurrent.ExecutionException)) {
            root = root.getCause();
        }
        ServerException server = find(t, ServerException.class);
        if (server != null) {
            boolean retry = RETRIABLE_CODES.contains(server.getCode());
            return new InsertFailure(retry, TABLE_CHANGED_CODES.contains(server.getCode()),
                    "ClickHouse error " + server.getCode() + ": " + firstLine(server.getMessage()), root);
        }
        java.io.IOException io = find(t, java.io.IOException.class); // connect, socket timeout, reset
        if (io != null) {
            return new InsertFailure(true, "ClickHouse unreachable: " + io.getClass().getSimpleName() + ": "
                    + firstLine(io.getMessage()), root);
        }
        if (find(t, com.clickhouse.client.api.ClientException.class) != null) {
            return new InsertFailure(true, "ClickHouse client error: " + firstLine(root.getMessage()), root);
        }
        return new InsertFailure(false, root.getClass().getSimpleName() + ": " + firstLine(root.getMessage()), root);
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "(no message)";
        }
        int nl = s.indexOf('\n');
        String line = nl < 0 ? s : s.substring(0, nl);
        return line.length() > 1000 ? line.substring(0, 1000) + "..." : line;
    }

    public boolean retriable() {
        return retriable;
    }

    /** The server rejected the block's columns: the table may have changed since the block was encoded. */
    public boolean tableMismatch() {
        return tableMismatch;
    }

    public String message() {
        return message;
    }

    public Throwable cause() {
        return cause;
    }
}
