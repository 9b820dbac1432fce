/**
 * The agent's durable state in one SQLite file per data directory (docs/architecture.md §6):
 * records, compact range, signed checkpoints, receipts, counters, Bloom snapshot; schema
 * migrations; the single-writer lock on the data directory.
 */
package dev.danmakuledger.edge.store;
