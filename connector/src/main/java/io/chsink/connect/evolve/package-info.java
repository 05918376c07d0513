/**
 * Tables that follow the data (auto.create, auto.evolve): what happens when a record does not fit its table, chosen
 * once at start behind {@link io.chsink.connect.evolve.TableEvolution} ({@link io.chsink.connect.evolve.Evolutions}).
 * {@link io.chsink.connect.evolve.ConnectTypes} maps Connect schemas to ClickHouse types,
 * {@link io.chsink.connect.evolve.TableDdl} writes the statements (identifiers quoted, ON CLUSTER),
 * {@link io.chsink.connect.evolve.DdlRunner} runs them (logged at INFO, re-read, retried on races).
 */
package io.chsink.connect.evolve;
