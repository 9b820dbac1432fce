/** RFC 6962 / RFC 9162 §2.1.1 Merkle tree hashing with SHA-256. */
package dev.danmakuledger.merkle.hash;
