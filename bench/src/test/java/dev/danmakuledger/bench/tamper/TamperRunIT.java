package dev.danmakuledger.bench.tamper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/bench tamper} end to end (real agents, a sync server on embedded Redis and H2): every
 * attack is caught by every detector that can see it, with the refusal the protocol specifies, and
 * nothing of it is stored.
 */
class TamperRunIT {
  @Test
  void everyAttackIsCaughtAndNothingIsStored() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<AttackResult> results = TamperRun.run(new PrintStream(log, true, StandardCharsets.UTF_8));
    Map<String, AttackResult> byName =
        results.stream().collect(Collectors.toMap(AttackResult::attack, r -> r));
    assertEquals(7, byName.size(), byName.keySet().toString());
    for (AttackResult r : results) {
      assertTrue(r.passed(), r + "\n" + log.toString(StandardCharsets.UTF_8));
    }
    assertTrue(byName.get("edited-record").server().startsWith("bad-proof"));
    assertTrue(byName.get("forged-signature").server().startsWith("bad-signature"));
    assertTrue(byName.get("cloned-device").server().startsWith("fork-detected"));
    assertTrue(byName.get("rolled-back-store").server().startsWith("fork-detected"));
    assertTrue(byName.get("replayed-batch").server().startsWith("bad-signature"));
    assertFalse(byName.get("cloned-device").agentApplicable());
    assertTrue(byName.get("edited-record").agent().contains("a record in [25, 26) was changed"));
    assertTrue(byName.get("deleted-record").agent().contains("record 25 is missing"));
  }
}
