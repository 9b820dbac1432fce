/**
 * The Prometheus exposition of the sync server ({@code GET /metrics}, docs/operations.md
 * "Metrics"): per-instance latency histograms and the cluster-wide ledger counters read from SQL.
 */
package dev.danmakuledger.server.metrics;
