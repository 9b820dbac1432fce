package dev.danmakuledger.ui.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.AlertList;
import dev.danmakuledger.protocol.wire.admin.ClusterHistory;
import dev.danmakuledger.protocol.wire.admin.DeviceList;
import dev.danmakuledger.protocol.wire.admin.DeviceQueue;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import dev.danmakuledger.protocol.wire.admin.DuplicateLayers;
import dev.danmakuledger.protocol.wire.admin.InstanceList;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.protocol.wire.admin.RelayLag;
import dev.danmakuledger.protocol.wire.admin.ReviewDecision;
import dev.danmakuledger.protocol.wire.admin.ReviewItem;
import dev.danmakuledger.protocol.wire.admin.ReviewQueue;
import dev.danmakuledger.protocol.wire.admin.RoomList;
import dev.danmakuledger.protocol.wire.admin.RoomSummary;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.RecordedRequest;

/**
 * A MockWebServer dispatcher that answers the console's part of the HTTP API (contract {@code
 * protocol.wire} and {@code protocol.wire.admin}) from a {@link Ledger}, with the contract's DTO
 * records serialized by the shared mapper, so every reply has exactly the contract's shape. Review
 * decisions are compare-and-set on a version, like the server's.
 */
public final class FixtureApi extends Dispatcher {
  public static final String TOKEN = "fixture-admin-token";

  /** The text a tampering fixture substitutes for what the device signed. */
  public static final String EDITED_TEXT = "edited by the server";

  private final Ledger ledger;
  private final Clock clock;
  private final Instant started;
  private final ObjectMapper json = Json.mapper();
  private final Map<String, RoomMessage.Status> status = new ConcurrentHashMap<>();
  private final Map<String, Long> versions = new ConcurrentHashMap<>();
  private volatile Tamper tamper = Tamper.NONE;
  private volatile boolean loseNext;
  private volatile Duration streamFor = Duration.ZERO;

  /** The room logs of the ledger's rooms (docs/room-log.md), and the server keys. */
  public final RoomLogFixture roomLogs;

  public FixtureApi(Ledger ledger, Clock clock) {
    this.ledger = ledger;
    this.clock = clock;
    this.started = clock.instant();
    for (RoomMessage m : ledger.messages) {
      status.put(m.messageId(), m.status());
      versions.put(m.messageId(), 1L);
    }
    this.roomLogs = new RoomLogFixture(clock);
    for (RoomSummary r : rooms().rooms()) {
      roomLogs.grow(r.room(), r.highSeq(), seq -> entry(r.room(), seq));
    }
  }

  /** The room log entry of {@code seq}: its message if the ledger holds one, else a tombstone. */
  private byte[] entry(String room, long seq) {
    for (RoomMessage m : ledger.messages) {
      if (m.room().equals(room) && m.seq() == seq && m.deviceIndex() != null) {
        byte[] leaf =
            ledger.devices.get(m.deviceId()).records.get(m.deviceIndex().intValue()).leafHash();
        return ("v1 "
                + seq
                + " M "
                + m.messageId()
                + " "
                + m.deviceId()
                + " "
                + m.deviceIndex()
                + " "
                + java.util.HexFormat.of().formatHex(leaf)
                + " "
                + m.idempotencyKey())
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      }
    }
    return RoomLogFixture.tombstone(seq);
  }

  /** What a dishonest server changes in the inspector's answers. */
  public enum Tamper {
    /** Nothing: every answer is what the ledger holds. */
    NONE,
    /** Every inclusion proof carries one flipped bit. */
    PROOF,
    /** Message lookups show another text than the device signed. */
    MESSAGE_TEXT,
    /** Inclusion proofs carry the canonical bytes of a record with another text. */
    CANONICAL,
    /** Inclusion proofs carry no canonical bytes, as from an older server. */
    NO_CANONICAL,
    /** Audit bundles carry a room inclusion proof with one flipped bit. */
    ROOM_PROOF,
    /** Audit bundles carry the entry of the next room number. */
    ROOM_ENTRY
  }

  /** Makes every inclusion proof from now on carry one flipped bit. */
  public void tamperProofs(boolean on) {
    tamper(on ? Tamper.PROOF : Tamper.NONE);
  }

  /** Makes the inspector's answers from now on dishonest in the given way. */
  public void tamper(Tamper how) {
    tamper = how;
  }

  /** Keeps each event stream open this long (trickling keep-alive comments) after its events. */
  public void streamFor(Duration d) {
    streamFor = d;
  }

