package io.chsink.it;

import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.ConnectWorker;
import java.time.Duration;
import java.util.List;

/**
 * SIGKILLs of a {@link ShardedTable}'s servers, or of the Connect worker, while the connector inserts into it, each
 * aimed at an insert seen running on a shard, and restarts (servers on the same data dir and ports). While a kill aims, the aimed-at shards' local
 * tables hold a CHECK constraint that sleeps {@value #SLOW_SECONDS} s per inserted block before the block is written
 * (measured: a shard SIGKILLed in that sleep has not committed the block, while the other shard, without the
 * constraint, has committed its part of the same insert): an insert seen running is still running at the kill, and
 * a kill of shard 2 comes after shard 1's commit of the same block and before shard 2's.
 */
final class ClusterFaults {
    private static final String SLOW_SECONDS = "1";
    private static final String SLOW = "chsink_slow_insert";

    /**
     * A kill: the insert it met, as the shard listed it just before the SIGKILL ({@code initialQueryId} is the
     * initiator's query of the insert, {@code token} its deduplication token, empty if none); null fields when
     * no insert ran within the aim.
     */
    record Kill(String target, String initialQueryId, String token, int shard, String what) {
        boolean hit() {
            return initialQueryId != null;
        }
    }

    private final ShardedTable table;
    private final Duration aim;

    ClusterFaults(ShardedTable table, Duration aim) {
        this.table = table;
        this.aim = aim;
    }

    /**
     * Kills shard {@code shard} while an insert into its local table runs there, after the other shards are done
     * with the same insert (their part committed or failed) while it still sleeps in the constraint, before writing
     * (see {@link #early}); starts it again after {@code down}.
     */
    Kill killShardMidInsert(int shard, Duration down) throws InterruptedException {
        ClickHouseServer s = table.cluster.shard(shard);
        slow(shard, true);
        String[] seen;
        try {
            long deadline = System.nanoTime() + aim.toNanos();
            while (true) {
                seen = awaitInsert(List.of(shard), deadline);
                if (seen == null) {
                    break;
                }
                awaitOtherShardsDone(shard, seen[1]);
                if (early(shard, seen[1])) {
                    break;
                }
                Thread.sleep(3); // near its end or ended: aim at the next one
            }
            s.kill();
        } catch (RuntimeException e) {
            slow(shard, false);
            throw e;
        }
        Thread.sleep(down.toMillis());
        s.start();
        slow(shard, false);
        String target = "shard " + shard + " (" + table.cluster.address(shard) + ")";
        return seen == null ? new Kill(target, null, null, shard, "MISSED: no insert on " + target + " within " + aim)
                : new Kill(target, seen[1], seen[2], shard, "SIGKILL of " + target + " during " + seen[3]);
    }

    /** Kills the initiator while a shard runs an insert of it into the local table; starts it again after {@code down}. */
    Kill killInitiatorMidInsert(Duration down) throws InterruptedException {
        List<Integer> aborted = new java.util.ArrayList<>();
        List<Integer> all = java.util.stream.IntStream.rangeClosed(1, table.cluster.shardCount()).boxed().toList();
        all.forEach(i -> slow(i, true));
        String[] seen;
        try {
            seen = awaitInsert(all, System.nanoTime() + aim.toNanos());
            table.initiator().kill();
            Thread.sleep(down.toMillis());
            // clickhouse-local's TCP handler (not clickhouse-server's) can abort on the initiator's reset connection
            // ("Terminate called for uncaught exception: ... Connection reset by peer"): such a shard is started
            // again, as a server's supervisor would.
            for (int i : all) {
                if (!table.cluster.shard(i).isRunning()) {
                    aborted.add(i);
                    table.cluster.shard(i).start();
                }
            }
            table.initiator().start();
        } finally {
            all.forEach(i -> slow(i, false));
        }
        String target = "the initiator" + (aborted.isEmpty() ? "" : " (shards " + aborted + " aborted with it, restarted)");
        return seen == null ? new Kill(target, null, null, 0, "MISSED: no insert on a shard within " + aim)
                : new Kill(target, seen[1], seen[2], Integer.parseInt(seen[0]), "SIGKILL of " + target + " during "
                        + seen[3]);
    }

