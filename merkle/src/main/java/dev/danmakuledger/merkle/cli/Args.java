package dev.danmakuledger.merkle.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Arguments of one subcommand: {@code --name value} or {@code --name=value} options from a fixed
 * set, each at most once and all required, plus a fixed number of positional operands.
 */
final class Args {
  private final Map<String, String> options;
  private final List<String> operands;

  private Args(Map<String, String> options, List<String> operands) {
    this.options = options;
    this.operands = operands;
  }

  static Args parse(
      List<String> args, Set<String> required, Set<String> optional, List<String> operandNames)
      throws UsageException {
    Map<String, String> options = new HashMap<>();
    List<String> operands = new ArrayList<>();
    boolean onlyOperands = false;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (!onlyOperands && a.equals("--")) {
        onlyOperands = true;
      } else if (!onlyOperands && a.startsWith("--")) {
        int eq = a.indexOf('=');
        String name = eq < 0 ? a.substring(2) : a.substring(2, eq);
        if (!required.contains(name) && !optional.contains(name)) {
          throw new UsageException("unknown option --" + name);
        }
        String value;
        if (eq >= 0) {
          value = a.substring(eq + 1);
        } else if (i + 1 < args.size()) {
          value = args.get(++i);
        } else {
          throw new UsageException("option --" + name + " needs a value");
        }
        if (options.put(name, value) != null) {
          throw new UsageException("option --" + name + " given twice");
        }
      } else {
        operands.add(a);
      }
    }
    for (String r : required) {
      if (!options.containsKey(r)) {
        throw new UsageException("missing option --" + r);
      }
    }
    if (operands.size() != operandNames.size()) {
      throw new UsageException(
          "got "
              + operands.size()
              + " operands, want "
              + operandNames.size()
              + (operandNames.isEmpty() ? "" : " (" + String.join(" ", operandNames) + ")"));
    }
    return new Args(options, operands);
  }

  String option(String name) {
    return options.get(name);
  }

  String operand(int i) {
    return operands.get(i);
  }

  /** Parses a non-negative decimal option. */
  long nonNegative(String name) throws UsageException {
    String v = options.get(name);
    try {
      long n = Long.parseLong(v);
      if (n < 0 || !v.matches("[0-9]+")) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new UsageException(
          "option --" + name + ": got \"" + v + "\", want a non-negative integer", e);
    }
  }
}