  /**
   * Makes the next review decision lose the compare-and-set, as if another operator decided the
   * same message between the console's load and its click.
   */
  public void loseNextDecision() {
    loseNext = true;
  }

  public List<RoomMessage> messages() {
    List<RoomMessage> out = new ArrayList<>();
    for (RoomMessage m : ledger.messages) {
      out.add(current(m));
    }
    return out;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    // The room logs and the server keys are public (docs/room-log.md): no token needed.
    MockResponse log = roomLogs.serve(request.getRequestUrl().pathSegments());
    if (log != null) {
      return log;
    }
    if (!("Bearer " + TOKEN).equals(request.getHeader("Authorization"))) {
      return problem(401, "unauthenticated", "unknown admin token");
    }
    HttpUrl url = request.getRequestUrl();
    List<String> p = url.pathSegments();
    String method = request.getMethod();
    try {
      if (p.size() == 2 && p.get(0).equals("admin")) {
        switch (p.get(1)) {
          case "overview":
            return ok(overview());
          case "devices":
            return ok(devices());
          case "rooms":
            return ok(rooms());
          case "review":
            return ok(review());
          case "alerts":
            return ok(new AlertList(alerts()));
          case "events":
            return events();
          case "instances":
            return ok(instances());
          case "history":
            return ok(history(Integer.parseInt(url.queryParameter("minutes"))));
          default:
            break;
        }
      }
      if (p.size() == 3
          && p.get(0).equals("admin")
          && p.get(1).equals("review")
          && method.equals("POST")) {
        return decide(p.get(2), json.readValue(request.getBody().readUtf8(), ReviewDecision.class));
      }
      if (p.size() == 4
          && p.get(0).equals("admin")
          && p.get(1).equals("devices")
          && p.get(3).equals("key")
          && ledger.devices.containsKey(p.get(2))) {
        return ok(ledger.devices.get(p.get(2)).key());
      }
      if (p.size() == 4
          && p.get(0).equals("v1")
          && p.get(1).equals("rooms")
          && p.get(3).equals("messages")) {
        return ok(
            page(
                p.get(2),
                Long.parseLong(url.queryParameter("after")),
                Integer.parseInt(url.queryParameter("limit"))));
      }
      if (p.size() == 6
          && p.get(0).equals("v1")
          && p.get(1).equals("rooms")
          && p.get(5).equals("bundle")) {
        return bundle(p.get(2), Long.parseLong(p.get(4)));
      }
      if (p.size() == 5 && p.get(0).equals("v1") && p.get(1).equals("rooms")) {
        long seq = Long.parseLong(p.get(4));
        return found(m -> m.room().equals(p.get(2)) && m.seq() == seq);
      }
      if (p.size() == 4 && p.get(0).equals("v1") && p.get(2).equals("by-id")) {
        return found(m -> m.messageId().equals(p.get(3)));
      }
      if (p.size() == 3 && p.get(0).equals("v1") && p.get(1).equals("messages")) {
        return found(m -> m.idempotencyKey().equals(p.get(2)));
      }
      if (p.size() >= 4
          && p.get(0).equals("v1")
          && p.get(1).equals("devices")
          && ledger.devices.containsKey(p.get(2))) {
        Ledger.Device d = ledger.devices.get(p.get(2));
        if (p.size() == 4 && p.get(3).equals("log")) {
          return ok(d.log());
        }
        if (p.size() == 5 && p.get(4).equals("inclusion")) {
          InclusionProofResponse proof = d.proof(Long.parseLong(url.queryParameter("index")));
          return ok(tampered(proof));
        }
      }
    } catch (IOException | RuntimeException e) {
      return problem(400, "invalid-field", e.getMessage());
    }
    return problem(404, "not-found", "no such resource: " + url.encodedPath());
  }

