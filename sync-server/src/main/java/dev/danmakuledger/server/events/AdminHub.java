package dev.danmakuledger.server.events;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** In-process fan-out of operator events (alerts and state changes) to {@code /admin/events}. */
public final class AdminHub {
  private static final Logger log = LoggerFactory.getLogger(AdminHub.class);

  private final List<Consumer<AdminEvent>> listeners = new CopyOnWriteArrayList<>();

  /** Registers a listener; close the returned handle to stop. */
  public AutoCloseable subscribe(Consumer<AdminEvent> listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  public void publish(AdminEvent event) {
    for (Consumer<AdminEvent> l : listeners) {
      try {
        l.accept(event);
      } catch (RuntimeException e) {
        log.debug("admin listener failed: {}", e.toString());
      }
    }
  }
}
