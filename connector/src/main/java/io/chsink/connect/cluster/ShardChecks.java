package io.chsink.connect.cluster;

import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What every delivery guarantee needs of a Distributed target's shards: each has the local table, with every column
 * of the Distributed table (an insert through it names them all). Messages name the shard and give the statement
 * to run there. Pure logic on what {@link ClusterReader} read.
 */
public final class ShardChecks {
    private ShardChecks() {
    }

    /**
     * Null when every shard can take the Distributed table's inserts, else the first shard's problem.
     *
     * @param tables the shards' local tables by shard number (a shard without it is absent)
     * @param columns the Distributed table's columns, name to type
     */
    public static String problem(DistributedTable d, Map<Integer, ShardTable> tables, Map<String, String> columns) {
        for (Shard shard : d.shards()) {
            ShardTable t = tables.get(shard.number());
            TableId local = d.localTable(shard);
            if (t == null) {
                ShardTable other = tables.values().stream().findFirst().orElse(null);
                return d.describe() + ": " + shard.name() + " has no table " + local.quoted()
                        + ", so inserts through the Distributed table fail. Create it there"
                        + (other == null || other.createQuery() == null || other.createQuery().isEmpty()
                                ? " with the Distributed table's columns and a MergeTree-family engine."
                                : " as the other shards have it: " + ifNotExists(other.createQuery()) + ";")
                        + " (With distributed DDL: add ON CLUSTER '" + d.cluster() + "'.)";
            }
            List<String> missing = new ArrayList<>();
            List<String> add = new ArrayList<>();
            for (Map.Entry<String, String> c : columns.entrySet()) {
                if (!t.columnTypes().containsKey(c.getKey())) {
                    missing.add(TableId.quote(c.getKey()));
                    add.add("ADD COLUMN IF NOT EXISTS " + TableId.quote(c.getKey()) + " " + c.getValue());
                }
            }
            if (!missing.isEmpty()) {
                return d.describe() + ": on " + shard.name() + " the local table " + local.quoted() + " lacks "
                        + String.join(", ", missing) + ", which the Distributed table has, so inserts through it "
                        + "fail. Run on that shard: ALTER TABLE " + local.quoted() + " " + String.join(", ", add)
                        + " (with distributed DDL: ALTER TABLE " + local.quoted() + " ON CLUSTER '" + d.cluster()
                        + "' ...).";
            }
        }
        return null;
    }

    /** {@code CREATE TABLE x ...} as {@code CREATE TABLE IF NOT EXISTS x ...}. */
    static String ifNotExists(String create) {
        return create.startsWith("CREATE TABLE ") && !create.startsWith("CREATE TABLE IF NOT EXISTS ")
                ? "CREATE TABLE IF NOT EXISTS " + create.substring("CREATE TABLE ".length()) : create;
    }
}
