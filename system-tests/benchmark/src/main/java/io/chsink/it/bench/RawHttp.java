package io.chsink.it.bench;

import com.clickhouse.client.api.internal.ClickHouseLZ4OutputStream;
import io.chsink.it.stack.ClickHouseServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jpountz.lz4.LZ4Factory;

/**
 * Raw byte bodies over ClickHouse's HTTP interface: a query's result as bytes, and an INSERT whose data is a
 * byte body, timed on both sides (client round trip, and the server's own {@code elapsed_ns} from the
 * {@code X-ClickHouse-Summary} header). Also frames a body in ClickHouse's compressed format with client-v2's
 * own LZ4 stream (64 KiB chunks), which is what the connector sends.
 * <p>
 * Every request asks for {@code Connection: close}: an idle keep-alive connection left open here would hold up the
 * embedded server's clean shutdown by 5 s (and make it exit 1). JDK 17's HttpClient sends that header only when the
 * JVM starts with {@code jdk.httpclient.allowRestrictedHeaders=connection}, which {@link WireFormatBench} sets before
 * any HTTP class loads. A new loopback connection per request costs well under a millisecond.
 */
final class RawHttp {
    /** One timed insert. */
    record Insert(long clientNanos, long serverNanos, long writtenRows) {
    }

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern SUMMARY_FIELD = Pattern.compile("\"(\\w+)\":\"?(\\d+)\"?");

    private final ClickHouseServer server;

    RawHttp(ClickHouseServer server) {
        this.server = server;
    }

    /** The result of {@code sql} (which names its FORMAT) as raw bytes; buffered by the server, so errors are seen. */
    byte[] export(String sql) {
        HttpRequest request = request(Map.of("wait_end_of_query", "1"))
                .POST(HttpRequest.BodyPublishers.ofString(sql, StandardCharsets.UTF_8)).build();
        HttpResponse<byte[]> response = send(request, HttpResponse.BodyHandlers.ofByteArray(), sql);
        if (response.statusCode() != 200) {
            throw new IllegalStateException("export failed with HTTP " + response.statusCode() + ": " + sql + "\n"
                    + new String(response.body(), StandardCharsets.UTF_8).trim());
        }
        return response.body();
    }

    /**
     * Runs {@code insertSql} (an {@code INSERT ... FORMAT X}) with {@code body} as its data; with {@code lz4} the body
     * is in ClickHouse's compressed framing ({@code decompress=1}). {@code settings} go into the URL.
     */
    Insert insert(String insertSql, byte[] body, boolean lz4, Map<String, String> settings) {
        Map<String, String> params = new LinkedHashMap<>(settings);
        params.put("query", insertSql);
        params.put("wait_end_of_query", "1");
        if (lz4) {
            params.put("decompress", "1");
        }
        HttpRequest request = request(params).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        long start = System.nanoTime();
        HttpResponse<String> response = send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8), insertSql);
        long clientNanos = System.nanoTime() - start;
        if (response.statusCode() != 200) {
            throw new IllegalStateException("insert failed with HTTP " + response.statusCode() + ": " + insertSql
                    + "\n" + response.body().trim());
        }
        String summary = response.headers().firstValue("X-ClickHouse-Summary").orElse("");
        return new Insert(clientNanos, summaryField(summary, "elapsed_ns"), summaryField(summary, "written_rows"));
    }

    /** {@code body} framed as client-v2 frames request bodies: LZ4 blocks of 64 KiB with ClickHouse's checksummed header. */
    static byte[] lz4(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 2 + 1024);
        try (OutputStream lz4 = new ClickHouseLZ4OutputStream(out, LZ4Factory.fastestInstance().fastCompressor(),
                ClickHouseLZ4OutputStream.UNCOMPRESSED_BUFF_SIZE)) {
            lz4.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private HttpRequest.Builder request(Map<String, String> params) {
        StringBuilder query = new StringBuilder();
        params.forEach((k, v) -> query.append(query.length() == 0 ? "?" : "&").append(k).append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
        return HttpRequest.newBuilder(URI.create(server.url() + "/" + query))
                .timeout(Duration.ofMinutes(10))
                .header("Connection", "close")
                .header("X-ClickHouse-User", server.user())
                .header("X-ClickHouse-Key", server.password());
    }

    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler, String sql) {
        try {
            return CLIENT.send(request, handler);
        } catch (IOException e) {
            throw new UncheckedIOException("ClickHouse at " + server.url() + " did not answer to: " + sql, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + sql, e);
        }
    }

    /** A numeric field of the summary header, -1 when absent. */
    private static long summaryField(String summary, String name) {
        Matcher m = SUMMARY_FIELD.matcher(summary);
        while (m.find()) {
            if (m.group(1).equals(name)) {
                return Long.parseLong(m.group(2));
            }
        }
        return -1;
    }
}
