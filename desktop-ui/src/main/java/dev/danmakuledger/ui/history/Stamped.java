package dev.danmakuledger.ui.history;

import java.time.Instant;

/** A value the console last read from the server, and when. */
public record Stamped<T>(Instant at, T value) {
  public Stamped {
    if (at == null || value == null) {
      throw new IllegalArgumentException("got at=" + at + " value=" + value + ", want both set");
    }
  }
}
