package dev.danmakuledger.server.events;

/**
 * Where one subscriber's messages go (an SSE connection). Calls come from one writer thread at a
 * time, never from a publisher, so a slow connection only ever blocks its own writer.
 */
public interface Sink {
  /**
   * Writes one message; may block while the connection is slow.
   *
   * @throws RuntimeException when the connection is gone
   */
  void send(LiveMessage message);

  /**
   * Tells the subscriber why it is disconnected and that it must resume after {@code lastCursor}
   * (the last cursor it was sent), then closes the connection.
   */
  void cutOff(long lastCursor, CutReason reason);

  /**
   * Closes the connection without a resume point, when not even where the stream starts could be
   * read: the client reconnects the way it first asked.
   */
  void close();

  /** True once the connection is closed. */
  boolean closed();
}
