package io.chsink.it.stack;

/** A query that ClickHouse refused or could not answer; the message quotes the server's error text. */
public final class ClickHouseQueryException extends RuntimeException {
    private final int httpStatus;

    ClickHouseQueryException(String message, int httpStatus, Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
    }

    /** The HTTP status of the answer, or -1 when there was none (connection refused, timeout). */
    public int httpStatus() {
        return httpStatus;
    }
}
