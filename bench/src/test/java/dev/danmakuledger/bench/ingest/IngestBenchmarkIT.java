package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A small {@code bin/bench e2e} on the embedded defaults (H2, embedded Redis): the ledger's
 * outcomes match the generated retries, every baseline gets the same rows, and a peer that cannot
 * be reached is reported as not measured instead of a number.
 */
class IngestBenchmarkIT {
  @Test
  void measuresEveryPathOnTheSameRowsAndNeverInventsAFigure() throws Exception {
    IngestBenchmark.Options o =
        new IngestBenchmark.Options(
            2_000,
            null,
            100,
            2,
            4,
            0.1,
            100,
            null,
            null,
            "nats://127.0.0.1:1",
            true,
            ServerConfig.DEFAULT_ROOM_CHECKPOINT_INTERVAL,
            400,
            2,
            false);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    IngestBenchmark.Run run =
        IngestBenchmark.run(o, new PrintStream(log, true, StandardCharsets.UTF_8));

    assertTrue(
        log.toString(StandardCharsets.UTF_8)
            .contains("each device keeps up to 2 batches in flight"),
        log.toString(StandardCharsets.UTF_8));
    assertTrue(
        log.toString(StandardCharsets.UTF_8)
            .contains("rooms opened before the clock: one message in each of 4 rooms"),
        log.toString(StandardCharsets.UTF_8));
    assertEquals(2_000, run.ours().records());
    assertEquals(2_000, run.confirmed() + run.duplicates());
    assertEquals(180, run.duplicates(), "10% of every batch after each device's first");

    Measured raw = run.baselines().get(0);
    assertEquals("h2-raw-insert", raw.name());
    assertEquals(2_000, raw.records());
    assertTrue(raw.note().contains(run.confirmed() + " rows kept of 2000"), raw.note());

    Measured seed = run.baselines().get(1);
    assertEquals("seed-per-message", seed.name());
    assertEquals(100, seed.records());

    Measured nats = run.baselines().get(2);
    assertFalse(nats.measured());
    assertTrue(nats.note().startsWith("no NATS server at nats://127.0.0.1:1"), nats.note());

    List<BenchResult> rows = IngestBenchmark.results(o, run);
    assertEquals(3, rows.size());
    assertEquals("h2-raw-insert", rows.get(0).baseline());
    assertEquals(rows.get(0).ours() / rows.get(0).baselineValue(), rows.get(0).ratio(), 1e-9);
    assertTrue(rows.get(1).note().contains("first 100 of 2000 records"), rows.get(1).note());
    assertNull(rows.get(2).baselineValue());
    assertNull(rows.get(2).ratio());
    assertTrue(rows.get(2).note().startsWith("not measured: no NATS server"), rows.get(2).note());
  }
}
