/**
 * Retention (docs/edge-agent.md "Retention and pruning"): drops the canonical bytes of records a
 * server receipt covers and whose outcome is final, once they are older than the retention, keeping
 * every leaf hash so checkpoints still verify; on demand ({@code prune}) or periodically ({@code
 * run}).
 */
package dev.danmakuledger.edge.retention;
