/** Merkle tree hashing, proofs and signed checkpoints (RFC 6962/9162, C2SP). */
package dev.danmakuledger.merkle;
