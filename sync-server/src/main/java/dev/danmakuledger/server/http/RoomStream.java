package dev.danmakuledger.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.query.LedgerQueries;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import io.javalin.http.sse.SseClient;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One SSE subscriber of a room's CONFIRMED messages (issue 5): subscribes to live broadcasts first,
 * then catches up from SQL after the resume point ({@code Last-Event-ID} or {@code after}); every
 * event id is the message's seq and each seq is sent at most once per connection, so the overlap of
 * catch-up and live delivery never shows a duplicate.
 */
final class RoomStream {
  private static final Logger log = LoggerFactory.getLogger(RoomStream.class);
  private static final int PAGE = 500;

  private final SseClient client;
  private final ObjectMapper json;
  private final Set<Long> sent = new HashSet<>();

  private RoomStream(SseClient client, ObjectMapper json) {
    this.client = client;
    this.json = json;
  }

  static void open(
      SseClient client,
      SseClients streams,
      ObjectMapper json,
      RoomHub hub,
      LedgerStore store,
      String room,
      long after) {
    RoomStream stream = new RoomStream(client, json);
    client.keepAlive();
    streams.add(client, hub.subscribe(room, stream::send));
    long cursor = after;
    try {
      while (!client.terminated()) {
        List<MessageRow> page = store.confirmedAfter(room, cursor, PAGE);
        for (MessageRow m : page) {
          stream.send(m);
          cursor = m.seq();
        }
        if (page.size() < PAGE) {
          break;
        }
      }
    } catch (StorageUnavailableException e) {
      log.warn(
          "room stream {}: catch-up failed, closing so the client reconnects: {}",
          room,
          e.getMessage());
      synchronized (client) {
        client.close();
      }
    }
  }

  /** Sends one message unless this connection already got its seq; writes lock the client. */
  private void send(MessageRow m) {
    String data;
    try {
      data = json.writeValueAsString(LedgerQueries.wire(m));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise message " + m.seq(), e);
    }
    synchronized (client) {
      if (!client.terminated() && sent.add(m.seq())) {
        client.sendEvent("message", data, Long.toString(m.seq()));
      }
    }
  }
}
