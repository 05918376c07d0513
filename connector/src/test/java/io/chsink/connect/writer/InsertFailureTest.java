package io.chsink.connect.writer;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.clickhouse.client.api.ClientException;
import com.clickhouse.client.api.ServerException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class InsertFailureTest {
    @Test
    void transientServerErrorsAreRetriable() {
        for (int code : new int[] {159, 202, 209, 210, 241, 242, 252, 319, 999}) {
            InsertFailure f = InsertFailure.classify(new ServerException(code, "Code: " + code + ". DB::Exception", 500, "q"));
            assertTrue(f.retriable(), "code " + code);
            assertTrue(f.message().startsWith("ClickHouse error " + code + ": "), f.message());
        }
    }

    @Test
    void schemaAndPermissionErrorsArePermanent() {
        // UNKNOWN_TABLE, UNKNOWN_DATABASE, NO_SUCH_COLUMN_IN_TABLE, TYPE_MISMATCH, ACCESS_DENIED, AUTHENTICATION_FAILED
        for (int code : new int[] {60, 81, 16, 53, 497, 516}) {
            assertFalse(InsertFailure.classify(new ServerException(code, "x", 500, "q")).retriable(), "code " + code);
        }
    }

    @Test
    void networkFailuresAreRetriableEvenWhenWrapped() {
        InsertFailure f = InsertFailure.classify(new CompletionException(
                new ClientException("request failed", new ConnectException("Connection refused"))));
        assertTrue(f.retriable());
        assertTrue(f.message().contains("Connection refused"), f.message());
    }

    @Test
    void verificationFailuresArePermanent() {
        assertFalse(InsertFailure.classify(new IllegalStateException("ClickHouse reported 0 rows written")).retriable());
    }

    @Test
    void messagesKeepOnlyTheFirstLineOfTheServerText() {
        InsertFailure f = InsertFailure.classify(new ServerException(60, "Code: 60. Table x does not exist\nStack trace: ...", 404, "q"));
        assertFalse(f.message().contains("Stack trace"), f.message());
    }
}
