package dev.danmakuledger.bench.demo;

import java.util.ArrayList;
import java.util.List;

/** The verification checks of a run, each a comparison that passed or failed with its evidence. */
public final class Checks {
  /** One check: what was compared, whether it held, and the figures behind it. */
  public record Check(String name, boolean passed, String detail) {}

  private final List<Check> all = new ArrayList<>();

  /** Records a check and returns whether it passed. */
  public boolean check(String name, boolean passed, String detail) {
    all.add(new Check(name, passed, detail));
    return passed;
  }

  public List<Check> all() {
    return List.copyOf(all);
  }

  public long failures() {
    return all.stream().filter(c -> !c.passed()).count();
  }
}
