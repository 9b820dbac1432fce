package dev.danmakuledger.bench.cli;

import dev.danmakuledger.bench.report.BenchResult;
import dev.danmakuledger.bench.tamper.AttackResult;
import dev.danmakuledger.bench.tamper.TamperRun;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code bin/bench tamper}: see {@link TamperRun}. */
@Command(
    name = "tamper",
    mixinStandardHelpOptions = true,
    description = {
      "Applies each attack to a copy of a real edge agent's data directory (edited, deleted and"
          + " reordered records, a checkpoint forged with another key, a cloned device diverging,"
          + " another device's batch replayed, a rolled-back store) and checks that the agent's"
          + " verify and the server catch it and that nothing from it is stored.",
      "Exits 1 if any attack is missed."
    })
final class TamperCommand implements Callable<Integer> {
  @Mixin Output output;

  @Override
  public Integer call() throws Exception {
    List<AttackResult> results = TamperRun.run(System.out);
    System.out.println();
    System.out.printf(
        "%-18s %-8s %-8s %-26s %-8s%n", "attack", "verify", "server", "code", "stored");
    boolean allPassed = true;
    List<BenchResult> rows = new ArrayList<>();
    for (AttackResult r : results) {
      String verify = !r.agentApplicable() ? "n/a" : r.agentCaught() ? "caught" : "MISSED";
      System.out.printf(
          "%-18s %-8s %-8s %-26s %-8s%n",
          r.attack(),
          verify,
          r.serverCaught() ? "caught" : "MISSED",
          r.server(),
          r.nothingStored() ? "nothing" : "STORED");
      System.out.println("    verify: " + r.agent());
      allPassed &= r.passed();
      rows.add(
          new BenchResult(
              "tamper",
              "caught",
              r.passed() ? 1.0 : 0.0,
              null,
              null,
              null,
              null,
              r.attack()
                  + ": verify "
                  + verify
                  + ", server "
                  + r.server()
                  + ", stored "
                  + (r.nothingStored() ? "nothing" : r.detail())));
    }
    System.out.println(
        allPassed
            ? "tamper: every attack caught, nothing stored"
            : "tamper: VIOLATION: an attack was missed or stored");
    if (output.json != null) {
      output.emit(System.out, rows);
    }
    return allPassed ? ExitCodes.OK : ExitCodes.VIOLATION;
  }
}
