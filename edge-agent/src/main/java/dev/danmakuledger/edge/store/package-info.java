/**
 * The agent's durable state (docs/architecture.md §6): the {@code EdgeStore} contract and its
 * SQLite implementation, one file per data directory, with one type per table (records, notes,
 * outcomes, counters, Bloom snapshot, retention) and the schema migrations; the single-writer lock
 * on the data directory and the owner-only file modes of everything in it.
 */
package dev.danmakuledger.edge.store;
