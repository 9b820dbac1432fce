package dev.danmakuledger.edge.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.testing.MutableClock;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class BilibiliImporterTest {
  @TempDir Path dir;
  private TestDevice device;
  private Path realFile;

  @BeforeEach
  void setUp() throws Exception {
    device =
        TestDevice.create(
            dir.resolve("agent"), new MutableClock(Instant.parse("2026-02-01T00:00:00Z")));
    realFile = dir.resolve("bilibili-comments.xml");
    try (InputStream in = getClass().getResourceAsStream("/bilibili/bilibili-comments.xml")) {
      assertNotNull(in, "test resource bilibili-comments.xml");
      Files.copy(in, realFile);
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    device.close();
  }

  private ImportSummary importFile(Path file, String room) throws Exception {
    return new BilibiliImporter(device.capture).importFile(file, room, ImportProgress.none());
  }

  /** Texts and p attributes of the file read by an independent (DOM) parser, by row id. */
  private static Map<String, String[]> expectedByRowId(Path file) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    NodeList ds = f.newDocumentBuilder().parse(file.toFile()).getElementsByTagName("d");
    Map<String, String[]> out = new HashMap<>();
    for (int i = 0; i < ds.getLength(); i++) {
      Element d = (Element) ds.item(i);
      String p = d.getAttribute("p");
      out.put(p.split(",")[7], new String[] {p, d.getTextContent()});
    }
    return out;
  }

  @Test
  void realFileImportsEveryEntryAndRoundTripsTheTextExactly() throws Exception {
    ImportSummary s = importFile(realFile, "bili-8729348");
    assertEquals(1_239, s.entries());
    assertEquals(1_239, s.captured());
    assertEquals(List.of(), s.skipped());
    assertEquals(List.of(), s.conflicts());
    assertNull(s.fatal());
    assertTrue(s.complete());
    assertEquals(2, device.store.checkpoints().size(), "groups of 1024 commit in one transaction");

    Map<String, String[]> expected = expectedByRowId(realFile);
    assertEquals(1_239, expected.size());
    Map<String, String> textByNonce = new HashMap<>();
    expected.forEach((rowId, pt) -> textByNonce.put(BilibiliImporter.nonceFor(rowId), pt[1]));
    List<StoredRecord> rows = device.store.records(0, 2_000);
    assertEquals(1_239, rows.size());
    int cjk = 0;
    int emoji = 0;
    int escaped = 0;
    for (StoredRecord row : rows) {
      DanmakuRecord r = CanonicalRecord.decode(row.canonical());
      String want = textByNonce.get(r.key().nonce());
      assertEquals(want, r.text(), "text of " + r.key());
      cjk += r.text().codePoints().anyMatch(c -> c >= 0x4E00 && c <= 0x9FFF) ? 1 : 0;
      emoji += r.text().codePoints().anyMatch(c -> c >= 0x1F000) ? 1 : 0;
      escaped += r.text().matches("(?s).*[<>&].*") ? 1 : 0;
    }
    assertTrue(cjk > 500, "CJK entries: got " + cjk);
    assertTrue(emoji > 0, "emoji entries: got " + emoji);
    assertTrue(escaped > 0, "entries with XML escapes: got " + escaped);
    assertTrue(device.verify().ok());
  }

  @Test
  void firstEntryMapsEveryField() throws Exception {
    importFile(realFile, "bili");
    // <d p="205.2259979248,4,25,6830715,1484219280,0,47f24a19,2839373425">厉害了我的弹幕君！</d>
    DanmakuRecord r = CanonicalRecord.decode(device.store.records(0, 1).get(0).canonical());
    assertEquals("厉害了我的弹幕君！", r.text());
    assertEquals("47f24a19", r.user());
    assertEquals(205_226L, r.playbackMs());
    assertEquals(4, r.mode());
    assertEquals(25, r.fontSize());
    assertEquals(6_830_715, r.color());
    assertEquals(1_484_219_280_000L, r.key().unixMillis());
    assertEquals(BilibiliImporter.nonceFor("2839373425"), r.key().nonce());
    assertEquals(
        "dev-1:47f24a19:1484219280000:" + BilibiliImporter.nonceFor("2839373425"),
        r.key().toString());
  }

  @Test
  void secondImportOfTheSameFileCapturesNothing() throws Exception {
    importFile(realFile, "bili");
    String root = device.capture.logStatus().rootHex();
    ImportSummary again = importFile(realFile, "bili");
    assertEquals(0, again.captured());
    assertEquals(1_239, again.duplicates());
    assertEquals(root, device.capture.logStatus().rootHex());
  }

  @Test
  void sameFileIntoAnotherRoomIsReportedAsConflicts() throws Exception {
    importFile(realFile, "room-a");
    ImportSummary other = importFile(realFile, "room-b");
    assertEquals(0, other.captured());
    assertEquals(1_239, other.conflicts().size());
    assertFalse(other.complete());
  }

  @Test
  void pAttributesWithMoreOrEmptyFieldsAreSkipped() throws Exception {
    Path file =
        entriesFile(
            "fields.xml",
            "<d p=\"1.5,1,25,16777215,1484219280,0,aa11,100,\">trailing comma</d>",
            "<d p=\"\">empty</d>",
            "<d p=\",,,,,,,\">eight empty fields</d>",
            "<d p=\"1.5,1,25,16777215,1484219280,0,aa11,101\">ok</d>");
    ImportSummary s = importFile(file, "room");
    assertEquals(4, s.entries());
    assertEquals(1, s.captured());
    assertTrue(
        s.skipped().get(0).reason().contains("got 9 fields, want 8"), s.skipped().get(0).reason());
    assertTrue(
        s.skipped().get(1).reason().contains("got 1 fields, want 8"), s.skipped().get(1).reason());
    assertTrue(
        s.skipped().get(2).reason().startsWith("time: got \"\""), s.skipped().get(2).reason());
  }

  @Test
  void malformedEntriesAreSkippedWithTheirLine() throws Exception {
    Path file =
        entriesFile(
            "bad.xml",
            "<d p=\"1.5,1,25,16777215,1484219280,0,aa11,100\">ok one</d>",
            "<d p=\"1.5,1,25,16777215,1484219280,0,aa11\">seven fields</d>",
            "<d p=\"1.5,9,25,16777215,1484219280,0,aa11,101\">mode nine</d>",
            "<d p=\"1.5,1,25,16777215,1484219280,0,aa11,102\"></d>",
            "<d p=\"x,1,25,16777215,1484219280,0,aa11,103\">bad time</d>",
            "<d p=\"1.5,1,25,16777215,1484219280,0,a b,104\">bad sender</d>",
            "<d>no p</d>",
            "<d p=\"2.5,1,25,4294967295,1484219281,0,bb22,105\">ok two</d>");
    ImportSummary s = importFile(file, "room");
    assertEquals(8, s.entries());
    assertEquals(2, s.captured());
    List<Long> lines = new ArrayList<>();
    s.skipped().forEach(k -> lines.add(k.line()));
    assertEquals(List.of(4L, 5L, 6L, 7L, 8L, 9L), lines);
    assertTrue(
        s.skipped().get(0).reason().contains("got 7 fields, want 8"), s.skipped().get(0).reason());
    assertTrue(s.skipped().get(1).reason().contains("mode"), s.skipped().get(1).reason());
    assertTrue(s.skipped().get(2).reason().contains("text"), s.skipped().get(2).reason());
    assertTrue(s.skipped().get(5).reason().contains("no p attribute"), s.skipped().get(5).reason());
    DanmakuRecord two = CanonicalRecord.decode(device.store.records(1, 1).get(0).canonical());
    assertEquals(0xFFFFFF, two.color(), "32-bit ARGB colour keeps its RGB part");
  }

  @Test
  void invalidAndHostileEntriesInsideFullGroupsAreSkippedAndTheRestCaptured() throws Exception {
    // More than two groups; invalid records (validated only when their group is submitted) at the
    // start, middle and end of full groups and in the last, partial one.
    int n = 2 * BilibiliImporter.GROUP + 100;
    Map<Integer, String> bad =
        Map.of(
            0,
            "\u007fdelete",
            700,
            "",
            BilibiliImporter.GROUP - 1,
            "x".repeat(301),
            BilibiliImporter.GROUP,
            "next line \u0085 control",
            n - 1,
            "\u007f");
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<i>\n");
    for (int i = 0; i < n; i++) {
      String text = bad.getOrDefault(i, "entry " + i);
      StringBuilder escaped = new StringBuilder();
      for (char c : text.toCharArray()) {
        escaped.append(c >= 0x7f && c <= 0x9f ? "&#" + (int) c + ";" : String.valueOf(c));
      }
      xml.append("<d p=\"1.5,1,25,16777215,1484219280,0,aa11,")
          .append(1000 + i)
          .append("\">")
          .append(escaped)
          .append("</d>\n");
    }
    Path file = dir.resolve("groups.xml");
    Files.writeString(file, xml.append("</i>\n"), StandardCharsets.UTF_8);
    ImportSummary s = importFile(file, "room");
    assertEquals(n, s.entries());
    List<Long> skippedLines = new ArrayList<>();
    s.skipped().forEach(k -> skippedLines.add(k.line()));
    // Entry i is on line i + 3.
    assertNull(s.fatal());
    assertEquals(bad.keySet().stream().sorted().map(i -> (long) i + 3).toList(), skippedLines);
    assertTrue(s.skipped().get(0).reason().contains("text"), s.skipped().get(0).reason());
    assertEquals(n - bad.size(), s.captured());
    assertEquals(n - bad.size(), device.store.recordCount());
    assertEquals(
        List.of(), device.store.records(0, n).stream().filter(StoredRecord::pruned).toList());
  }

  @Test
  void externalEntitiesAreNeverResolved() throws Exception {
    Path secret = dir.resolve("secret.txt");
    Files.writeString(secret, "TOP-SECRET-CONTENT");
    Path file = dir.resolve("xxe.xml");
    Files.writeString(
        file,
        "<?xml version=\"1.0\"?>\n"
            + "<!DOCTYPE i [<!ENTITY xxe SYSTEM \""
            + secret.toUri()
            + "\">]>\n"
            + "<i><d p=\"1.5,1,25,16777215,1484219280,0,aa11,100\">&xxe;</d></i>\n",
        StandardCharsets.UTF_8);
    ImportSummary s = importFile(file, "room");
    assertEquals(0, s.captured());
    assertNotNull(s.fatal(), "a document with a DTD must stop the import");
    for (StoredRecord row : device.store.records(0, 10)) {
      assertFalse(CanonicalRecord.decode(row.canonical()).text().contains("TOP-SECRET"));
    }
  }

  @Test
  void notWellFormedXmlStopsWithTheLineAndKeepsWhatWasCaptured() throws Exception {
    Path file = dir.resolve("broken.xml");
    Files.writeString(
        file,
        "<i>\n<d p=\"1.5,1,25,16777215,1484219280,0,aa11,100\">fine</d>\n<d p=\"1\">unclosed\n",
        StandardCharsets.UTF_8);
    ImportSummary s = importFile(file, "room");
    assertEquals(1, s.captured());
    assertNotNull(s.fatal());
    assertTrue(s.fatal().startsWith("line "), s.fatal());
  }

  @Test
  void requestMappingRejectsOutOfRangeTimes() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> BilibiliImporter.toRequest("dev-1", "room", "1,1,25,0,14842192,0,aa,1", "x"));
    assertTrue(e.getMessage().contains("unixSeconds"), e.getMessage());
    CaptureRequest ok =
        BilibiliImporter.toRequest("dev-1", "room", "0.0004,1,25,0,1484219280,0,aa,1", "x");
    assertEquals(0L, ok.playbackMs());
  }

  /** A Bilibili file of {@code entries}, the first of them on line 3. */
  private Path entriesFile(String name, String... entries) throws IOException {
    Path file = dir.resolve(name);
    List<String> lines = new ArrayList<>();
    lines.add("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    lines.add("<i>");
    lines.addAll(List.of(entries));
    lines.add("</i>");
    Files.writeString(file, String.join("\n", lines), StandardCharsets.UTF_8);
    return file;
  }
}
