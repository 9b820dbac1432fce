package dev.danmakuledger.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BinaryBatch;
import dev.danmakuledger.protocol.wire.EnrollRequest;
import dev.danmakuledger.protocol.wire.WireRecord;
import dev.danmakuledger.protocol.wire.admin.ClusterHistory;
import dev.danmakuledger.protocol.wire.admin.ReviewDecision;
import dev.danmakuledger.server.LedgerException;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.eclipse.jetty.http.BadMessageException;

/**
 * All request validation at the HTTP boundary, in one place: body size, JSON shape and types, path
 * and query parameters, batch structure (record count, indices, base64), keys, and every request
 * field against the size of the column it is stored in ({@code db/migration}), so that a value the
 * database would refuse is a 400 before anything is written. Everything that passes is well-formed;
 * the services judge meaning.
 */
final class Requests {
  private final ObjectMapper json;
  private final long maxBodyBytes;
  private final int maxRecords;
  private final BodyAdmission admission;

  Requests(ObjectMapper json, long maxBodyBytes, int maxRecords, BodyAdmission admission) {
    this.json = json;
    this.maxBodyBytes = maxBodyBytes;
    this.maxRecords = maxRecords;
    this.admission = admission;
  }

  /**
   * The body, refusing more than the configured maximum with 413 before reading it all. Reading
   * needs an admission ({@link BodyAdmission}: 429 or 503 past its bounds); a body that arrives
   * slower than the minimum rate or falls silent for the idle timeout is 408. A gzip body ({@link
   * BodyCoding}) is decoded, and the maximum holds for it both as sent and as decoded.
   */
  byte[] body(Context ctx) {
    boolean gzip = BodyCoding.isGzip(ctx.header("Content-Encoding"));
    byte[] sent = sent(ctx);
    return gzip ? BodyCoding.gunzip(sent, maxBodyBytes) : sent;
  }

