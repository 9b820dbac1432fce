package dev.danmakuledger.server.ingest;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.concurrent.TimeUnit;

/**
 * When a tick that could commit now waits for more batches instead (docs/architecture.md §5,
 * "Ticks"). A tick's transaction has a fixed cost (its statements, the commit's flush, its
 * announcement), so small batches of many devices committed a few at a time cost the database
 * several times what they cost in larger ticks. A tick is handed to a free committer at once when
 * it holds {@link #RECORDS} records, when its oldest batch has waited {@link #MILLIS}, when the
 * committer has had nothing to do for that long (an idle server does not delay a lone batch), or
 * when it holds a batch of every device that submitted within the last second (nothing more is
 * coming: one device syncing, or a few devices each waiting for their answers); otherwise it waits
 * for more of them, at most {@link #MILLIS} from its oldest batch's arrival. Used by the sequencer
 * thread only.
 */
final class TickGathering {
  /** The longest a tick waits for more batches, from its oldest batch's arrival. */
  static final long MILLIS = 20;

  /** A tick holding this many records does not wait for more. */
  static final int RECORDS = 500;

  /** How far back a device that submitted counts as active. */
  static final long ACTIVE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(MILLIS);

  /** Devices that submitted within {@link #ACTIVE_NANOS}, least recent first, with when. */
  private final LinkedHashMap<String, Long> active = new LinkedHashMap<>();

  /**
   * Notes that {@code device} submitted a batch at {@code at} ({@link System#nanoTime}); forgets
   * the devices silent for longer than {@link #ACTIVE_NANOS} before it, so that the devices held
   * are those of the last second, not every device ever seen.
   */
  void submitted(String device, long at) {
    active.remove(device);
    active.put(device, at);
    forgetBefore(at);
  }

  private void forgetBefore(long now) {
    for (Iterator<Long> it = active.values().iterator();
        it.hasNext() && now - it.next() > ACTIVE_NANOS; ) {
      it.remove();
    }
  }

  /**
   * Whether a tick is to be handed over now.
   *
   * @param now the time ({@link System#nanoTime})
   * @param records the records the tick holds
   * @param devices the devices with a batch in the tick
   * @param oldest when the tick's oldest batch was submitted
   * @param committedAt when the committer last finished a tick
   */
  boolean gathered(long now, long records, int devices, long oldest, long committedAt) {
    if (records >= RECORDS || now - oldest >= GATHER_NANOS || now - committedAt >= GATHER_NANOS) {
      return true;
    }
    forgetBefore(now);
    return devices >= active.size();
  }

  /** When a tick whose oldest batch was submitted at {@code oldest} stops waiting. */
  static long deadline(long oldest) {
    return oldest + GATHER_NANOS;
  }

  /** Devices counted as active, as of the last call. */
  int activeDevices() {
    return active.size();
  }
}
