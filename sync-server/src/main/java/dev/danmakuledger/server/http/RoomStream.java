package dev.danmakuledger.server.http;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.events.CutReason;
import dev.danmakuledger.server.events.LiveMessage;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.events.Sink;
import dev.danmakuledger.server.events.StreamRefusal;
import dev.danmakuledger.server.events.StreamRefusedException;
import dev.danmakuledger.server.events.StreamTicket;
import io.javalin.http.sse.SseClient;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One SSE subscriber of a room's CONFIRMED messages (docs/sync-server.md, "Room streams"). The
 * event id is the message's confirmation cursor: the order in which messages of the room became
 * CONFIRMED, at insert or at approval, on any instance. The resume point is {@code Last-Event-ID}
 * (a cursor), else {@code after} (a seq: messages with a greater seq); the {@link RoomHub} catches
 * up from SQL and then sends live messages, each once and in cursor order. A subscriber that falls
 * too far behind gets a final {@code resume} event whose id is the last cursor it was sent, and is
 * disconnected; a reconnect with that id misses nothing.
 */
final class RoomStream implements Sink {
  private final SseClient client;
  private final SseClients streams;

  private RoomStream(SseClient client, SseClients streams) {
    this.client = client;
    this.streams = streams;
  }

  /** Where a stream resumes: after a confirmation cursor, or after a seq. */
  record Resume(Long afterCursor, long afterSeq) {
    static Resume afterCursor(long cursor) {
      return new Resume(cursor, 0);
    }

    static Resume afterSeq(long seq) {
      return new Resume(null, seq);
    }
  }

  /**
   * Opens the stream admitted by {@code ticket}, which the subscription then owns. Returns at once,
   * without reading SQL: where the stream starts, the room's head and the catch-up are read on a
   * writer thread of the hub, so the request thread is free for the next request.
   */
  static void open(
      SseClient client, SseClients streams, RoomHub hub, StreamTicket ticket, Resume resume) {
    client.keepAlive();
    RoomStream stream = new RoomStream(client, streams);
    streams.track(client);
    streams.add(
        client,
        resume.afterCursor() != null
            ? hub.subscribe(ticket, resume.afterCursor(), 0, stream)
            : hub.subscribeAfterSeq(ticket, resume.afterSeq(), stream));
  }

  /**
   * The answer to a stream refused at a subscriber limit: 429 for the client address's quota, 503
   * for the instance's or the room's capacity, both with {@code Retry-After}.
   */
  static LedgerException refusal(StreamRefusedException e) {
    Map<String, Object> ext = new LinkedHashMap<>();
    ext.put("limit", e.refusal().name().toLowerCase(Locale.ROOT));
    ext.put("retryAfterSeconds", (long) e.retryAfterSeconds());
    ErrorCode code =
        e.refusal() == StreamRefusal.ADDRESS
            ? ErrorCode.TOO_MANY_STREAMS_FROM_ADDRESS
            : ErrorCode.TOO_MANY_STREAMS;
    return new LedgerException(code, e.getMessage() + "; retry later", ext);
  }

  @Override
  public void send(LiveMessage m) {
    boolean written =
        streams.write(
            client,
            c -> {
              if (c.terminated()) {
                throw new IllegalStateException("stream closed, want an open stream");
              }
              writeEvent(c, m);
            });
    if (!written) {
      throw new IllegalStateException("stream closed, want an open stream");
    }
  }

  /**
   * Writes the message's event, encoded once for every subscriber, in one write and flushes it: a
   * stream's response buffer is small (see {@link RoomStreamRoutes#STREAM_BUFFER_BYTES}), and an
   * event larger than it goes out past the buffer.
   */
  private static void writeEvent(SseClient c, LiveMessage m) {
    try {
      HttpServletResponse res = c.ctx().res();
      m.writeEvent(res.getOutputStream());
      res.flushBuffer();
    } catch (IOException e) {
      c.close();
      throw new UncheckedIOException("stream closed while writing", e);
    }
  }

  @Override
  public void cutOff(long lastCursor, CutReason reason) {
    String data =
        "{\"reason\":\""
            + reason.wire()
            + "\",\"lastEventId\":\""
            + lastCursor
            + "\",\"retry\":\"reconnect with Last-Event-ID: "
            + lastCursor
            + "\"}";
    streams.write(
        client,
        c -> {
          if (!c.terminated()) {
            c.sendEvent("resume", data, Long.toString(lastCursor));
            c.close();
          }
        });
  }

  @Override
  public void close() {
    if (!streams.write(client, SseClient::close)) {
      client.close();
    }
  }

  @Override
  public boolean closed() {
    return client.terminated();
  }
}
