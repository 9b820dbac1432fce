package dev.danmakuledger.ui.testing;

import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.importer.BilibiliEntry;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.id.MessageId;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.DeviceKey;
import dev.danmakuledger.testkit.BilibiliSample;
import dev.danmakuledger.testkit.TestDevice;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, deterministic, cryptographically real ledger for tests and the screenshot fixture
 * server: devices with Ed25519 note signers, device logs of real {@link DanmakuRecord}s built from
 * the Bilibili sample, RFC 6962 roots and inclusion proofs, signed checkpoints, and the room
 * messages the server would hold for them.
 */
public final class Ledger {
  private static final HexFormat HEX = HexFormat.of();
  public static final long BASE_MILLIS = 1_764_480_000_000L; // 2025-11-30T05:20:00Z

  /** One device log: the testkit's signing device, and the records it holds. */
  public static final class Device {
    public final String id;
    public final NoteSigner signer;
    public final List<DanmakuRecord> records = new ArrayList<>();
    private final TestDevice signing;

    Device(TestDevice signing) {
      this.signing = signing;
      this.id = signing.id;
      this.signer = signing.signer;
    }

    void append(DanmakuRecord r) {
      records.add(r);
      signing.batch(r);
    }

    public long size() {
      return records.size();
    }

    public byte[] root() {
      return signing.root();
    }

    public String checkpoint() {
      return checkpointAt(size());
    }

    /** The device-signed checkpoint of the first {@code n} records. */
    public String checkpointAt(long n) {
      return signing.checkpointAt(n);
    }

    public LogState log() {
      return new LogState(
          id, size(), HEX.formatHex(root()), checkpoint(), null, LogState.Status.VERIFIED);
    }

    public DeviceKey key() {
      return new DeviceKey(id, signer.verifierKey());
    }

    public InclusionProofResponse proof(long index) {
      List<byte[]> path = signing.inclusionProof(index);
      List<String> hex = new ArrayList<>();
      for (byte[] h : path) {
        hex.add(HEX.formatHex(h));
      }
      return new InclusionProofResponse(
          id,
          index,
          size(),
          HEX.formatHex(signing.leafHash(index)),
          hex,
          HEX.formatHex(root()),
          checkpoint(),
          Base64.getEncoder().encodeToString(records.get((int) index).canonicalBytes()));
    }
  }

  public final Map<String, Device> devices = new LinkedHashMap<>();
  public final List<RoomMessage> messages = new ArrayList<>();

  /**
   * Builds {@code perDevice} records on each of {@code deviceIds}, spread round-robin over {@code
   * rooms}; every 7th message is PENDING, every 11th REJECTED, the rest CONFIRMED.
   */
  public static Ledger build(List<String> deviceIds, List<String> rooms, int perDevice) {
    return build(deviceIds, rooms, perDevice, 0, BASE_MILLIS);
  }

  /**
   * As {@link #build(List, List, int)}, and when {@code retryEvery > 0} every {@code retryEvery}th
   * capture is followed by a second capture of the same message (same idempotency key and content,
   * as after a double click), which the server must answer as a DUPLICATE. Captures are 1.5 s apart
   * from {@code baseMillis}.
   */
  public static Ledger build(
      List<String> deviceIds, List<String> rooms, int perDevice, int retryEvery, long baseMillis) {
    Ledger l = new Ledger();
    SecureRandom random;
    try {
      random = SecureRandom.getInstance("SHA1PRNG");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    random.setSeed(42);
    for (String id : deviceIds) {
      l.devices.put(id, new Device(TestDevice.create(id, random)));
    }
    List<CaptureRequest> sample = sample(deviceIds.size() * perDevice);
    Map<String, Long> seqs = new LinkedHashMap<>();
    int n = 0;
    for (CaptureRequest e : sample) {
      Device d = l.devices.get(deviceIds.get(n % deviceIds.size()));
      String room = rooms.get(n % rooms.size());
      long millis = baseMillis + n * 1_500L;
      String user = "u" + e.user();
      IdempotencyKey key = new IdempotencyKey(d.id, user, millis, String.format("%032x", n + 1));
      DanmakuRecord r =
          new DanmakuRecord(
              key,
              d.id,
              room,
              user,
              e.text(),
              e.playbackMs(),
              e.mode(),
              e.color(),
              Math.max(1, Math.min(255, e.fontSize())),
              millis << 16,
              d.records.size());
      d.append(r);
      if (retryEvery > 0 && n % retryEvery == retryEvery - 1) {
        d.append(r.withIndexAndHlc(d.records.size(), (millis + 700) << 16));
      }
      long seq = seqs.merge(room, 1L, Long::sum);
      RoomMessage.Status status =
          n % 7 == 6
              ? RoomMessage.Status.PENDING
              : n % 11 == 10 ? RoomMessage.Status.REJECTED : RoomMessage.Status.CONFIRMED;
      long id = new MessageId(millis, 3, n % 4096).encode();
      l.messages.add(
          new RoomMessage(
              room,
              seq,
              Long.toString(id),
              key.toString(),
              d.id,
              user,
              e.text(),
              e.playbackMs(),
              r.mode(),
              r.color(),
              r.fontSize(),
              status,
              r.index()));
      n++;
    }
    return l;
  }

  /** The standard fixture: three devices, two rooms. */
  public static Ledger standard() {
    return build(List.of("kiosk-1", "kiosk-2", "stb-7"), List.of("lobby", "live.1"), 24);
  }

  /**
   * The first {@code max} entries of the Bilibili sample as {@code edge-agent import} reads them
   * (entries the importer would skip are skipped); the console fixture uses their content only.
   */
  static List<CaptureRequest> sample(int max) {
    List<CaptureRequest> out = new ArrayList<>();
    for (BilibiliEntry e : BilibiliSample.entries()) {
      if (out.size() == max) {
        break;
      }
      try {
        out.add(e.request("fixture", "fixture"));
      } catch (IllegalArgumentException malformed) {
        // skipped, as the importer skips it
      }
    }
    return out;
  }
}
