package dev.danmakuledger.edge.importer;

import com.ctc.wstx.stax.WstxInputFactory;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.capture.IdempotencyConflictException;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.merkle.hash.Sha256;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.InvalidRecordException;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.xml.stream.Location;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Imports a Bilibili danmaku XML file: each {@code <d p="time,mode,size,color,unixSeconds,pool,
 * senderHash,rowId">text</d>} becomes a capture in one room, with user = senderHash, playbackMs =
 * time in milliseconds, color the low 24 bits of the colour value, and key {@code
 * deviceId:senderHash:unixSeconds*1000:nonce}, where nonce is the first 16 bytes (32 hex digits) of
 * {@code SHA-256("bilibili:" + rowId)}. The key depends only on the source entry, so importing a
 * file again captures nothing new.
 *
 * <p>The XML parser has DTDs and external entities disabled: a document type declaration or an
 * entity other than the five predefined ones stops the import (no XXE). Malformed entries are
 * skipped and reported with their line; captures are submitted in groups of {@value #GROUP} that
 * the capture service commits in one transaction each, while the next group is parsed (up to
 * {@value #GROUPS_IN_FLIGHT} groups wait for their acks meanwhile).
 */
public final class BilibiliImporter {
  /** Entries submitted before waiting for their acks. */
  static final int GROUP = 1024;

  /**
   * Groups submitted and not yet answered while the next one is parsed. With two, the group after
   * the one committing is already queued when its transaction starts, so the capture writer plans
   * it during that commit (docs/edge-agent.md "Durability and crash safety") instead of after it.
   */
  static final int GROUPS_IN_FLIGHT = 2;

  private final CaptureService capture;

  public BilibiliImporter(CaptureService capture) {
    this.capture = capture;
  }

  private static final HexFormat HEX = HexFormat.of();

  /** Fields of a {@code p} attribute: time,mode,size,color,unixSeconds,pool,senderHash,rowId. */
  private static final int P_FIELDS = 8;

  private static final byte[] NONCE_PREFIX = "bilibili:".getBytes(StandardCharsets.US_ASCII);

  /** The deterministic nonce of a Bilibili row id. */
  public static String nonceFor(String rowId) {
    return nonceFor(rowId, Sha256.fresh());
  }

  /**
   * As {@link #nonceFor(String)} with {@code sha256}, a digest the caller reuses (left reset): an
   * import hashes one row id per entry.
   */
  private static String nonceFor(String rowId, MessageDigest sha256) {
    sha256.update(NONCE_PREFIX);
    sha256.update(rowId.getBytes(StandardCharsets.UTF_8));
    return HEX.formatHex(sha256.digest(), 0, 16);
  }

  /**
   * Imports {@code file} into {@code room}.
   *
   * @throws StoreException if the store fails (the summary so far is lost; the captured records
   *     stay durable)
   */
  public ImportSummary importFile(Path file, String room, ImportProgress progress)
      throws IOException, InterruptedException {
    long total = progress == ImportProgress.NONE ? -1 : countEntries(file);
    Tally tally = new Tally();
    List<Long> lines = new ArrayList<>(GROUP);
    List<CaptureRequest> group = new ArrayList<>(GROUP);
    Deque<List<Submitted>> inFlight = new ArrayDeque<>();
    MessageDigest sha256 = Sha256.fresh();
    String fatal = null;
    try (InputStream in = Files.newInputStream(file)) {
      XMLStreamReader xml = factory().createXMLStreamReader(in);
      try {
        while (xml.hasNext()) {
          if (next(xml) != XMLStreamConstants.START_ELEMENT || !xml.getLocalName().equals("d")) {
            continue;
          }
          long line = xml.getLocation().getLineNumber();
          String p = xml.getAttributeValue(null, "p");
          String text = xml.getElementText();
          tally.entries++;
          try {
            CaptureRequest request = parse(capture.deviceId(), room, p, text, sha256);
            lines.add(line);
            group.add(request);
          } catch (IllegalArgumentException e) {
            tally.skipped.add(new ImportSummary.Skipped(line, e.getMessage()));
          }
          if (group.size() >= GROUP) {
            inFlight.add(submit(lines, group, tally));
            while (inFlight.size() > GROUPS_IN_FLIGHT) {
              drain(inFlight.remove(), tally);
            }
            progress.update(tally.entries - waiting(inFlight), total);
          }
        }
      } catch (XMLStreamException e) {
        fatal =
            (e.getLocation() == null ? "" : "line " + e.getLocation().getLineNumber() + ": ")
                + e.getMessage();
      } finally {
        xml.close();
      }
    } catch (XMLStreamException e) {
      fatal = "cannot read " + file + " as XML: " + e.getMessage();
    }
    inFlight.add(submit(lines, group, tally));
    while (!inFlight.isEmpty()) {
      drain(inFlight.remove(), tally);
    }
    progress.update(tally.entries, total);
    tally.skipped.sort(Comparator.comparingLong(ImportSummary.Skipped::line));
    return new ImportSummary(
        tally.entries, tally.captured, tally.duplicates, tally.conflicts, tally.skipped, fatal);
  }

  /**
   * Reads every {@code <d>} entry of a Bilibili file with the importer's parser (DTDs and external
   * entities refused), without capturing anything; {@link BilibiliEntry#request} turns an entry
   * into the capture {@link #importFile} would make of it.
   *
   * @throws IOException if {@code in} is not well-formed XML or declares a document type
   */
  public static List<BilibiliEntry> readEntries(InputStream in) throws IOException {
    List<BilibiliEntry> out = new ArrayList<>();
    try {
      XMLStreamReader xml = factory().createXMLStreamReader(in);
      try {
        while (xml.hasNext()) {
          if (next(xml) != XMLStreamConstants.START_ELEMENT || !xml.getLocalName().equals("d")) {
            continue;
          }
          long line = xml.getLocation().getLineNumber();
          String p = xml.getAttributeValue(null, "p");
          out.add(new BilibiliEntry(line, p, xml.getElementText()));
        }
      } finally {
        xml.close();
      }
    } catch (XMLStreamException e) {
      throw new IOException(
          "not a readable Bilibili XML file: "
              + (e.getLocation() == null ? "" : "line " + e.getLocation().getLineNumber() + ": ")
              + e.getMessage(),
          e);
    }
    return out;
  }

  /**
   * Hands a group to the capture service as one bulk submission and clears it. The service
   * validates every request on submission (refusing the whole group if one is invalid), so entries
   * are validated once; only a group the service refused is validated entry by entry, its invalid
   * entries skipped and the rest submitted.
   */
  private List<Submitted> submit(List<Long> lines, List<CaptureRequest> group, Tally tally) {
    List<CompletableFuture<CaptureAck>> futures;
    try {
      futures = capture.submitAll(group);
    } catch (InvalidRecordException refused) {
      List<Long> validLines = new ArrayList<>(lines.size());
      List<CaptureRequest> valid = new ArrayList<>(group.size());
      for (int i = 0; i < group.size(); i++) {
        try {
          group.get(i).draft(capture.deviceId());
          validLines.add(lines.get(i));
          valid.add(group.get(i));
        } catch (InvalidRecordException e) {
          tally.skipped.add(new ImportSummary.Skipped(lines.get(i), e.getMessage()));
        }
      }
      lines.clear();
      group.clear();
      lines.addAll(validLines);
      group.addAll(valid);
      futures = capture.submitAll(group);
    }
    List<Submitted> out = new ArrayList<>(futures.size());
    for (int i = 0; i < futures.size(); i++) {
      out.add(new Submitted(lines.get(i), futures.get(i)));
    }
    lines.clear();
    group.clear();
    return out;
  }

  private static long waiting(Deque<List<Submitted>> inFlight) {
    long n = 0;
    for (List<Submitted> g : inFlight) {
      n += g.size();
    }
    return n;
  }

  private static void drain(List<Submitted> group, Tally tally)
      throws StoreException, InterruptedException {
    for (Submitted s : group) {
      try {
        CaptureAck ack = CaptureService.await(s.future);
        if (ack.repeat()) {
          tally.duplicates++;
        } else {
          tally.captured++;
        }
      } catch (IdempotencyConflictException e) {
        tally.conflicts.add(new ImportSummary.Skipped(s.line, e.getMessage()));
      }
    }
  }

  /**
   * The capture request for one {@code <d>} entry.
   *
   * @throws IllegalArgumentException naming the malformed part
   */
  static CaptureRequest toRequest(String deviceId, String room, String p, String text) {
    CaptureRequest request = parse(deviceId, room, p, text, Sha256.fresh());
    request.draft(deviceId);
    return request;
  }

  /**
   * As {@link #toRequest} without validating the resulting record (the capture service does that on
   * submission).
   */
  private static CaptureRequest parse(
      String deviceId, String room, String p, String text, MessageDigest sha256) {
    if (p == null) {
      throw new IllegalArgumentException("entry has no p attribute");
    }
    String[] f = fields(p);
    long playbackMs = playbackMillis(f[0]);
    int mode = integer("mode", f[1]);
    int fontSize = integer("size", f[2]);
    int color = rgb(f[3]);
    long unixSeconds = longValue("unixSeconds", f[4]);
    String sender = f[6];
    String rowId = f[7];
    if (!isRowId(rowId)) {
      throw new IllegalArgumentException("rowId: got \"" + rowId + "\", want 1 to 20 digits");
    }
    if (unixSeconds < 1_000_000_000L || unixSeconds > 9_999_999_999L) {
      throw new IllegalArgumentException(
          "unixSeconds: got " + unixSeconds + ", want 10 digits (a 13-digit millisecond time)");
    }
    IdempotencyKey key =
        new IdempotencyKey(deviceId, sender, unixSeconds * 1000, nonceFor(rowId, sha256));
    return new CaptureRequest(key, room, sender, text, playbackMs, mode, color, fontSize);
  }

  /** The eight comma-separated fields of a {@code p} attribute, found without a regex split. */
  private static String[] fields(String p) {
    String[] f = new String[P_FIELDS];
    int n = 0;
    int start = 0;
    for (int comma = p.indexOf(','); ; comma = p.indexOf(',', start)) {
      int end = comma < 0 ? p.length() : comma;
      if (n < P_FIELDS) {
        f[n] = p.substring(start, end);
      }
      n++;
      if (comma < 0) {
        break;
      }
      start = comma + 1;
    }
    if (n != P_FIELDS) {
      throw new IllegalArgumentException(
          "p attribute: got "
              + n
              + " fields, want 8 (time,mode,size,color,unixSeconds,pool,senderHash,rowId)");
    }
    return f;
  }

  /** 1 to 20 ASCII digits. */
  private static boolean isRowId(String s) {
    if (s.isEmpty() || s.length() > 20) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private static long playbackMillis(String seconds) {
    try {
      BigDecimal ms = new BigDecimal(seconds).movePointRight(3).setScale(0, RoundingMode.HALF_UP);
      if (ms.signum() < 0) {
        throw new IllegalArgumentException("time: got " + seconds + ", want >= 0 seconds");
      }
      return ms.longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("time: got \"" + seconds + "\", want seconds", e);
    }
  }

  /**
   * Bilibili writes colours as decimal RGB, some clients as unsigned 32-bit ARGB (4294967295 is
   * opaque white); the alpha byte is dropped.
   */
  private static int rgb(String value) {
    long argb = longValue("color", value);
    if (argb < 0 || argb > 0xFFFFFFFFL) {
      throw new IllegalArgumentException(
          "color: got " + value + ", want 0..4294967295 (RGB or 32-bit ARGB)");
    }
    return (int) (argb & 0xFFFFFF);
  }

  private static int integer(String name, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": got \"" + value + "\", want an integer", e);
    }
  }

  private static long longValue(String name, String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": got \"" + value + "\", want an integer", e);
    }
  }

  /** Counts {@code <d>} elements for the progress bar; -1 if the file is not well-formed. */
  private static long countEntries(Path file) throws IOException {
    long n = 0;
    try (InputStream in = Files.newInputStream(file)) {
      XMLStreamReader xml = factory().createXMLStreamReader(in);
      try {
        while (xml.hasNext()) {
          if (next(xml) == XMLStreamConstants.START_ELEMENT && xml.getLocalName().equals("d")) {
            n++;
          }
        }
      } finally {
        xml.close();
      }
      return n;
    } catch (XMLStreamException e) {
      return -1;
    }
  }

  /**
   * The reader's next event. A document type declaration is refused: Bilibili files carry none, and
   * with DTD processing off, the entities one declares would only fail later, at their first use.
   */
  private static int next(XMLStreamReader xml) throws XMLStreamException {
    int event = xml.next();
    if (event == XMLStreamConstants.DTD) {
      throw new DoctypeRefused(xml.getLocation());
    }
    return event;
  }

  /** A refused document type declaration, its message without the parser's location prefix. */
  private static final class DoctypeRefused extends XMLStreamException {
    private static final long serialVersionUID = 1L;

    DoctypeRefused(Location at) {
      super("a document type declaration (<!DOCTYPE ...>) is not accepted in a Bilibili file");
      this.location = at;
    }
  }

  /**
   * A StAX factory with DTD processing and external entities switched off. Woodstox, named here
   * rather than looked up, reads a Bilibili file in about two thirds of the time the JDK's parser
   * takes (docs/benchmarks.md, "edge: import").
   */
  static XMLInputFactory factory() {
    XMLInputFactory f = new WstxInputFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    f.setProperty(XMLInputFactory.IS_COALESCING, true);
    return f;
  }

  private record Submitted(long line, CompletableFuture<CaptureAck> future) {}

  private static final class Tally {
    long entries;
    long captured;
    long duplicates;
    final List<ImportSummary.Skipped> conflicts = new ArrayList<>();
    final List<ImportSummary.Skipped> skipped = new ArrayList<>();
  }
}