    /**
     * SIGKILLs the Connect worker while a shard runs an insert of it into the local table, then starts it again: the
     * block in flight is recorded and its offsets not committed, so the restarted task rebuilds it.
     */
    Kill killWorkerMidInsert(ConnectWorker worker) throws InterruptedException {
        List<Integer> all = java.util.stream.IntStream.rangeClosed(1, table.cluster.shardCount()).boxed().toList();
        all.forEach(i -> slow(i, true));
        String[] seen;
        try {
            seen = awaitInsert(all, System.nanoTime() + aim.toNanos());
            worker.kill();
        } finally {
            all.forEach(i -> slow(i, false));
        }
        worker.start();
        String target = "the Connect worker";
        return seen == null ? new Kill(target, null, null, 0, "MISSED: no insert on a shard within " + aim)
                : new Kill(target, seen[1], seen[2], Integer.parseInt(seen[0]), "SIGKILL of " + target + " during "
                        + seen[3]);
    }

    /** Adds or drops the sleeping constraint on shard {@code shard}'s local table. */
    private void slow(int shard, boolean on) {
        table.cluster.shard(shard).exec("ALTER TABLE " + table.quotedLocal() + (on
                ? " ADD CONSTRAINT IF NOT EXISTS `" + SLOW + "` CHECK sleep(" + SLOW_SECONDS + ") = 0"
                : " DROP CONSTRAINT IF EXISTS `" + SLOW + "`"));
    }

    /**
     * Polls the shards for an insert into the local table; returns {shard, initial query id, token, description} of
     * the first seen, or null when none ran before {@code deadline} (System.nanoTime()).
     */
    private String[] awaitInsert(List<Integer> shards, long deadline) throws InterruptedException {
        while (System.nanoTime() < deadline) {
            for (int shard : shards) {
                String tsv = inserts(shard);
                if (!tsv.isEmpty()) {
                    String[] f = tsv.split("\n")[0].split("\t", -1);
                    return new String[] {String.valueOf(shard), f[1], f[2], "insert " + f[0] + " of initiator query "
                            + f[1] + " (token " + f[2] + ") running on shard " + shard + " for " + f[3] + " ms"};
                }
            }
            Thread.sleep(3);
        }
        return null;
    }

    /** Waits (up to 5 s) until no shard but {@code shard} lists an insert of initiator query {@code initialQueryId}. */
    private void awaitOtherShardsDone(int shard, String initialQueryId) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        for (int other = 1; other <= table.cluster.shardCount(); other++) {
            while (other != shard && inserts(other).contains(initialQueryId) && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
        }
    }

    /**
     * Whether shard {@code shard} still runs the insert of initiator query {@code initialQueryId} and has spent less
     * than 70% of the constraint's sleep on it: it has not written the block, and will not before a SIGKILL sent now.
     */
    private boolean early(int shard, String initialQueryId) {
        double limitMs = Double.parseDouble(SLOW_SECONDS) * 700;
        for (String line : inserts(shard).split("\n")) {
            String[] f = line.split("\t", -1);
            if (f.length == 4 && f[1].equals(initialQueryId) && Double.parseDouble(f[3]) < limitMs) {
                return true;
            }
        }
        return false;
    }

    /** TSV of the inserts into the local table running on {@code shard}: query id, initial query id, token, ms. */
    private String inserts(int shard) {
        try {
            return table.cluster.shard(shard).query("SELECT query_id, initial_query_id, "
                    + "Settings['insert_deduplication_token'], round(elapsed * 1000) FROM system.processes "
                    + "WHERE query_kind = 'Insert' AND position(query, '" + table.local + "') > 0 FORMAT TSV").trim();
        } catch (RuntimeException e) {
            return ""; // restarting
        }
    }
}
