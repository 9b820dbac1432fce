package dev.danmakuledger.protocol.wire;

import java.util.regex.Pattern;

/**
 * An edge agent's last sync attempt before the batch that reports it (docs/sync.md, "Queue state").
 *
 * @param atMillis the device's wall clock (epoch ms) when the attempt ended
 * @param outcome {@code ok}, the server's error code ({@code sql-unavailable}, docs/errors.md), or
 *     a transport failure as {@code transport-<kind>} ({@code transport-timeout}): a short token of
 *     lowercase letters, digits and dashes, at most {@value #MAX_OUTCOME} characters
 */
public record SyncAttempt(long atMillis, String outcome) {
  /** Longest outcome token accepted. */
  public static final int MAX_OUTCOME = 48;

  /** The outcome of an attempt the server answered with 2xx. */
  public static final String OK = "ok";

  /** The prefix of an outcome where no HTTP answer arrived. */
  public static final String TRANSPORT = "transport-";

  private static final Pattern TOKEN = Pattern.compile("[a-z0-9][a-z0-9-]*");

  /** Checks that the time is not negative and the outcome is a short bounded token. */
  public SyncAttempt {
    Checks.nonNegative("lastAttempt.atMillis", atMillis);
    Checks.required("lastAttempt.outcome", outcome);
    if (outcome.length() > MAX_OUTCOME || !TOKEN.matcher(outcome).matches()) {
      throw new IllegalArgumentException(
          "lastAttempt.outcome: got "
              + (outcome.length() > MAX_OUTCOME
                  ? outcome.length() + " characters"
                  : '"' + outcome + '"')
              + ", want at most "
              + MAX_OUTCOME
              + " of [a-z0-9-], starting with a letter or digit");
    }
  }

  /** True for an attempt the server accepted. */
  public boolean ok() {
    return OK.equals(outcome);
  }
}