  /** The body's bytes as sent, before any content coding is undone. */
  private byte[] sent(Context ctx) {
    long declared = ctx.req().getContentLengthLong();
    if (declared > maxBodyBytes) {
      throw tooLarge(declared);
    }
    BodyAdmission.Permit permit = admission.enter(address(ctx));
    try (InputStream in = ctx.req().getInputStream()) {
      byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBodyBytes + 1));
      if (bytes.length > maxBodyBytes) {
        throw tooLarge(bytes.length);
      }
      return bytes;
    } catch (BadMessageException e) {
      // Jetty's minimum request data rate (HttpLimits.minBodyBytesPerSecond)
      admission.timedOut();
      throw tooSlow(e.getReason());
    } catch (IOException e) {
      if (e.getCause() instanceof TimeoutException) {
        admission.timedOut();
        throw tooSlow("no byte for the idle timeout");
      }
      // the client went away mid-body (or sent less than its Content-Length): a broken request,
      // not a server fault; if anyone still listens, it learns to resend the whole request
      throw new LedgerException(
          ErrorCode.MALFORMED_JSON,
          "body: cut short after "
              + "fewer bytes than the request announced ("
              + e.getMessage()
              + "); resend the whole request");
    } finally {
      permit.close();
    }
  }

  /** The client's address as the limits know it: the TCP peer. */
  static String address(Context ctx) {
    return ctx.ip() == null || ctx.ip().isEmpty() ? "unknown" : ctx.ip();
  }

  private static LedgerException tooSlow(String why) {
    return new LedgerException(
        ErrorCode.REQUEST_TIMEOUT,
        "body: arrived too slowly ("
            + why
            + "); send the whole body promptly, or smaller batches on a slow link");
  }

  private LedgerException tooLarge(long got) {
    return new LedgerException(
        ErrorCode.BODY_TOO_LARGE,
        "body: got "
            + got
            + " bytes or more, want at most "
            + maxBodyBytes
            + "; send smaller batches",
        Map.of("maxBodyBytes", maxBodyBytes));
  }

  /** Parses the body as {@code type} with the strict shared mapper. */
  <T> T parse(Context ctx, Class<T> type) {
    byte[] body = body(ctx);
    if (body.length == 0) {
      throw new LedgerException(ErrorCode.MALFORMED_JSON, "body: got nothing, want a JSON object");
    }
    try {
      T value = json.readValue(body, type);
      if (value == null) {
        throw new LedgerException(ErrorCode.MALFORMED_JSON, "body: got null, want a JSON object");
      }
      return value;
    } catch (JsonProcessingException e) {
      throw new LedgerException(
          ErrorCode.MALFORMED_JSON,
          "body is not a valid " + type.getSimpleName() + ": " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Column {@code devices.last_checkpoint}: a stored checkpoint note. */
  static final int MAX_CHECKPOINT_CHARS = 2048;

  /** Column {@code messages.reason}: an operator's review reason. */
  static final int MAX_REASON_CODE_POINTS = 255;

  /** The enrolment token is compared, never stored; longer than this is not a token we issued. */
  static final int MAX_TOKEN_CHARS = 256;

  /** A valid enrolment request: a device id, its Ed25519 public key and the token presented. */
  record Enrollment(String deviceId, byte[] publicKey, String token) {}

  Enrollment enrollment(Context ctx) {
    EnrollRequest req = parse(ctx, EnrollRequest.class);
    String token = req.enrollToken();
    if (token != null && token.length() > MAX_TOKEN_CHARS) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "enrollToken: got " + token.length() + " characters, want the contents of enroll.token");
    }
    return new Enrollment(validId("deviceId", req.deviceId()), publicKey(req.publicKey()), token);
  }

  /**
   * A 32-byte Ed25519 public key (RFC 8032 §5.1.5) that decodes to a point of the curve's
   * prime-order subgroup: non-canonical encodings, points off the curve and small-order points
   * (which would let anyone sign) are refused.
   */
  static byte[] publicKey(String b64) {
    byte[] key;
    try {
      key = Base64.getDecoder().decode(b64 == null ? "" : b64);
    } catch (IllegalArgumentException e) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD, "publicKey: not standard base64 (" + e.getMessage() + ")");
    }
    if (key.length != Ed25519.PUBLIC_KEY_SIZE) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "publicKey: got " + key.length + " bytes, want a 32-byte Ed25519 public key");
    }
    if (!Ed25519.validatePublicKeyFull(key, 0)) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "publicKey: got 32 bytes that are not a valid Ed25519 public key (not a canonical"
              + " encoding of a point of prime order); send the device's real public key");
    }
    return key;
  }

  /** A review decision whose reason fits its column and holds no control characters. */
  ReviewDecision reviewDecision(Context ctx) {
    ReviewDecision d = parse(ctx, ReviewDecision.class);
    String reason = d.reason();
    if (reason != null) {
      int n = reason.codePointCount(0, reason.length());
      if (n > MAX_REASON_CODE_POINTS) {
        throw new LedgerException(
            ErrorCode.INVALID_FIELD,
            "reason: got " + n + " characters, want at most " + MAX_REASON_CODE_POINTS);
      }
      if (reason.codePoints().anyMatch(Character::isISOControl)) {
        throw new LedgerException(
            ErrorCode.INVALID_FIELD, "reason: got control characters, want one line of text");
      }
    }
    return d;
  }

  /** A structurally valid batch: the canonical bytes of its records, in index order. */
  record Batch(long oldSize, List<byte[]> canonicals, BatchRequest request) {}

  /**
   * A batch from its JSON body, or from its binary body ({@link BinaryBatch}) when the request's
   * {@code Content-Type} is {@value BinaryBatch#MEDIA_TYPE} (docs/sync.md, "Binary batches").
   */
  Batch batch(Context ctx) {
    if (isBinaryBatch(ctx.header("Content-Type"))) {
      return binaryBatch(ctx);
    }
    BatchRequest req = parse(ctx, BatchRequest.class);
    checkHead(req);
    List<WireRecord> records = req.records();
    checkCount(req, records.size());
    List<byte[]> canonicals = new ArrayList<>(records.size());
    Base64.Decoder b64 = Base64.getDecoder();
    for (int i = 0; i < records.size(); i++) {
      WireRecord r = records.get(i);
      long want = req.oldSize() + i;
      if (r.index() != want) {
        throw new LedgerException(
            ErrorCode.INVALID_FIELD,
            "records[" + i + "].index: got " + r.index() + ", want " + want + " (oldSize + i)");
      }
      byte[] bytes;
      try {
        bytes = b64.decode(r.canonical());
      } catch (IllegalArgumentException e) {
        throw new LedgerException(
            ErrorCode.INVALID_FIELD,
            "records[" + i + "].canonical: not standard base64 (" + e.getMessage() + ")");
      }
      // Empty or oversized bytes are still a leaf of the signed log: ingest rejects the record in
      // its place (docs/architecture.md §10), so the device can sync past it.
      canonicals.add(bytes);
    }
    return new Batch(req.oldSize(), canonicals, req);
  }

  /** Whether {@code contentType} names the binary batch body, parameters aside. */
  static boolean isBinaryBatch(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semicolon = contentType.indexOf(';');
    String type = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
    return type.strip().equalsIgnoreCase(BinaryBatch.MEDIA_TYPE);
  }

  /**
   * A binary batch: its framing, then its head by the strict JSON parser, whose {@code records}
   * must be empty (the records follow the head); record i has index {@code oldSize + i}.
   */
  private Batch binaryBatch(Context ctx) {
    byte[] body = body(ctx);
    BinaryBatch.Parts parts;
    try {
      parts = BinaryBatch.decode(body, maxRecords);
    } catch (BinaryBatch.TooManyRecordsException e) {
      throw tooManyRecords(e.count());
    } catch (BinaryBatch.MalformedException e) {
      throw new LedgerException(
          ErrorCode.MALFORMED_REQUEST,
          "binary batch: "
              + e.getMessage()
              + "; send the layout of docs/sync.md, \"Binary batches\", or JSON");
    }
    BatchRequest req;
    try {
      req = json.readValue(parts.head(), BatchRequest.class);
    } catch (JsonProcessingException e) {
      throw new LedgerException(
          ErrorCode.MALFORMED_JSON,
          "binary batch head is not a valid BatchRequest: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (req == null) {
      throw new LedgerException(
          ErrorCode.MALFORMED_JSON, "binary batch head: got null, want a JSON object");
    }
    if (!req.records().isEmpty()) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "records: got "
              + req.records().size()
              + " in the head of a binary batch, want [] (the records follow the head)");
    }
    checkHead(req);
    checkCount(req, parts.records().size());
    return new Batch(req.oldSize(), parts.records(), req);
  }

  private static void checkHead(BatchRequest req) {
    if (req.checkpoint().length() > MAX_CHECKPOINT_CHARS) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "checkpoint: got "
              + req.checkpoint().length()
              + " characters, want at most "
              + MAX_CHECKPOINT_CHARS
              + " (a checkpoint note with few signatures)");
    }
  }

  private void checkCount(BatchRequest req, int records) {
    if (records > maxRecords) {
      throw tooManyRecords(records);
    }
    if (req.oldSize() > Long.MAX_VALUE - records) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD, "oldSize: got " + req.oldSize() + ", want a log size");
    }
  }

  private LedgerException tooManyRecords(long got) {
    return new LedgerException(
        ErrorCode.TOO_MANY_RECORDS,
        "records: got " + got + ", want at most " + maxRecords + "; split the batch",
        Map.of("maxRecords", maxRecords));
  }

  /** A device id path parameter. */
  static String deviceId(Context ctx) {
    return validId("deviceId", ctx.pathParam("deviceId"));
  }

  private static String validId(String name, String id) {
    if (!IdempotencyKey.isValidId(id)) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD, name + ": got " + quote(id) + ", want [A-Za-z0-9_-]{1,64}");
    }
    return id;
  }

  static String room(Context ctx) {
    String room = ctx.pathParam("room");
    if (!DanmakuRecord.isAddressableRoom(room)) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD,
          "room: got " + quote(room) + ", want [A-Za-z0-9_.-]{1,64} other than \".\" and \"..\"");
    }
    return room;
  }

  /** A canonical idempotency key path parameter (400 with the bad part when malformed). */
  static String idempotencyKey(Context ctx) {
    String raw = ctx.pathParam("key");
    try {
      return IdempotencyKey.parse(raw).toString();
    } catch (IllegalArgumentException e) {
      throw new LedgerException(ErrorCode.MALFORMED_IDEMPOTENCY_KEY, e.getMessage());
    }
  }

  /** A non-negative long path parameter. */
  static long pathLong(Context ctx, String name) {
    return nonNegative(name, ctx.pathParam(name));
  }

  /** An optional non-negative long query parameter. */
  static Long queryLong(Context ctx, String name) {
    String raw = ctx.queryParam(name);
    return raw == null || raw.isEmpty() ? null : nonNegative(name, raw);
  }

  static long queryLong(Context ctx, String name, long dflt) {
    Long v = queryLong(ctx, name);
    return v == null ? dflt : v;
  }

  /** A required non-negative long query parameter. */
  static long requiredLong(Context ctx, String name) {
    Long v = queryLong(ctx, name);
    if (v == null) {
      throw new LedgerException(
          ErrorCode.INVALID_FIELD, name + ": got nothing, want a non-negative integer");
    }
    return v;
  }

  static int limit(Context ctx, int dflt, int max) {
    long v = queryLong(ctx, "limit", dflt);
    if (v < 1 || v > max) {
      throw new LedgerException(ErrorCode.INVALID_FIELD, "limit: got " + v + ", want 1.." + max);
    }
    return (int) v;
  }

  /**
   * The {@code minutes} of {@code GET /admin/history}: 60 when absent, else a whole number in
   * 1..{@link ClusterHistory#MAX_MINUTES}; anything else is 400 invalid-field.
   */
  static int historyMinutes(Context ctx) {
    String raw = ctx.queryParam("minutes");
    if (raw == null) {
      return 60;
    }
    long v = Decimal.parse("minutes", raw, 1, ClusterHistory.MAX_MINUTES);
    return (int) v;
  }

  /** {@code raw} as a non-negative long (a canonical decimal), else 400 invalid-field. */
  static long nonNegative(String name, String raw) {
    return Decimal.parse(name, raw);
  }

  static String quote(String s) {
    if (s == null) {
      return "nothing";
    }
    String cut = s.length() > 80 ? s.substring(0, 80) + "..." : s;
    return '"' + cut + '"';
  }
}
