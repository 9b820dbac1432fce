/** The sync server's data directory: tokens and the receipt-signing key. */
package dev.danmakuledger.server.config;
