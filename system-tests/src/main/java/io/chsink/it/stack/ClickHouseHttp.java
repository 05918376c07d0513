package io.chsink.it.stack;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Runs SQL over ClickHouse's HTTP interface with the JDK's HTTP client: the SQL is the POST body, the answer
 * the response body. {@code wait_end_of_query=1} makes the server buffer the result, so an error that happens
 * mid-query still comes back as a non-200 status instead of text appended to a 200 response.
 */
public final class ClickHouseHttp {
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    private final String url;
    private final String user;
    private final String password;

    public ClickHouseHttp(String url, String user, String password) {
        this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.user = user;
        this.password = password == null ? "" : password;
    }

    public String url() {
        return url;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    /** The response body (for example TabSeparated rows); throws {@link ClickHouseQueryException} on any non-200 answer. */
    public String query(String sql) {
        return query(sql, Duration.ofMinutes(10));
    }

    public String query(String sql, Duration timeout) {
        HttpRequest request = request(sql, timeout);
        HttpResponse<String> response;
        try {
            response = CLIENT.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new ClickHouseQueryException("ClickHouse at " + url + " did not answer (" + e + ") to: " + abbreviate(sql), -1, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClickHouseQueryException("interrupted while querying ClickHouse at " + url + ": " + abbreviate(sql), -1, e);
        }
        if (response.statusCode() != 200) {
            throw new ClickHouseQueryException("ClickHouse at " + url + " answered HTTP " + response.statusCode()
                    + " to: " + abbreviate(sql) + "\n" + response.body().trim(), response.statusCode(), null);
        }
        return response.body();
    }

    /**
     * Streams the response body line by line to {@code lines} (large TabSeparated results without holding them in
     * memory); throws {@link ClickHouseQueryException} on any non-200 answer.
     */
    public void queryLines(String sql, Duration timeout, Consumer<String> lines) {
        HttpRequest request = request(sql, timeout);
        try {
            HttpResponse<InputStream> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofInputStream());
            try (BufferedReader in = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8),
                    1 << 16)) {
                if (response.statusCode() != 200) {
                    StringBuilder body = new StringBuilder();
                    in.lines().forEach(l -> body.append(l).append('\n'));
                    throw new ClickHouseQueryException("ClickHouse at " + url + " answered HTTP " + response.statusCode()
                            + " to: " + abbreviate(sql) + "\n" + body.toString().trim(), response.statusCode(), null);
                }
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.accept(line);
                }
            }
        } catch (IOException e) {
            throw new ClickHouseQueryException("ClickHouse at " + url + " did not answer (" + e + ") to: " + abbreviate(sql), -1, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClickHouseQueryException("interrupted while querying ClickHouse at " + url + ": " + abbreviate(sql), -1, e);
        }
    }

    private HttpRequest request(String sql, Duration timeout) {
        return HttpRequest.newBuilder(URI.create(url + "/?wait_end_of_query=1"))
                .timeout(timeout)
                .header("X-ClickHouse-User", user)
                .header("X-ClickHouse-Key", password)
                .POST(HttpRequest.BodyPublishers.ofString(sql, StandardCharsets.UTF_8))
                .build();
    }

    /** Runs a statement whose answer does not matter (DDL, INSERT ... SELECT). */
    public void exec(String sql) {
        query(sql);
    }

    /** The single value of a one-row, one-column result, trimmed. */
    public String scalar(String sql) {
        return query(sql).trim();
    }

    private static String abbreviate(String sql) {
        String oneLine = sql.replaceAll("\\s+", " ").trim();
        return oneLine.length() <= 300 ? oneLine : oneLine.substring(0, 300) + "...";
    }
}
