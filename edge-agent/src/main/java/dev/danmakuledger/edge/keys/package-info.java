/**
 * The device's Ed25519 signing key (C2SP signed-note, Go x/mod/sumdb/note key encoding), kept in
 * {@code D/device.key} readable by the owner only.
 */
package dev.danmakuledger.edge.keys;
