/** Benchmarks and the fault-injection harness. */
package dev.danmakuledger.bench;
