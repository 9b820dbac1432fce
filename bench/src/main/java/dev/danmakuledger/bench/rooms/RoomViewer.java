package dev.danmakuledger.bench.rooms;

import java.util.List;
import java.util.concurrent.Flow;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One SSE subscriber of a room, reading the stream line by line (text/event-stream) and judging it
 * as it goes: every {@code message} event's id must be the previous one plus one (a fresh room's
 * cursors are 1, 2, …), so a duplicate, a gap or a reordering is counted; a {@code resume} event
 * (cut off) or an error marks the stream broken. Each message's capture time, carried in its text,
 * gives one capture→viewer latency.
 */
final class RoomViewer implements Flow.Subscriber<String> {
  private static final Pattern CAPTURED = Pattern.compile("rb (\\d+)");

  private final String room;
  private final Measured latencies;
  private String event = "message";
  private String id;
  private String data;
  private long last;
  private long received;
  private long wrong;
  private volatile boolean broken;
  private volatile boolean ended;
  private Flow.Subscription subscription;

  RoomViewer(String room, Measured latencies) {
    this.room = room;
    this.latencies = latencies;
  }

  String room() {
    return room;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    s.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(String line) {
    if (line.isEmpty()) {
      dispatch();
    } else if (line.startsWith("event:")) {
      event = line.substring(6).strip();
    } else if (line.startsWith("id:")) {
      id = line.substring(3).strip();
    } else if (line.startsWith("data:")) {
      data = line.substring(5).strip();
    }
  }

  private void dispatch() {
    long now = System.nanoTime();
    String e = event;
    String i = id;
    String d = data;
    event = "message";
    id = null;
    data = null;
    if (!"message".equals(e)) {
      if (d != null || i != null) {
        broken = true;
      }
      return;
    }
    if (i == null || d == null) {
      return;
    }
    synchronized (this) {
      long cursor = Long.parseLong(i);
      if (cursor != last + 1) {
        wrong++;
      }
      last = Math.max(last, cursor);
      received++;
    }
    Matcher m = CAPTURED.matcher(d);
    if (m.find()) {
      latencies.add(Long.parseLong(m.group(1)), now);
    }
  }

  @Override
  public void onError(Throwable t) {
    broken = true;
    ended = true;
  }

  @Override
  public void onComplete() {
    ended = true;
  }

  /** Messages received so far. */
  synchronized long received() {
    return received;
  }

  /** Exactly the cursors 1..{@code expected}, once each and in order, on a stream still open. */
  synchronized boolean exact(long expected) {
    return !broken && !ended && wrong == 0 && received == expected && last == expected;
  }

  /** What is wrong, for the report. */
  synchronized String fault(long expected) {
    return room
        + ": received "
        + received
        + " of "
        + expected
        + ", out of order or repeated "
        + wrong
        + (broken ? ", cut off or failed" : "")
        + (ended ? ", ended" : "");
  }

  void cancel() {
    if (subscription != null) {
      subscription.cancel();
    }
  }

  /** The stream's problems over all {@code viewers} against the expected counts per room. */
  static long exactCount(List<RoomViewer> viewers, java.util.Map<String, Long> expected) {
    long exact = 0;
    for (RoomViewer v : viewers) {
      if (v.exact(expected.getOrDefault(v.room(), 0L))) {
        exact++;
      }
    }
    return exact;
  }
}
