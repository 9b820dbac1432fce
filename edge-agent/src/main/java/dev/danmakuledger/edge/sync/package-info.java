/**
 * The edge → server sync client (docs/architecture.md §4): enrolment, batches of the device log
 * with a fresh signed checkpoint each, resume from the server's verified size, retries with
 * full-jitter backoff, and local storage of outcomes and receipts.
 */
package dev.danmakuledger.edge.sync;
