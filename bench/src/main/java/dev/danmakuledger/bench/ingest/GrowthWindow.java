package dev.danmakuledger.bench.ingest;

/**
 * The ledger's rate over one window of an e2e run, as the store grows (docs/benchmarks.md, "e2e as
 * the store grows").
 *
 * @param from records already sent when the window began
 * @param to records sent when it ended
 * @param perSecond records/s within the window
 */
public record GrowthWindow(long from, long to, double perSecond) {}
