package dev.danmakuledger.server.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.server.query.LedgerQueries;
import dev.danmakuledger.server.storage.MessageRow;
import java.util.function.Function;

/** A stored message as room-stream data: its wire form ({@code RoomMessage}) as JSON. */
enum WireRender implements Function<MessageRow, String> {
  INSTANCE;

  private static final ObjectMapper JSON = Json.mapper();

  @Override
  public String apply(MessageRow m) {
    try {
      return JSON.writeValueAsString(LedgerQueries.wire(m));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise message " + m.seq() + " of " + m.room(), e);
    }
  }
}
