/** Inclusion and consistency proofs: which nodes they hold, how to build and verify them. */
package dev.danmakuledger.merkle.proof;
