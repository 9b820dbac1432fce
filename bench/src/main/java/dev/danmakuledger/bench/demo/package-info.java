/**
 * The one-command demo ({@code bin/demo}, issue 6): a sync server on embedded defaults, three edge
 * agents capturing the real Bilibili file with injected repeats, an offline period, lost replies, a
 * Redis wipe, a cloned device, and a verification report that compares every agent-side
 * acknowledgement with what the server holds. The parts here are also the harness of the end-to-end
 * tests.
 */
package dev.danmakuledger.bench.demo;
