/**
 * C2SP signed-note (Ed25519, Go {@code golang.org/x/mod/sumdb/note} key format) and C2SP
 * tlog-checkpoint bodies.
 */
package dev.danmakuledger.merkle.checkpoint;
