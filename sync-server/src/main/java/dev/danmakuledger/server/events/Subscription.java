package dev.danmakuledger.server.events;

import java.util.function.BiConsumer;

/**
 * One room stream's hold on the hub, handed to its owner at once while the stream opens on a writer
 * thread: closing it gives back the ticket and leaves the room's channel whenever the opening got
 * that far, before or after the close.
 */
final class Subscription implements AutoCloseable {
  private final StreamTicket ticket;
  private final BiConsumer<RoomChannel, Subscriber> leave;
  private RoomChannel channel;
  private Subscriber subscriber;
  private boolean closed;

  Subscription(StreamTicket ticket, BiConsumer<RoomChannel, Subscriber> leave) {
    this.ticket = ticket;
    this.leave = leave;
  }

  /**
   * Records that the stream joined {@code ch}; false when it was closed first, and then leaves it
   * again.
   */
  boolean joined(RoomChannel ch) {
    synchronized (this) {
      if (!closed) {
        channel = ch;
        return true;
      }
    }
    leave.accept(ch, null);
    return false;
  }

  /** Records the stream's live subscriber; false when it was closed first. */
  synchronized boolean attached(Subscriber s) {
    if (closed) {
      return false;
    }
    subscriber = s;
    return true;
  }

  /** Leaves the channel joined, if any, and gives back the ticket; later calls do nothing. */
  @Override
  public void close() {
    RoomChannel ch;
    Subscriber s;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      ch = channel;
      s = subscriber;
    }
    try {
      if (ch != null) {
        leave.accept(ch, s);
      }
    } finally {
      ticket.close();
    }
  }
}
