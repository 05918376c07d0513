package io.chsink.connect.writer;

import com.clickhouse.client.api.ServerException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/** A failed insert, classified: retriable (the same block may succeed later) or permanent (a human must act). */
public final class InsertFailure {
    /**
     * Server error codes worth retrying with the same block, checked against {@code system.errors} of ClickHouse
     * 26.7: transient network, load and replication conditions.
     * <pre>
     *    3 UNEXPECTED_END_OF_FILE        the request body was cut off (connection dropped mid-insert)
     *  107 FILE_DOESNT_EXIST             a part file vanished under the insert (disk/object-storage hiccup)
     *  159 TIMEOUT_EXCEEDED              202 TOO_MANY_SIMULTANEOUS_QUERIES   203 NO_FREE_CONNECTION
     *  209 SOCKET_TIMEOUT                210 NETWORK_ERROR                   225 NO_ZOOKEEPER
     *  236 ABORTED                       241 MEMORY_LIMIT_EXCEEDED           242 TABLE_IS_READ_ONLY (replica lost Keeper)
     *  252 TOO_MANY_PARTS                279 ALL_CONNECTION_TRIES_FAILED     285 TOO_FEW_LIVE_REPLICAS
     *  319 UNKNOWN_STATUS_OF_INSERT      394 QUERY_WAS_CANCELLED (server shutting down)
     *  425 SYSTEM_ERROR (an OS call failed, e.g. too many open files)       439 CANNOT_SCHEDULE_TASK
     *  473 DEADLOCK_AVOIDED              999 KEEPER_EXCEPTION               1000 POCO_EXCEPTION
     * </pre>
     * Not retried, though older lists have it: 164 READONLY means the user's profile has {@code readonly=1}, which
     * no retry fixes. Every other server error (unknown table, access denied, authentication, type mismatch) is
     * permanent.
     */
    private static final Set<Integer> RETRIABLE_CODES = new HashSet<>(Arrays.asList(
            3, 107, 159, 202, 203, 209, 210, 225, 236, 241, 242, 252, 279, 285, 319, 394, 425, 439, 473, 999, 1000));

    /** ATTEMPT_TO_READ_AFTER_EOF: retried only when a remote server's connection ended (see remoteConnectionLost). */
    private static final int ATTEMPT_TO_READ_AFTER_EOF = 32;

    /**
     * Whether the error is a server that the one the connector talks to was sending to (a shard of a Distributed
     * table) closing its connection mid-insert, e.g. killed: {@code Code: 32. DB::Exception: Attempt to read after eof:
     * while receiving packet from 127.0.0.1:9000 ... Insertion status: ...}. The same insert may succeed once the
     * shard is back. Other reads after EOF (a truncated body or file) stay permanent.
     */
    private static boolean remoteConnectionLost(int code, String message) {
        return code == ATTEMPT_TO_READ_AFTER_EOF && message != null && message.contains("while receiving packet from");
    }

    /** AUTHENTICATION_FAILED(516), UNKNOWN_USER(192), WRONG_PASSWORD(193). */
    private static final Set<Integer> AUTHENTICATION_CODES = new HashSet<>(Arrays.asList(516, 192, 193));

    /** ACCESS_DENIED(497), DATABASE_ACCESS_DENIED(291). */
    private static final Set<Integer> ACCESS_CODES = new HashSet<>(Arrays.asList(497, 291));

    /** HTTP statuses of proxies and load balancers in front of ClickHouse that mean "try again". */
    private static final Set<Integer> RETRIABLE_HTTP = new HashSet<>(Arrays.asList(408, 429, 502, 503, 504));

    /**
     * Server error codes that mean the block no longer fits the table (a column was dropped, renamed or changed
     * type): NO_SUCH_COLUMN_IN_TABLE(16), NOT_FOUND_COLUMN_IN_BLOCK(10), THERE_IS_NO_COLUMN(8),
     * NUMBER_OF_COLUMNS_DOESNT_MATCH(20), ILLEGAL_COLUMN(44), UNKNOWN_IDENTIFIER(47), TYPE_MISMATCH(53),
     * CANNOT_CONVERT_TYPE(70).
     */
    private static final Set<Integer> TABLE_CHANGED_CODES = new HashSet<>(Arrays.asList(16, 10, 8, 20, 44, 47, 53, 70));

