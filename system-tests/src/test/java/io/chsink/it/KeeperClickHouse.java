package io.chsink.it;

import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.Stack;
import io.chsink.it.stack.ZooKeeperNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * A ClickHouse of a test's own with a ZooKeeper (so that the exactly-once state table is a KeeperMap), beside the
 * shared Kafka and Connect worker; for tests that need the local stack (they kill or reconfigure it).
 */
final class KeeperClickHouse implements AutoCloseable {
    final ZooKeeperNode zookeeper;
    final ClickHouseServer clickhouse;

    private KeeperClickHouse(ZooKeeperNode zookeeper, ClickHouseServer clickhouse) {
        this.zookeeper = zookeeper;
        this.clickhouse = clickhouse;
    }

    /** Skips the test unless the stack is local; starts ZooKeeper and ClickHouse under the work dir's {@code name}. */
    static KeeperClickHouse start(String name, String whyLocal) {
        Assumptions.assumeTrue(System.getProperty("chsink.connect.url") == null
                && System.getenv("CHSINK_CONNECT_URL") == null, whyLocal);
        Stack.shared();
        Path dir = Stack.workDir(name);
        ZooKeeperNode zookeeper = new ZooKeeperNode().start(dir.resolve("zookeeper"));
        try {
            return new KeeperClickHouse(zookeeper, ClickHouseServer.builder(dir.resolve("clickhouse")).zookeeper(zookeeper)
                    .start());
        } catch (RuntimeException e) {
            zookeeper.close();
            throw e;
        }
    }

    /** Stops ClickHouse, then ZooKeeper; {@code owner} names the test in what cannot be stopped. */
    static void stopQuietly(KeeperClickHouse k, String owner) {
        if (k != null) {
            k.close(owner);
        }
    }

    private void close(String owner) {
        for (AutoCloseable c : new AutoCloseable[] {clickhouse, zookeeper}) {
            try {
                c.close();
            } catch (Exception e) {
                System.err.println(owner + ": cannot stop " + c + ": " + e);
            }
        }
    }

    @Override
    public void close() {
        close(getClass().getSimpleName());
    }
}
