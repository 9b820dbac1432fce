package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The agent's CPU as the backlog reads it from the agent's result line. */
class BacklogBenchmarkTest {
  private static String[] result(long cpuNanos, long jitNanos) {
    return new String[] {
      BacklogAgent.RESULT, "1000", "2.500", "1", "1048576", "" + cpuNanos, "" + jitNanos
    };
  }

  @Test
  void theAgentsCpuAndItsCompilersArePerRecord() {
    assertEquals(
        ", agent JVM 12.5 (JIT 3.0)",
        BacklogBenchmark.agentCpu(result(12_500_000, 3_000_000), 1000));
  }

  @Test
  void anUnreadableCompilerTimeLeavesOnlyTheJvm() {
    assertEquals(", agent JVM 12.5", BacklogBenchmark.agentCpu(result(12_500_000, -1), 1000));
  }

  @Test
  void anUnreadableCpuTimeOrNoRecordsSaysNothing() {
    assertEquals("", BacklogBenchmark.agentCpu(result(-1, -1), 1000));
    assertEquals("", BacklogBenchmark.agentCpu(result(12_500_000, 3_000_000), 0));
  }
}