    /**
     * Server error codes that refuse a block for the values of some of its rows, before any of it is written (checked
     * with ClickHouse 26.7): the same rows are refused again, the others are not. The task narrows such a block down
     * to the rows refused ({@link Narrowing}).
     * <pre>
     *  469 VIOLATED_CONSTRAINT           a CHECK constraint ("... is violated at row N", N from 1 in the block)
     *    6 CANNOT_PARSE_TEXT              27 CANNOT_PARSE_INPUT_ASSERTION_FAILED   38 CANNOT_PARSE_DATE
     *   41 CANNOT_PARSE_DATETIME          69 ARGUMENT_OUT_OF_BOUND                 72 CANNOT_PARSE_NUMBER
     *  117 INCORRECT_DATA                128 TOO_LARGE_ARRAY_SIZE                 131 TOO_LARGE_STRING_SIZE
     *  190 SIZES_OF_ARRAYS_DONT_MATCH    321 VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE   349 CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
     *  407 DECIMAL_OVERFLOW
     * </pre>
     * Not among them: errors of the server's state (retried above), of the table's shape (TYPE_MISMATCH and the
     * like: {@link #tableMismatch}), and throwIf in a materialized view (395), which may come after the table's own
     * part was written.
     */
    private static final Set<Integer> ROW_CODES = new HashSet<>(Arrays.asList(
            469, 6, 27, 38, 41, 69, 72, 117, 128, 131, 190, 321, 349, 407));

    private static final java.util.regex.Pattern AT_ROW = java.util.regex.Pattern.compile(
            "is violated at row (\\d+)\\.");

    private final boolean retriable;
    private final boolean tableMismatch;
    /** The server's error code, or 0 when the failure is not the server's. */
    private final int code;
    private final String message;
    private final Throwable cause;

    private InsertFailure(boolean retriable, String message, Throwable cause) {
        this(retriable, false, 0, message, cause);
    }

    private InsertFailure(boolean retriable, boolean tableMismatch, int code, String message, Throwable cause) {
        this.retriable = retriable;
        this.tableMismatch = tableMismatch;
        this.code = code;
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
            int code = server.getCode();
            boolean retry = RETRIABLE_CODES.contains(code)
                    || (code == ServerException.CODE_UNKNOWN && RETRIABLE_HTTP.contains(server.getTransportProtocolCode()))
                    || remoteConnectionLost(code, server.getMessage());
            String text = "ClickHouse error " + code + ": " + firstLine(server.getMessage());
            if (AUTHENTICATION_CODES.contains(code)) {
                text = "Authentication failed: " + text + " (check clickhouse.user and clickhouse.password)";
            } else if (ACCESS_CODES.contains(code)) {
                text = "Access denied: " + text + " The user lacks a grant: an administrator can give it with the "
                        + "GRANT statement the message names (the connector needs INSERT on its target tables).";
            }
            return new InsertFailure(retry, TABLE_CHANGED_CODES.contains(code), code, text, root);
        }
        javax.net.ssl.SSLException ssl = find(t, javax.net.ssl.SSLException.class);
        if (ssl instanceof javax.net.ssl.SSLHandshakeException || ssl instanceof javax.net.ssl.SSLPeerUnverifiedException) {
            return new InsertFailure(false, "TLS handshake with ClickHouse failed: " + tlsReason(ssl), root);
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

    /** A TLS failure in words: certificate not trusted, host name not in the certificate, or the handshake's own text. */
    public static String tlsReason(javax.net.ssl.SSLException e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains("PKIX path") || m.contains("unable to find valid certification path")
                || m.contains("signature check failed") || m.contains("certificate_unknown")) {
            return "the server's certificate is not signed by a CA in the trust store "
                    + "(clickhouse.ssl.truststore.location, else the JVM's default): " + firstLine(m);
        }
        if (e instanceof javax.net.ssl.SSLPeerUnverifiedException || m.contains("doesn't match")
                || m.contains("No subject alternative")) {
            return "the server's certificate does not name the host of clickhouse.url "
                    + "(clickhouse.ssl.hostname.verification): " + firstLine(m);
        }
        if (m.contains("bad_certificate") || m.contains("certificate_required")) {
            return "the server refused the client certificate (clickhouse.ssl.keystore.location): " + firstLine(m);
        }
        return e.getClass().getSimpleName() + ": " + firstLine(m);
    }

    /** Whether the failure says that the credentials are wrong. */
    public boolean authentication() {
        return message.startsWith("Authentication failed");
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

    /** The server refused the block for the values of some of its rows: the others can be inserted without them. */
    public boolean rowLevel() {
        return ROW_CODES.contains(code);
    }

    /**
     * The row, from 0 in the inserted rows, that the server names as the one refused ("is violated at row N"), or -1
     * when the message names none.
     */
    public int refusedRow() {
        if (code != 469) {
            return -1;
        }
        java.util.regex.Matcher m = AT_ROW.matcher(message);
        if (!m.find()) {
            return -1;
        }
        try {
            return Integer.parseInt(m.group(1)) - 1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The server's error code, or 0 when the failure did not come from the server. */
    public int code() {
        return code;
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
