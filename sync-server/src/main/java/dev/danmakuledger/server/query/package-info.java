/** The read side: log state, acks, rooms, proofs from stored hashes, and the operator views. */
package dev.danmakuledger.server.query;
