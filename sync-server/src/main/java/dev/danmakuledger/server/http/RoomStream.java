package dev.danmakuledger.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.server.events.RoomHub;
import dev.danmakuledger.server.query.LedgerQueries;
import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import io.javalin.http.sse.SseClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One SSE subscriber of a room's CONFIRMED messages (docs/sync-server.md, "Room streams"). The
 * event id is the message's confirmation cursor: the order in which messages of the room became
 * CONFIRMED, at insert or at approval. The stream subscribes to live confirmations first, then
 * catches up from SQL after the resume point — {@code Last-Event-ID} (a cursor), else {@code after}
 * (a seq: messages with a greater seq) — holding live deliveries back until the catch-up is done,
 * so every confirmation is sent once and in cursor order, and a reconnect with the last id seen
 * misses nothing, approvals included.
 */
final class RoomStream {
  private static final Logger log = LoggerFactory.getLogger(RoomStream.class);
  private static final int PAGE = 500;

  private final SseClient client;
  private final ObjectMapper json;
  private final List<Confirmed> heldBack = new ArrayList<>();
  private boolean catchingUp = true;
  private long lastSent;

  private RoomStream(SseClient client, ObjectMapper json, long lastSent) {
    this.client = client;
    this.json = json;
    this.lastSent = lastSent;
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

  static void open(
      SseClient client,
      SseClients streams,
      ObjectMapper json,
      RoomHub hub,
      ConfirmedFeed feed,
      String room,
      Resume resume) {
    client.keepAlive();
    try {
      long start =
          resume.afterCursor() != null
              ? resume.afterCursor()
              : feed.cursorBeforeSeq(room, resume.afterSeq());
      RoomStream stream = new RoomStream(client, json, start);
      streams.add(client, hub.subscribe(room, stream::live));
      long cursor = start;
      while (!client.terminated()) {
        List<Confirmed> page = feed.after(room, cursor, resume.afterSeq(), PAGE);
        for (Confirmed c : page) {
          stream.caughtUp(c);
          cursor = c.cursor();
        }
        if (page.size() < PAGE) {
          break;
        }
      }
      stream.endCatchUp();
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

  private synchronized void caughtUp(Confirmed c) {
    send(c);
  }

  /** A live confirmation: held back during the catch-up, sent after it. */
  private synchronized void live(Confirmed c) {
    if (catchingUp) {
      heldBack.add(c);
    } else {
      send(c);
    }
  }

  /** Ends the catch-up: sends what arrived live meanwhile, in cursor order. */
  private synchronized void endCatchUp() {
    heldBack.sort(Comparator.comparingLong(Confirmed::cursor));
    for (Confirmed c : heldBack) {
      send(c);
    }
    heldBack.clear();
    catchingUp = false;
  }

  /** Sends one confirmation unless this connection already got it or a later one. */
  private void send(Confirmed c) {
    if (c.cursor() <= lastSent) {
      return;
    }
    String data;
    try {
      data = json.writeValueAsString(LedgerQueries.wire(c.message()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise message " + c.message().seq(), e);
    }
    synchronized (client) {
      if (!client.terminated()) {
        client.sendEvent("message", data, Long.toString(c.cursor()));
      }
    }
    lastSent = c.cursor();
  }
}
