package dev.danmakuledger.server.events;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One admitted room stream's place under the limits of {@link StreamLimits}: held from admission
 * until the stream ends, then closed (at most once) to give the place back.
 */
public final class StreamTicket implements AutoCloseable {
  private final StreamAdmission admission;
  private final String room;
  private final String address;
  private final AtomicBoolean closed = new AtomicBoolean();

  StreamTicket(StreamAdmission admission, String room, String address) {
    this.admission = admission;
    this.room = room;
    this.address = address;
  }

  /** The room this stream follows. */
  public String room() {
    return room;
  }

  /** Gives the place back; later calls do nothing. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      admission.release(room, address);
    }
  }
}
