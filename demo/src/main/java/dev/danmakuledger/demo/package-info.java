/**
 * The one-command demo ({@code bin/demo}, docs/demo.md): a sync server on embedded defaults, three
 * edge agents capturing the real Bilibili file with injected repeats, an offline period, lost
 * replies, a Redis wipe, a cloned device, and a verification report that compares every agent-side
 * acknowledgement with what the server holds. {@link dev.danmakuledger.demo.DemoCluster} runs the
 * system, {@link dev.danmakuledger.demo.DemoStory} drives it and records what it injected, {@link
 * dev.danmakuledger.demo.DemoVerifier} turns that and the server's answers into checks, and {@link
 * dev.danmakuledger.demo.DemoReport} prints them.
 */
package dev.danmakuledger.demo;
