package dev.danmakuledger.bench.proofs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.bench.report.BenchResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A small {@code bin/bench proofs} on the embedded defaults: every served proof verified (a wrong
 * one would throw), two rows with the recomputation baseline.
 */
class ProofBenchmarkIT {
  @Test
  void servesVerifiedProofsAndComparesThemWithRecomputation() throws Exception {
    List<BenchResult> rows =
        ProofBenchmark.run(
            new ProofBenchmark.Options(3_000, 200, 5, null, null),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertEquals(List.of("p50 ms", "p99 ms"), rows.stream().map(BenchResult::metric).toList());
    for (BenchResult r : rows) {
      assertEquals(ProofBenchmark.BASELINE, r.baseline());
      assertTrue(r.ours() > 0 && r.baselineValue() > 0, r.toString());
      assertTrue(r.note().contains("3,000-leaf log on embedded H2"), r.note());
      assertTrue(r.note().contains("200 served, 5 recomputed samples"), r.note());
    }
  }
}
