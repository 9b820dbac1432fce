package dev.danmakuledger.demo;

import dev.danmakuledger.protocol.wire.admin.Overview;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The verifier's findings: the checks in report order and the figures the report prints beside
 * them, all read when the checks ran.
 *
 * @param checks the checks, in the order they ran
 * @param capturedOnAgents per agent, the size of its log
 * @param roomLines per room, how its slots read back
 * @param rootLines per agent, the log size and root the server verified
 * @param overview {@code GET /admin/overview} as the layer checks saw it
 */
record Verification(
    List<Checks.Check> checks,
    Map<String, Long> capturedOnAgents,
    Map<String, String> roomLines,
    Map<String, String> rootLines,
    Overview overview) {
  Verification {
    if (overview == null) {
      throw new IllegalArgumentException("overview: got none, want the server's overview");
    }
    checks = List.copyOf(checks);
    capturedOnAgents = Collections.unmodifiableMap(new LinkedHashMap<>(capturedOnAgents));
    roomLines = Collections.unmodifiableMap(new LinkedHashMap<>(roomLines));
    rootLines = Collections.unmodifiableMap(new LinkedHashMap<>(rootLines));
  }
}