  /**
   * The audit bundle of {@code room} #{@code seq} (docs/room-log.md, "Audit bundle"), from the room
   * log and the device log of the ledger; 404 for a number without a device record.
   */
  private MockResponse bundle(String room, long seq) {
    RoomMessage m =
        ledger.messages.stream()
            .filter(x -> x.room().equals(room) && x.seq() == seq && x.deviceIndex() != null)
            .findFirst()
            .orElse(null);
    if (m == null || seq > roomLogs.size(room)) {
      return problem(404, "not-found", "no message " + room + " #" + seq);
    }
    long leaf = seq - 1;
    List<String> roomProof = new ArrayList<>();
    for (byte[] h : roomLogs.inclusion(room, leaf)) {
      roomProof.add(java.util.HexFormat.of().formatHex(h));
    }
    byte[] entry = roomLogs.entry(room, seq);
    if (tamper == Tamper.ROOM_PROOF) {
      String h = roomProof.get(0);
      roomProof.set(0, (h.charAt(0) == '0' ? "1" : "0") + h.substring(1));
    } else if (tamper == Tamper.ROOM_ENTRY && seq < roomLogs.size(room)) {
      entry = roomLogs.entry(room, seq + 1);
    }
    Ledger.Device d = ledger.devices.get(m.deviceId());
    InclusionProofResponse device = d.proof(m.deviceIndex());
    Map<String, Object> b = new java.util.LinkedHashMap<>();
    b.put("format", "danmaku-ledger-audit-bundle/v1");
    b.put("room", room);
    b.put("seq", seq);
    b.put("entry", Base64.getEncoder().encodeToString(entry));
    b.put("roomCheckpoint", roomLogs.checkpoint(room));
    b.put(
        "roomInclusion", Map.of("index", leaf, "size", roomLogs.size(room), "proofHex", roomProof));
    b.put("deviceId", m.deviceId());
    b.put("record", device.canonical());
    b.put(
        "deviceInclusion",
        Map.of("index", device.index(), "size", device.size(), "proofHex", device.proofHex()));
    b.put("deviceCheckpoint", device.checkpoint());
    return ok(b);
  }

  private static RoomMessage withText(RoomMessage m, String text) {
    return new RoomMessage(
        m.room(),
        m.seq(),
        m.messageId(),
        m.idempotencyKey(),
        m.deviceId(),
        m.user(),
        text,
        m.playbackMs(),
        m.mode(),
        m.color(),
        m.fontSize(),
        m.status(),
        m.deviceIndex());
  }

  private RoomMessage current(RoomMessage m) {
    return new RoomMessage(
        m.room(),
        m.seq(),
        m.messageId(),
        m.idempotencyKey(),
        m.deviceId(),
        m.user(),
        m.text(),
        m.playbackMs(),
        m.mode(),
        m.color(),
        m.fontSize(),
        status.get(m.messageId()),
        m.deviceIndex());
  }

  private InclusionProofResponse tampered(InclusionProofResponse proof) {
    List<String> hashes = new ArrayList<>(proof.proofHex());
    String canonical = proof.canonical();
    switch (tamper) {
      case PROOF -> {
        String h = hashes.get(0);
        hashes.set(0, (h.charAt(0) == '0' ? "1" : "0") + h.substring(1));
      }
      case CANONICAL -> {
        DanmakuRecord r = CanonicalRecord.decode(proof.canonicalBytes());
        DanmakuRecord edited =
            new DanmakuRecord(
                r.key(),
                r.deviceId(),
                r.room(),
                r.user(),
                EDITED_TEXT,
                r.playbackMs(),
                r.mode(),
                r.color(),
                r.fontSize(),
                r.hlc(),
                r.index());
        canonical = Base64.getEncoder().encodeToString(edited.canonicalBytes());
      }
      case NO_CANONICAL -> canonical = null;
      default -> {
        return proof;
      }
    }
    return new InclusionProofResponse(
        proof.deviceId(),
        proof.index(),
        proof.size(),
        proof.leafHashHex(),
        hashes,
        proof.rootHex(),
        proof.checkpoint(),
        canonical);
  }

  private MockResponse found(java.util.function.Predicate<RoomMessage> match) {
    for (RoomMessage m : messages()) {
      if (match.test(m)) {
        return ok(tamper == Tamper.MESSAGE_TEXT ? withText(m, EDITED_TEXT) : m);
      }
    }
    return problem(404, "not-found", "no such message");
  }

  private double elapsedSeconds() {
    return Math.max(0, Duration.between(started, clock.instant()).toMillis() / 1000.0);
  }

  /** Two instances: one beating now, one whose heartbeat stopped four minutes ago. */
  public InstanceList instances() {
    Instant now = clock.instant();
    return new InstanceList(
        List.of(
            new InstanceList.Instance(
                "i-7f3a01c2",
                "http://10.0.0.5:8080",
                "0.1.0",
                now.minus(Duration.ofHours(3)).toString(),
                now.minusSeconds(2).toString(),
                InstanceList.Status.UP,
                4.5,
                12),
            new InstanceList.Instance(
                "i-0b91d4e8",
                "http://10.0.0.6:8080",
                "0.1.0",
                now.minus(Duration.ofHours(5)).toString(),
                now.minus(Duration.ofMinutes(4)).toString(),
                InstanceList.Status.DOWN,
                0,
                0)));
  }

