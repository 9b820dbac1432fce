/**
 * The registry of running sync-server instances in Redis (docs/operations.md), and the per-minute
 * history each instance writes of its own counters to SQL (docs/sync-server.md, "History").
 */
package dev.danmakuledger.server.instances;
