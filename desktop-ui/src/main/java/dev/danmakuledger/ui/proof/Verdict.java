package dev.danmakuledger.ui.proof;

import java.util.List;

/**
 * The outcome of checking one message's inclusion proof in the console: verified or not, one
 * headline an operator reads at a glance, and the facts behind it.
 */
public record Verdict(boolean verified, String headline, List<String> details) {
  public Verdict {
    if (headline == null || headline.isBlank() || details == null) {
      throw new IllegalArgumentException(
          "got headline=" + headline + " details=" + details + ", want both set");
    }
    details = List.copyOf(details);
  }

  static Verdict ok(String headline, List<String> details) {
    return new Verdict(true, headline, details);
  }

  static Verdict failed(String headline, List<String> details) {
    return new Verdict(false, headline, details);
  }
}