  /**
   * The cluster's last {@code minutes} minutes: two instances whose traffic rises and falls, with
   * one duplicate in twenty records, and no instance at all in minutes 20..24 before now.
   */
  public ClusterHistory history(int minutes) {
    long newest = clock.millis() / 60_000 * 60_000;
    List<ClusterHistory.Minute> points = new ArrayList<>();
    for (int i = minutes - 1; i >= 0; i--) {
      Instant at = Instant.ofEpochMilli(newest - i * 60_000L);
      boolean gap = i >= 20 && i < 25;
      long records = gap ? 0 : 600 + Math.round(400 * Math.sin(i / 6.0));
      points.add(
          new ClusterHistory.Minute(
              at.toString(),
              gap ? 0 : 2,
              records / 10,
              records,
              records - records / 20,
              0,
              records / 20,
              0,
              0,
              gap ? 0 : 12,
              gap ? 0 : 1.5,
              gap ? 0 : 4.0));
    }
    return new ClusterHistory(minutes, points);
  }

  public Overview overview() {
    double t = elapsedSeconds();
    Map<String, Long> outcomes = new TreeMap<>();
    for (RoomMessage m : messages()) {
      outcomes.merge(m.status().name(), 1L, Long::sum);
    }
    long grow = (long) (t * 3);
    outcomes.merge("CONFIRMED", 1200 + grow, Long::sum);
    outcomes.put("DUPLICATE", 180 + (long) (t * 0.6 + 8 * Math.sin(t / 9)));
    outcomes.put("CONFLICT", 2L);
    Map<String, Long> rejects = new TreeMap<>();
    rejects.put("banned-word", outcomes.getOrDefault("REJECTED", 0L) + 5);
    rejects.put("invalid-text", 3L);
    rejects.put("rate-limited", 1L);
    return new Overview(
        310 + (long) (t / 2),
        outcomes,
        new DuplicateLayers(95 + (long) (t * 0.3), outcomes.get("DUPLICATE") - 4, 4),
        2,
        1,
        1,
        rejects,
        alerts().size(),
        ledger.devices.size() + 2,
        2,
        3 + 2 * Math.sin(t / 15) + (t % 7) / 7,
        clock.instant().toString());
  }

  private DeviceList devices() {
    List<DeviceSummary> out = new ArrayList<>();
    Instant now = clock.instant();
    long skew = -40;
    for (Ledger.Device d : ledger.devices.values()) {
      out.add(
          new DeviceSummary(
              d.id,
              DeviceSummary.Status.VERIFIED,
              d.size(),
              d.size(),
              d.log().rootHex(),
              now.minusSeconds(4).toString(),
              now.minusSeconds(4).toString(),
              skew,
              0,
              now.minusSeconds(2).toString(),
              0L,
              new DeviceQueue(
                  null, 4_000L, "ok", false, now.minusSeconds(4).toString(), skew < 0)));
      skew += 95;
    }
    out.add(
        new DeviceSummary(
            "phone-12",
            DeviceSummary.Status.BEHIND,
            180,
            212,
            null,
            now.minusSeconds(90).toString(),
            now.minusSeconds(90).toString(),
            2350L,
            32,
            now.minusSeconds(30).toString(),
            0L,
            new DeviceQueue(
                750_000L, 30_000L, "bad-proof", true, now.minusSeconds(30).toString(), true)));
    out.add(
        new DeviceSummary(
            "venue-3",
            DeviceSummary.Status.FORKED,
            57,
            64,
            null,
            now.minusSeconds(600).toString(),
            null,
            null,
            7,
            now.minusSeconds(600).toString()));
    return new DeviceList(out);
  }

  private RoomList rooms() {
    Map<String, long[]> byRoom = new LinkedHashMap<>();
    for (RoomMessage m : messages()) {
      long[] c = byRoom.computeIfAbsent(m.room(), r -> new long[4]);
      c[0] = Math.max(c[0], m.seq());
      switch (m.status()) {
        case CONFIRMED -> c[1]++;
        case PENDING -> c[2]++;
        case REJECTED -> c[3]++;
        default -> {}
      }
    }
    List<RoomSummary> out = new ArrayList<>();
    byRoom.forEach(
        (room, c) ->
            out.add(
                new RoomSummary(
                    room,
                    c[0] + 1,
                    1,
                    c[1],
                    c[2],
                    c[3],
                    12.5,
                    new RoomSummary.Relay(out.isEmpty() ? 3 : 0, out.isEmpty() ? 420 : 0))));
    return new RoomList(out, new RelayLag("danmaku.confirmed", 4, 4, true, 3, 420));
  }

