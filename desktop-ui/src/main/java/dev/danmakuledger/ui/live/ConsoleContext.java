package dev.danmakuledger.ui.live;

import dev.danmakuledger.ui.client.AdminClient;
import dev.danmakuledger.ui.history.HistoryException;
import dev.danmakuledger.ui.history.HistoryStore;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every view-model needs: the server client, the background/UI executors, the shared
 * connection state, the local history and the clock.
 */
public record ConsoleContext(
    AdminClient client,
    Async async,
    ConnectionViewModel connection,
    HistoryStore history,
    Clock clock) {
  private static final Logger log = LoggerFactory.getLogger(ConsoleContext.class);

  public ConsoleContext {
    if (client == null || async == null || connection == null || history == null || clock == null) {
      throw new IllegalArgumentException("got a null collaborator, want all five set");
    }
  }

  /**
   * Saves a view's last state in the history; a history failure is logged, never shown, because the
   * live data is still good. Call off the FX thread.
   */
  public void remember(String name, Object value) {
    try {
      history.save(name, clock.instant(), value);
    } catch (HistoryException e) {
      log.warn("could not save {} in the history: {}", name, e.getMessage());
    }
  }
}
