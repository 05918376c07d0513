package io.chsink.connect.writer;

import net.jpountz.lz4.LZ4Factory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes client-v2 compress inserts with lz4-java's JNI binding (the C library) instead of its pure-Java one.
 * client-v2 takes {@code LZ4Factory.fastestInstance()}, and lz4-java loads its native library there only for the
 * system class loader, never for a plugin's: inside Kafka Connect every insert was compressed in Java. Loading it
 * once here, from this plugin's class loader (lz4-java extracts its own copy of the library), makes
 * {@code fastestInstance()} native for the clients built after. Where the library cannot load (another OS or CPU,
 * a temp directory mounted noexec) the Java compressor stays, as before. Logged once, at INFO.
 */
final class Lz4Native {
    private static final Logger LOG = LoggerFactory.getLogger(Lz4Native.class);
    private static volatile String implementation;

    private Lz4Native() {
    }

    /** Loads the native library if it can (once); returns which compressor clients built now use. */
    static String ensureLoaded() {
        String known = implementation;
        if (known != null) {
            return known;
        }
        synchronized (Lz4Native.class) {
            if (implementation == null) {
                String why = null;
                try {
                    LZ4Factory.nativeInstance();
                } catch (LinkageError | RuntimeException | AssertionError e) {
                    // UnsatisfiedLinkError / ExceptionInInitializerError, or lz4-java's own AssertionError
                    why = e.getClass().getSimpleName() + ": " + e.getMessage();
                }
                implementation = LZ4Factory.fastestInstance().fastCompressor().getClass().getSimpleName();
                if (why == null) {
                    LOG.info("LZ4 compression of inserts: {} (lz4-java's native library)", implementation);
                } else {
                    LOG.info("LZ4 compression of inserts: {} (lz4-java's native library could not load: {})",
                            implementation, why);
                }
            }
            return implementation;
        }
    }
}