  private ReviewQueue review() {
    List<ReviewItem> items = new ArrayList<>();
    for (RoomMessage m : messages()) {
      if (m.status() == RoomMessage.Status.PENDING) {
        items.add(
            new ReviewItem(
                m.messageId(),
                m.room(),
                m.seq(),
                m.idempotencyKey(),
                m.deviceId(),
                m.user(),
                m.text(),
                m.color(),
                versions.get(m.messageId())));
      }
    }
    return new ReviewQueue(items);
  }

  private MockResponse decide(String messageId, ReviewDecision d) {
    Long version = versions.get(messageId);
    if (version == null) {
      return problem(404, "not-found", "no such message");
    }
    synchronized (this) {
      if (loseNext) {
        loseNext = false;
        versions.put(messageId, version + 1);
      }
      version = versions.get(messageId);
      if (status.get(messageId) != RoomMessage.Status.PENDING || version != d.version()) {
        return problem(
            409,
            "version-conflict",
            "message " + messageId + " is at version " + version + ", not " + d.version());
      }
      status.put(
          messageId,
          ReviewDecision.APPROVE.equals(d.decision())
              ? RoomMessage.Status.CONFIRMED
              : RoomMessage.Status.REJECTED);
      versions.put(messageId, version + 1);
    }
    return ok(Map.of("messageId", messageId, "status", status.get(messageId)));
  }

  private RoomPage page(String room, long after, int limit) {
    List<RoomMessage> out = new ArrayList<>();
    long next = after;
    for (RoomMessage m : messages()) {
      if (m.room().equals(room) && m.seq() > after && out.size() < limit) {
        out.add(m);
        next = m.seq();
      }
    }
    return new RoomPage(out, next);
  }

  public List<AdminEvent> alerts() {
    Instant now = clock.instant();
    return List.of(
        new AdminEvent(
            AdminEvent.Type.ALERT,
            AdminEvent.Severity.CRITICAL,
            "venue-3",
            null,
            "Fork: venue-3 signed two different roots for size 57; device quarantined",
            now.minusSeconds(600).toString(),
            Map.of("kind", "FORK")),
        new AdminEvent(
            AdminEvent.Type.ALERT,
            AdminEvent.Severity.CRITICAL,
            "venue-3",
            null,
            "Bad signature on a checkpoint from venue-3",
            now.minusSeconds(540).toString(),
            Map.of("kind", "BAD_SIGNATURE")),
        new AdminEvent(
            AdminEvent.Type.ALERT,
            AdminEvent.Severity.WARN,
            null,
            null,
            "Redis unavailable for 4 s; the database caught 4 duplicates",
            now.minusSeconds(300).toString(),
            Map.of("kind", "REDIS_OUTAGE")),
        new AdminEvent(
            AdminEvent.Type.ALERT,
            AdminEvent.Severity.WARN,
            "phone-12",
            "lobby",
            "Record 199 of phone-12 changed after signing (tamper) — rejected",
            now.minusSeconds(120).toString(),
            Map.of("kind", "TAMPER")));
  }

  private MockResponse events() {
    StringBuilder body = new StringBuilder(": console fixture\n\n");
    AdminEvent e =
        new AdminEvent(
            AdminEvent.Type.DEVICE,
            AdminEvent.Severity.INFO,
            "kiosk-1",
            null,
            "batch verified",
            clock.instant().toString(),
            Map.of());
    body.append("event: DEVICE\ndata: ").append(write(e)).append("\n\n");
    MockResponse r =
        new MockResponse()
            .setHeader("Content-Type", "text/event-stream")
            .setHeader("Cache-Control", "no-cache");
    long seconds = streamFor.toSeconds();
    if (seconds > 0) {
      for (long i = 0; i < seconds; i++) {
        body.append(": keep-alive\n");
      }
      r.throttleBody(body.length() / seconds + 1, 1, TimeUnit.SECONDS);
    }
    return r.setBody(body.toString());
  }

  private MockResponse ok(Object value) {
    return new MockResponse().setHeader("Content-Type", "application/json").setBody(write(value));
  }

  private String write(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static MockResponse problem(int status, String code, String detail) {
    return new MockResponse()
        .setResponseCode(status)
        .setHeader("Content-Type", "application/problem+json")
        .setBody(
            "{\"type\":\"https://danmaku-ledger.dev/problems/"
                + code
                + "\",\"title\":\""
                + code
                + "\",\"status\":"
                + status
                + ",\"detail\":\""
                + detail.replace("\"", "'")
                + "\",\"code\":\""
                + code
                + "\"}");
  }
}
