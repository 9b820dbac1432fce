/**
 * The schema migrations of the sync server's database (docs/architecture.md §6): the list Flyway
 * applies, the Java migrations that move data in chunks, and the realignment of scripts whose
 * comments were reworded after they were applied.
 */
package dev.danmakuledger.server.storage.migration;
