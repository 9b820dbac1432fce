package dev.danmakuledger.ui.live;

import dev.danmakuledger.protocol.wire.admin.AdminEvent;

/** A view-model kept current by {@link LiveUpdates}. All methods are called on the UI thread. */
public interface LiveFeed {
  /** Shows the last state saved in the local history, if any, before the server answers. */
  void restore();

  /** Reloads from the server (coalesced with loads already running). */
  void refresh();

  /** Reacts to one live admin event, e.g. by reloading what it concerns. */
  void onEvent(AdminEvent event);
}
