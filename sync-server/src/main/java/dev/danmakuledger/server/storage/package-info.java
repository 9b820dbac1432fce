/**
 * JDBC storage (docs/architecture.md §5–§6): Flyway-migrated schema shared by H2 and MariaDB/MySQL,
 * device witness state, device records and proof nodes, numbered room messages.
 */
package dev.danmakuledger.server.storage;
