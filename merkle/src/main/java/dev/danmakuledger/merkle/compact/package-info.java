/** Compact Merkle ranges: O(log n) state for appending leaves and computing roots. */
package dev.danmakuledger.merkle.compact;
