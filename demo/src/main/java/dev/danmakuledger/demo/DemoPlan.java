package dev.danmakuledger.demo;

import java.util.List;

/**
 * The fixed shape of the demo's story (docs/demo.md, "What it does"): who takes part, which rooms
 * the file is split over and how many repeats of each kind are injected. The story injects exactly
 * these, and the verifier expects exactly these, so both read them from here.
 */
final class DemoPlan {
  static final List<String> ROOMS = List.of("live-1", "live-2", "live-3", "live-4");
  static final List<String> AGENTS = List.of("kiosk-a", "kiosk-b", "kiosk-c");
  static final String LEGACY = "legacy-box";
  static final String BANNED = "spam-giveaway";

  /** The agent that syncs directly, the one behind the lossy link, the one that stays offline. */
  static final String DIRECT = "kiosk-a";

  static final String LOSSY = "kiosk-b";
  static final String OFFLINE = "kiosk-c";

  /** Entries of the file given to the legacy device (the rest go to the three agents). */
  static final int LEGACY_SHARE = 60;

  /** Consecutive file entries that go to the same room. */
  static final int ROOM_RUN = 25;

  static final int DOUBLE_CLICK_EVERY = 10;
  static final int RETRY_EVERY = 20;
  static final int LEGACY_REDIS_REPEATS = 15;
  static final int LEGACY_CONFLICTS = 2;
  static final int LEGACY_SQL_REPEATS = 10;
  static final int LATE_MESSAGES = 3;
  static final int RETRIES_AFTER_SYNC = 10;

  /** The lossy link drops the reply of every this-many-th batch. */
  static final int DROP_EVERY = 2;

  /** Batch size of the agent behind the lossy link, so it sends several batches. */
  static final int LOSSY_BATCH = 100;

  private DemoPlan() {}
}
