package dev.danmakuledger.ui.live;

import dev.danmakuledger.ui.client.ApiException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection banner (docs/console.md, "What stays current, and what happens when the server is
 * gone"): whether the console shows live data, and if not, since when its data is stale and why, in
 * one plain sentence. Each distinct failure is logged once with its detail; repeats of the same
 * failure (every poll while the server is down) are not logged again. Methods are called on the UI
 * thread.
 */
public final class ConnectionViewModel {
  private static final Logger log = LoggerFactory.getLogger(ConnectionViewModel.class);
  private static final DateTimeFormatter HMS = DateTimeFormatter.ofPattern("HH:mm:ss");

  /** What the banner says about the data on screen. */
  public enum State {
    /** Nothing loaded yet and no failure yet. */
    CONNECTING,
    /** The last call succeeded. */
    LIVE,
    /** The last call failed; the data on screen is from {@link #lastUpdate()}. */
    STALE,
    /** The server refused the admin token. */
    UNAUTHORIZED
  }

  private final Clock clock;
  private final ReadOnlyObjectWrapper<State> state = new ReadOnlyObjectWrapper<>(State.CONNECTING);
  private final ReadOnlyStringWrapper banner = new ReadOnlyStringWrapper("Connecting…");
  private final ReadOnlyStringWrapper events = new ReadOnlyStringWrapper("Live events: connecting");
  private final ReadOnlyObjectWrapper<Instant> lastUpdate = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyStringWrapper server = new ReadOnlyStringWrapper("");
  private String lastLogged;

  public ConnectionViewModel(Clock clock, String server) {
    this.clock = clock;
    this.server.set(server);
  }

  public ReadOnlyObjectProperty<State> state() {
    return state.getReadOnlyProperty();
  }

  /** One sentence for the top of the window; empty while live. */
  public ReadOnlyStringProperty banner() {
    return banner.getReadOnlyProperty();
  }

  /** The live event stream's state, e.g. "Live events: reconnecting in 4 s". */
  public ReadOnlyStringProperty events() {
    return events.getReadOnlyProperty();
  }

  /** When the data on screen was last read from the server (or restored from history). */
  public ReadOnlyObjectProperty<Instant> lastUpdate() {
    return lastUpdate.getReadOnlyProperty();
  }

  public ReadOnlyStringProperty server() {
    return server.getReadOnlyProperty();
  }

  /** A call succeeded now. */
  public void succeeded() {
    lastUpdate.set(clock.instant());
    if (state.get() != State.LIVE) {
      log.info("connected to {}", server.get());
    }
    lastLogged = null;
    state.set(State.LIVE);
    banner.set("");
  }

  /** A view was filled from the history: its data dates from {@code at}. */
  public void restored(Instant at) {
    if (lastUpdate.get() == null || at.isBefore(lastUpdate.get())) {
      lastUpdate.set(at);
    }
    if (state.get() != State.LIVE) {
      banner.set(describe(state.get(), "Connecting to " + server.get() + "…"));
    }
  }

  /** A call failed; the screen keeps what it had. */
  public void failed(ApiException e) {
    String key = e.kind() + ": " + e.plainMessage();
    if (!key.equals(lastLogged)) {
      log.warn("{} ({})", e.plainMessage(), e.getMessage());
      log.debug("cause", e);
      lastLogged = key;
    }
    State next = e.kind() == ApiException.Kind.UNAUTHORIZED ? State.UNAUTHORIZED : State.STALE;
    state.set(next);
    banner.set(describe(next, e.plainMessage()));
  }

  /** Points the banner at a new server after the settings changed. */
  public void reconfigured(String newServer) {
    server.set(newServer);
    lastLogged = null;
    state.set(State.CONNECTING);
    banner.set(describe(State.CONNECTING, "Connecting to " + newServer + "…"));
  }

  /** The live event stream is open. */
  public void eventsConnected() {
    events.set("Live events: connected");
  }

  /** The live event stream dropped; it reconnects after {@code retryIn}. */
  public void eventsLost(ApiException e, Duration retryIn) {
    long seconds = Math.max(1, (retryIn.toMillis() + 999) / 1000);
    events.set("Live events: reconnecting in " + seconds + " s");
    if (e.kind() == ApiException.Kind.UNAUTHORIZED) {
      failed(e);
    }
  }

  private String describe(State s, String why) {
    Instant at = lastUpdate.get();
    String since =
        at == null
            ? " No data yet."
            : " Showing the last known state, stale since "
                + HMS.format(at.atZone(clock.getZone()))
                + ".";
    return s == State.CONNECTING && at == null ? why : why + since;
  }
}
