/** JMH benchmarks of the merkle module, reported next to the raw SHA-256 rate. */
package dev.danmakuledger.bench.merkle;
