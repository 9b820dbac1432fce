package dev.danmakuledger.server.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.server.query.LedgerQueries;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import dev.danmakuledger.server.storage.MessageRow;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The records the relay writes (docs/kafka.md, "Records"): a confirmed message keyed by its room,
 * its public {@code RoomMessage} JSON as the value, and headers naming it; a position keyed by
 * room.
 */
final class RelayRecords {
  /** Header: the message's idempotency key. */
  static final String IDEMPOTENCY_KEY = "idempotency-key";

  /** Header: the message's seq in its room, decimal. */
  static final String SEQ = "seq";

  /** Header: the message's confirmation cursor in its room, decimal. */
  static final String CURSOR = "cursor";

  /** Header: the message id, decimal. */
  static final String MESSAGE_ID = "message-id";

  private static final ObjectMapper JSON = Json.mapper();

  private RelayRecords() {}

  /** The record of confirmed message {@code c} for {@code topic}. */
  static ProducerRecord<String, String> message(String topic, Confirmed c) {
    MessageRow m = c.message();
    String value;
    try {
      value = JSON.writeValueAsString(LedgerQueries.wire(m));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise message " + m.seq() + " of " + m.room(), e);
    }
    Header[] headers = {
      header(IDEMPOTENCY_KEY, m.idempotencyKey()),
      header(SEQ, Long.toString(m.seq())),
      header(CURSOR, Long.toString(c.cursor())),
      header(MESSAGE_ID, String.valueOf(m.messageId()))
    };
    return new ProducerRecord<>(topic, null, m.room(), value, new RecordHeaders(headers));
  }

  /** The position record of {@code room} at {@code cursor}, on partition {@code shard}. */
  static ProducerRecord<String, String> position(
      String positionsTopic, int shard, String room, long cursor) {
    return new ProducerRecord<>(positionsTopic, shard, room, Long.toString(cursor));
  }

  private static Header header(String name, String value) {
    return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
  }

  /** The value of header {@code name}, or null. */
  static String header(Iterable<Header> headers, String name) {
    String out = null;
    for (Header h : headers) {
      if (h.key().equals(name) && h.value() != null) {
        out = new String(h.value(), StandardCharsets.UTF_8);
      }
    }
    return out;
  }
}
