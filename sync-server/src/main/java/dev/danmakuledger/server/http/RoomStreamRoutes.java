package dev.danmakuledger.server.http;

import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.events.StreamRefusedException;
import dev.danmakuledger.server.events.StreamTicket;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The room stream route {@code GET /v1/rooms/{room}/stream} (docs/sync-server.md, "Room streams"):
 * where a stream resumes, its admission under the subscriber limits, and its start.
 */
final class RoomStreamRoutes {
  private static final Logger log = LoggerFactory.getLogger(RoomStreamRoutes.class);
  private static final String EVENT_STREAM = "text/event-stream";

  /**
   * The response buffer of a room stream, in bytes. Jetty keeps a buffer of the response's size for
   * as long as a response is open, 32 KiB by default: 10,000 open streams held 344 MiB of heap in
   * them, most of a 512 MiB heap. An event rarely fills 2 KiB; a larger one is written past the
   * buffer.
   */
  static final int STREAM_BUFFER_BYTES = 2 * 1024;

  private final RoomHub rooms;
  private final SseClients streams;
  private final Function<Object, String> toJson;

  RoomStreamRoutes(RoomHub rooms, SseClients streams, Function<Object, String> toJson) {
    this.rooms = rooms;
    this.streams = streams;
    this.toJson = toJson;
  }

  void register(Javalin app) {
    app.before(STREAM, ctx -> streamResume(ctx));
    app.get(STREAM, this::admit);
  }

  static final String STREAM = "/v1/rooms/{room}/stream";

  /**
   * Where a room stream starts, checked before the stream opens so that a bad room or cursor is a
   * 400 problem rather than an error event: after {@code Last-Event-ID} when sent, else after the
   * {@code after} query parameter.
   */
  private static RoomStream.Resume streamResume(Context ctx) {
    Requests.room(ctx);
    String lastId = ctx.header("Last-Event-ID");
    return lastId != null
        ? RoomStream.Resume.afterCursor(Requests.nonNegative("Last-Event-ID", lastId))
        : RoomStream.Resume.afterSeq(Requests.queryLong(ctx, "after", 0));
  }

  /**
   * Admits a room stream under the subscriber limits before the SSE response starts, so a refusal
   * is a plain problem answer (docs/operations.md, "Room stream limits"); an invalid room is left
   * to the stream's own error event. The request thread only admits it and writes the response
   * head; the stream is opened and caught up on the hub's writer threads and kept open by a future,
   * holding no request thread.
   */
  private void admit(Context ctx) {
    if (!EVENT_STREAM.equals(ctx.header("Accept"))) {
      return;
    }
    StreamTicket ticket = null;
    String room = null;
    try {
      room = Requests.room(ctx);
    } catch (LedgerException e) {
      log.debug("room stream with an invalid room: {}", e.getMessage());
    }
    if (room != null) {
      try {
        ticket = rooms.admit(room, ctx.ip());
      } catch (StreamRefusedException e) {
        throw RoomStream.refusal(e);
      }
    }
    try {
      startEventStream(ctx.res());
    } catch (IOException | RuntimeException e) {
      if (ticket != null) {
        ticket.close();
      }
      log.debug("room stream gone before it started: {}", e.toString());
      return;
    }
    roomStream(new SseClient(ctx), ticket);
  }

  /**
   * Writes the head of an event stream's response, with a buffer of {@link #STREAM_BUFFER_BYTES}.
   */
  static void startEventStream(HttpServletResponse res) throws IOException {
    res.setBufferSize(STREAM_BUFFER_BYTES);
    res.setStatus(200);
    res.setCharacterEncoding("UTF-8");
    res.setContentType(EVENT_STREAM);
    res.addHeader("Connection", "close");
    res.addHeader("Cache-Control", "no-cache");
    res.addHeader("X-Accel-Buffering", "no");
    res.flushBuffer();
  }

  private void roomStream(SseClient client, StreamTicket ticket) {
    try {
      RoomStream.open(client, streams, rooms, ticket, streamResume(client.ctx()));
    } catch (LedgerException e) {
      if (ticket != null) {
        ticket.close();
      }
      client.sendEvent("error", toJson.apply(e.problem()));
      client.close();
    } catch (RuntimeException e) {
      // the hub is closing: the subscription gave its ticket back
      log.debug("room stream not opened: {}", e.toString());
      client.close();
    }
  }
}
