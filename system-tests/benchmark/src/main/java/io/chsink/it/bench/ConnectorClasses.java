package io.chsink.it.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The connector's classes for the in-process benchmark paths. The benchmark never compiles against them: they come
 * from the classpath when a profile puts the connector jar there (runtime scope), otherwise from the connector jar
 * of the unpacked plugin archive ({@code chsink.plugin.path}), the same jar the Connect worker loads. The jar is
 * loaded parent-first, so it shares client-v2 and connect-api with this JVM (the versions are the same).
 */
final class ConnectorClasses {
    private static final String PROBE = "io.chsink.connect.ClickHouseSinkTask";
    private static volatile ClassLoader loader;

    private ConnectorClasses() {
    }

    static Class<?> load(String name) throws ClassNotFoundException {
        return Class.forName(name, true, loader());
    }

    /** Where the connector's classes come from, for the report. */
    static String source() {
        ClassLoader l = loader();
        return l instanceof URLClassLoader u && l != ConnectorClasses.class.getClassLoader()
                ? "plugin archive jar " + u.getURLs()[0].getPath() : "the classpath";
    }

    private static ClassLoader loader() {
        ClassLoader l = loader;
        if (l != null) {
            return l;
        }
        synchronized (ConnectorClasses.class) {
            if (loader == null) {
                loader = resolve();
            }
            return loader;
        }
    }

    private static ClassLoader resolve() {
        ClassLoader own = ConnectorClasses.class.getClassLoader();
        try {
            Class.forName(PROBE, false, own);
            return own;
        } catch (ClassNotFoundException notOnClasspath) {
            // fall through to the plugin archive
        }
        String dir = System.getProperty("chsink.plugin.path");
        if (dir == null) {
            throw new IllegalStateException("the connector's classes are neither on the classpath nor findable: system "
                    + "property chsink.plugin.path (the unpacked plugin archive) is not set");
        }
        try (Stream<Path> files = Files.walk(Path.of(dir))) {
            List<Path> jars = files.filter(p -> p.getFileName().toString().matches("chsink-connector-.*\\.jar")).toList();
            if (jars.size() != 1) {
                throw new IllegalStateException("expected one chsink-connector jar under " + dir + ", found " + jars);
            }
            return new URLClassLoader(new URL[] {jars.get(0).toUri().toURL()}, own);
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot look for the connector jar under " + dir, e);
        }
    }
}
