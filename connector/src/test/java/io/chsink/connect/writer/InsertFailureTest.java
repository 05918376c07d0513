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
        for (int code : new int[] {3, 107, 159, 202, 203, 209, 210, 225, 236, 241, 242, 252, 279, 285, 319, 394, 425,
                439, 473, 999, 1000}) {
            InsertFailure f = InsertFailure.classify(new ServerException(code, "Code: " + code + ". DB::Exception", 500, "q"));
            assertTrue(f.retriable(), "code " + code);
            assertTrue(f.message().startsWith("ClickHouse error " + code + ": "), f.message());
        }
    }

    @Test
    void aShardLostMidInsertIsRetriableOtherReadsAfterEofAreNot() {
        InsertFailure shard = InsertFailure.classify(new ServerException(32, "Code: 32. DB::Exception: Attempt to read "
                + "after eof: while receiving packet from 127.0.0.1:9000, local address: 127.0.0.1:54644: Insertion "
                + "status:\nWrote 1 blocks and 137 rows on shard 0 replica 0, 127.0.0.1:9001", 500, "q"));
        assertTrue(shard.retriable(), shard.message());
        assertTrue(shard.message().contains("127.0.0.1:9000"), shard.message());
        assertFalse(InsertFailure.classify(new ServerException(32, "Code: 32. DB::Exception: Attempt to read after "
                + "eof: while reading column payload", 500, "q")).retriable());
    }

    @Test
    void schemaAndPermissionErrorsArePermanent() {
        // UNKNOWN_TABLE, UNKNOWN_DATABASE, NO_SUCH_COLUMN_IN_TABLE, TYPE_MISMATCH, ACCESS_DENIED, AUTHENTICATION_FAILED
        for (int code : new int[] {60, 81, 16, 53, 497, 516, 192, 193, 164, 291}) {
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

    @Test
    void authenticationAndGrantFailuresSayWhatToFix() {
        InsertFailure auth = InsertFailure.classify(new ServerException(516,
                "Code: 516. DB::Exception: u: Authentication failed: password is incorrect", 401, "q"));
        assertTrue(auth.authentication() && !auth.retriable(), auth.message());
        assertTrue(auth.message().contains("clickhouse.password"), auth.message());
        InsertFailure grant = InsertFailure.classify(new ServerException(497, "Code: 497. DB::Exception: u: Not enough "
                + "privileges. To execute this query, it's necessary to have the grant INSERT(a) ON db.t.", 403, "q"));
        assertFalse(grant.retriable());
        assertTrue(grant.message().startsWith("Access denied") && grant.message().contains("GRANT"), grant.message());
    }

    @Test
    void proxyUnavailabilityIsRetriableButOtherHttpErrorsAreNot() {
        assertTrue(InsertFailure.classify(new ServerException(ServerException.CODE_UNKNOWN, "Bad Gateway", 502, "q")).retriable());
        assertFalse(InsertFailure.classify(new ServerException(ServerException.CODE_UNKNOWN, "Forbidden", 403, "q")).retriable());
    }

    @Test
    void untrustedCertificatesArePermanentAndSaySo() {
        InsertFailure f = InsertFailure.classify(new ClientException("request failed", new javax.net.ssl.SSLHandshakeException(
                "PKIX path building failed: unable to find valid certification path to requested target")));
        assertFalse(f.retriable());
        assertTrue(f.message().contains("not signed by a CA in the trust store"), f.message());
        InsertFailure host = InsertFailure.classify(new javax.net.ssl.SSLPeerUnverifiedException(
                "Certificate for <db.example> doesn't match any of the subject alternative names: [localhost]"));
        assertFalse(host.retriable());
        assertTrue(host.message().contains("does not name the host"), host.message());
    }
}
