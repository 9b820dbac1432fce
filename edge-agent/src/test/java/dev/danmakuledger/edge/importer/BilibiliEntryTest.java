package dev.danmakuledger.edge.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.capture.CaptureRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link BilibiliImporter#readEntries} and {@link BilibiliEntry#request}: the importer's parser.
 */
class BilibiliEntryTest {
  private static final String ENTRY =
      "<d p=\"12.345,1,25,4294967295,1484219280,0,ab12cd,9876543210\">你好 👋 &amp; co</d>";

  @Test
  void anEntryBecomesTheCaptureTheImporterMakes() throws IOException {
    List<BilibiliEntry> entries = read("<i>" + ENTRY + "</i>");
    assertEquals(1, entries.size());
    CaptureRequest r = entries.get(0).request("dev-1", "room-1");
    assertEquals(
        BilibiliImporter.toRequest("dev-1", "room-1", entries.get(0).p(), "你好 👋 & co"), r);
    assertEquals(
        "dev-1:ab12cd:1484219280000:" + BilibiliImporter.nonceFor("9876543210"),
        r.key().toString());
    assertEquals(12_345L, r.playbackMs());
    assertEquals(0xFFFFFF, r.color());
  }

  @Test
  void malformedEntriesAreReadAndRefusedWithTheirLine() throws IOException {
    List<BilibiliEntry> entries = read("<i>\n<d p=\"1,1,25\">short</d>\n<d>no p</d>\n</i>");
    assertEquals(2, entries.size());
    IllegalArgumentException fields =
        assertThrows(IllegalArgumentException.class, () -> entries.get(0).request("d", "r"));
    assertTrue(
        fields.getMessage().startsWith("line 2: p attribute: got 3 fields"), fields.getMessage());
    IllegalArgumentException none =
        assertThrows(IllegalArgumentException.class, () -> entries.get(1).request("d", "r"));
    assertTrue(none.getMessage().contains("no p attribute"), none.getMessage());
  }

  /** An external entity (XXE) and nested internal ones ("billion laughs"). */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "<!DOCTYPE i [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>",
        "<!DOCTYPE i [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">"
            + "<!ENTITY x \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">]>"
      })
  void documentsDeclaringEntitiesAreRefusedAtTheDeclaration(String doctype) {
    String xml =
        "<?xml version=\"1.0\"?>\n"
            + doctype
            + "\n<i><d p=\"1,1,25,0,1484219280,0,ab,1\">&x;</d></i>";
    IOException e = assertThrows(IOException.class, () -> read(xml));
    assertEquals(
        "not a readable Bilibili XML file: line 2: a document type declaration (<!DOCTYPE ...>)"
            + " is not accepted in a Bilibili file",
        e.getMessage());
  }

  @Test
  void aDocumentTypeDeclarationIsRefusedEvenWithoutEntities() {
    IOException e =
        assertThrows(
            IOException.class,
            () -> read("<?xml version=\"1.0\"?>\n<!DOCTYPE i>\n<i>" + ENTRY + "</i>"));
    assertTrue(e.getMessage().contains("line 2: a document type declaration"), e.getMessage());
  }

  @Test
  void anUndeclaredEntityIsRefused() {
    IOException e =
        assertThrows(
            IOException.class, () -> read("<i><d p=\"1,1,25,0,1484219280,0,ab,1\">&nbsp;</d></i>"));
    assertTrue(e.getMessage().contains("nbsp"), e.getMessage());
  }

  @Test
  void truncatedXmlIsRefused() {
    assertThrows(IOException.class, () -> read("<i>" + ENTRY + "<d p=\"1,1,25"));
  }

  @Test
  void aLargeFileIsReadEntryByEntry() throws IOException {
    StringBuilder xml = new StringBuilder("<i>");
    for (int i = 0; i < 20_000; i++) {
      xml.append("<d p=\"1,1,25,0,1484219280,0,u")
          .append(i)
          .append(',')
          .append(i)
          .append("\">t</d>");
    }
    List<BilibiliEntry> entries = read(xml.append("</i>").toString());
    assertEquals(20_000, entries.size());
    assertEquals("u19999", entries.get(19_999).request("d", "r").user());
  }

  private static List<BilibiliEntry> read(String xml) throws IOException {
    return BilibiliImporter.readEntries(
        new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
  }
}
