package dev.danmakuledger.demo;

import java.util.List;

/**
 * The verification checks of a run, in the order the report prints them; each is a comparison that
 * passed or failed with its evidence.
 */
public record Checks(List<Check> all) {
  /** One check: what was compared, whether it held, and the figures behind it. */
  public record Check(String name, boolean passed, String detail) {
    public Check {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("check name: got \"" + name + "\", want a name");
      }
      if (detail == null) {
        throw new IllegalArgumentException("check " + name + ": got no detail, want the figures");
      }
    }
  }

  public Checks {
    all = List.copyOf(all);
  }

  public long failures() {
    return all.stream().filter(c -> !c.passed()).count();
  }
}
