/**
 * The write side: enrolment, the verified batch pipeline (docs/architecture.md §4–§5), the gap
 * sealer and review.
 */
package dev.danmakuledger.server.ingest;
