/** The registry of running sync-server instances in Redis (docs/operations.md). */
package dev.danmakuledger.server.instances;
