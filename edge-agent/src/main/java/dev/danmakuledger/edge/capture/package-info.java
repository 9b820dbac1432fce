/**
 * The capture path (docs/architecture.md §2, §3, §5 check 1): validate, Bloom "maybe seen?", exact
 * lookup, HLC stamp, canonical bytes, append to the device's compact range, a signed tree head
 * committed in the same SQLite transaction as the records it covers, then the ack. {@code
 * CaptureService} is the entry point; behind it a queue with group commit, a batch planner that
 * returns a plan, the committed log state, the Bloom filter's keeper and typed dedupe counters.
 */
package dev.danmakuledger.edge.capture;
