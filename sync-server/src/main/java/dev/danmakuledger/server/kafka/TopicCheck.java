package dev.danmakuledger.server.kafka;

import dev.danmakuledger.server.storage.ConfirmedFeed;
import dev.danmakuledger.server.storage.ConfirmedFeed.Confirmed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The reference consumer (docs/kafka.md, "Checking a topic"): reads a topic with {@code
 * read_committed} from the start to its end and compares it with the ledger room by room. A room
 * passes when its records are a prefix of its CONFIRMED rows in cursor order, with each cursor once
 * and the right seq and message id; the rows past the last record are {@code behind} (not relayed
 * yet), and the topic is complete when no room is behind.
 */
public final class TopicCheck {
  private static final int PAGE = 1_000;
  private static final int MAX_PROBLEMS = 20;

  private TopicCheck() {}

  /**
   * The verdict of one check.
   *
   * @param rooms rooms compared (with CONFIRMED rows or with records)
   * @param records committed records read
   * @param duplicates records whose cursor came before in the room
   * @param outOfOrder records whose cursor is lower than the one before in the room
   * @param unexpected records that match no CONFIRMED row (cursor, seq and message id)
   * @param missing CONFIRMED rows before a room's last record that the topic lacks
   * @param behind CONFIRMED rows after a room's last record
   * @param problems the first problems found, one line each
   */
  public record Report(
      int rooms,
      long records,
      long duplicates,
      long outOfOrder,
      long unexpected,
      long missing,
      long behind,
      List<String> problems) {
    public Report {
      problems = List.copyOf(problems);
    }

    /** No duplicate, nothing out of order, unexpected or missing (the topic may be behind). */
    public boolean ok() {
      return duplicates == 0 && outOfOrder == 0 && unexpected == 0 && missing == 0;
    }

    /** {@link #ok()} and nothing behind: the topic holds every CONFIRMED row. */
    public boolean complete() {
      return ok() && behind == 0;
    }

    /** One line for people. */
    public String summary() {
      return String.format(
          "%s: %d rooms, %d records, %d duplicate, %d out of order, %d unexpected, %d missing,"
              + " %d behind%s",
          complete() ? "COMPLETE" : ok() ? "OK, BEHIND" : "FAILED",
          rooms,
          records,
          duplicates,
          outOfOrder,
          unexpected,
          missing,
          behind,
          problems.isEmpty() ? "" : "; " + String.join("; ", problems));
    }
  }

  /** One record as the check keeps it. */
  private record Seen(long cursor, long seq, String messageId) {}

  /**
   * Reads {@code topic} at {@code bootstrap} within {@code within} and compares it with {@code
   * feed}.
   */
  public static Report check(String bootstrap, String topic, ConfirmedFeed feed, Duration within) {
    Map<String, List<Seen>> topicRooms = read(bootstrap, topic, within);
    Set<String> rooms = new TreeSet<>(feed.heads().keySet());
    rooms.addAll(topicRooms.keySet());
    Tally t = new Tally();
    for (String room : rooms) {
      compare(room, topicRooms.getOrDefault(room, List.of()), feed, t);
    }
    return new Report(
        rooms.size(),
        t.records,
        t.duplicates,
        t.outOfOrder,
        t.unexpected,
        t.missing,
        t.behind,
        t.problems);
  }

  private static final class Tally {
    long records;
    long duplicates;
    long outOfOrder;
    long unexpected;
    long missing;
    long behind;
    final List<String> problems = new ArrayList<>();

    void problem(String line) {
      if (problems.size() < MAX_PROBLEMS) {
        problems.add(line);
      }
    }
  }

  private static void compare(String room, List<Seen> got, ConfirmedFeed feed, Tally t) {
    Map<Long, Confirmed> want = new TreeMap<>();
    long cursor = 0;
    while (true) {
      List<Confirmed> page = feed.after(room, cursor, 0, PAGE);
      for (Confirmed c : page) {
        want.put(c.cursor(), c);
        cursor = c.cursor();
      }
      if (page.size() < PAGE) {
        break;
      }
    }
    Set<Long> seen = new HashSet<>();
    long last = 0;
    for (Seen s : got) {
      t.records++;
      if (!seen.add(s.cursor())) {
        t.duplicates++;
        t.problem(room + ": cursor " + s.cursor() + " twice");
        continue;
      }
      if (s.cursor() < last) {
        t.outOfOrder++;
        t.problem(room + ": cursor " + s.cursor() + " after " + last);
      }
      last = Math.max(last, s.cursor());
      Confirmed c = want.get(s.cursor());
      if (c == null
          || c.message().seq() != s.seq()
          || !String.valueOf(c.message().messageId()).equals(s.messageId())) {
        t.unexpected++;
        t.problem(room + ": cursor " + s.cursor() + " seq " + s.seq() + " is no CONFIRMED row");
      }
    }
    for (long c : want.keySet()) {
      if (c <= last && !seen.contains(c)) {
        t.missing++;
        t.problem(room + ": cursor " + c + " missing");
      } else if (c > last) {
        t.behind++;
      }
    }
  }

  /** The committed records of {@code topic} by room, in partition order. */
  private static Map<String, List<Seen>> read(String bootstrap, String topic, Duration within) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
    Map<String, List<Seen>> out = new HashMap<>();
    long deadline = System.nanoTime() + within.toNanos();
    try (KafkaConsumer<String, String> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo pi : c.partitionsFor(topic, within)) {
        parts.add(new TopicPartition(topic, pi.partition()));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, within);
      while (!atEnd(c, end)) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException("reading " + topic + ": not at its end within " + within);
        }
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          String cursor = RelayRecords.header(r.headers(), RelayRecords.CURSOR);
          String seq = RelayRecords.header(r.headers(), RelayRecords.SEQ);
          out.computeIfAbsent(r.key(), k -> new ArrayList<>())
              .add(
                  new Seen(
                      cursor == null ? -1 : Long.parseLong(cursor),
                      seq == null ? -1 : Long.parseLong(seq),
                      RelayRecords.header(r.headers(), RelayRecords.MESSAGE_ID)));
        }
      }
    }
    return out;
  }

  private static boolean atEnd(KafkaConsumer<String, String> c, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (c.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
