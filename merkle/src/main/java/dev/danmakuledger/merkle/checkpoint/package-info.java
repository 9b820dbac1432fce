/**
 * C2SP signed-note (Ed25519, Go {@code golang.org/x/mod/sumdb/note} key format), C2SP
 * tlog-checkpoint bodies, and C2SP tlog-cosignature {@code cosignature/v1} timestamped cosignatures
 * (signature type 0x04).
 */
package dev.danmakuledger.merkle.checkpoint;
