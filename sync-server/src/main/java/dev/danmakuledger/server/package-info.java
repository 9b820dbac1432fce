/** The sync server: verified batch ingest, dedupe, storage and admin API. */
package dev.danmakuledger.server;
