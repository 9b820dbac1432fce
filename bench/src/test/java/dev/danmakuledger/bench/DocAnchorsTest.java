package dev.danmakuledger.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every section a source file or a document names by quoting it resolves to a real part of that
 * document. Scanned: the main and test Java sources of every module, README.md and the documents
 * under docs/ (not docs/history, which records past runs as they were written). The forms checked:
 *
 * <ul>
 *   <li>{@code docs/FILE.md, "Name"} and {@code docs/FILE.md "Name"}: a heading of FILE.md reads
 *       Name (a leading section number ignored), or starts with Name followed by ":" or " (" (a
 *       benchmark section "e2e: warm-up" is cited as "e2e", "admit (version 2)" as "admit"), or a
 *       paragraph or list item of FILE.md is labelled Name ({@code **Name.**}, {@code - Name:},
 *       {@code - **Name**}); letter case is ignored;
 *   <li>{@code docs/FILE.md §N} (also {@code §N–§M}, {@code §N, §M}, {@code §N and §M}): FILE.md
 *       has a heading numbered N, such as "## 5. Three duplicate checks";
 *   <li>{@code docs/FILE.md §N, "Name"}: Name is a heading or a label inside section N.
 * </ul>
 *
 * A name is read across line breaks and comment markers, as a wrapped Javadoc quotes it; a
 * reference to a document that does not exist fails too.
 */
class DocAnchorsTest {
  private static final Pattern REFERENCE =
      Pattern.compile(
          "docs/([a-z0-9-]+)\\.md"
              + "(?<sections>(?:,? ?§\\d+(?:(?:–|-|, | and )§\\d+)*))?"
              + "(?:,? \"(?<name>[^\"]{1,100})\")?");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");
  private static final Pattern NUMBERED = Pattern.compile("^(\\d+)\\.?\\s+(.*)$");
  private static final Pattern SECTION = Pattern.compile("§(\\d+)");
  private static final Pattern LABEL =
      Pattern.compile("^(?:[-*]\\s+)?\\*\\*(.+?)\\*\\*|^[-*]\\s+([^:*`|]{2,80}):");

  @Test
  void everyQuotedSectionResolves() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    Map<String, Doc> docs = new HashMap<>();
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path source : sources(root)) {
      String text = joined(Files.readString(source), source.toString().endsWith(".java"));
      Matcher m = REFERENCE.matcher(text);
      while (m.find()) {
        if (m.group("sections") == null && m.group("name") == null) {
          continue;
        }
        checked++;
        String file = m.group(1);
        Doc doc =
            docs.computeIfAbsent(file, f -> Doc.read(root.resolve("docs").resolve(f + ".md")));
        Optional<String> problem = doc.resolve(m.group("sections"), m.group("name"));
        if (problem.isPresent()) {
          broken.add(root.relativize(source) + ": " + m.group() + " — " + problem.get());
        }
      }
    }
    assertTrue(checked >= 40, "found only " + checked + " quoted references under " + root);
    assertEquals(List.of(), broken, "quoted docs/ sections that point nowhere");
  }

  @Test
  void resolvesNumbersNamesAndLabelsAndRefusesTheRest() {
    Doc doc =
        Doc.parse(
            """
            # Title
            ## 5. Three duplicate checks
            - Device log storage: rows of records.
            ## 6. Storage
            ```
            ## Not a heading
            ```
            ### e2e: warm-up
            **The tail was the JIT.** Text.
            """);
    assertEquals(Optional.empty(), doc.resolve("§5", null));
    assertEquals(Optional.empty(), doc.resolve(" §5–§6", null));
    assertEquals(Optional.empty(), doc.resolve("§5", "Device log storage"));
    assertEquals(Optional.empty(), doc.resolve(null, "Three duplicate checks"));
    assertEquals(Optional.empty(), doc.resolve(null, "e2e"));
    assertEquals(Optional.empty(), doc.resolve(null, "three duplicate checks"));
    assertEquals(Optional.empty(), doc.resolve(null, "e2e: warm-up"));
    assertEquals(Optional.empty(), doc.resolve(null, "The tail was the JIT"));
    assertTrue(doc.resolve("§7", null).isPresent());
    assertTrue(doc.resolve("§6", "Device log storage").isPresent());
    assertTrue(doc.resolve(null, "Not a heading").isPresent());
    assertTrue(doc.resolve(null, "e2e: warm").isPresent());
    assertTrue(Doc.read(Path.of("no-such-file.md")).resolve(null, "Title").isPresent());
  }

  private static List<Path> sources(Path root) throws IOException {
    List<Path> out = new ArrayList<>();
    out.add(root.resolve("README.md"));
    try (Stream<Path> s = Files.walk(root.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md"))
          .filter(p -> !root.resolve("docs/history").equals(p.getParent()))
          .forEach(out::add);
    }
    try (Stream<Path> modules = Files.list(root)) {
      for (Path module : modules.filter(Files::isDirectory).toList()) {
        for (String scope : List.of("src/main/java", "src/test/java")) {
          Path dir = module.resolve(scope);
          if (Files.isDirectory(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
              s.filter(p -> p.toString().endsWith(".java")).forEach(out::add);
            }
          }
        }
      }
    }
    return out;
  }

  /** The text as one line: line breaks, and in Java comment markers and escaped quotes, undone. */
  private static String joined(String text, boolean java) {
    if (!java) {
      return text.replaceAll("\\s*\\R\\s*", " ");
    }
    return text.replace("\\\"", "\"").replaceAll("\\s*\\R\\s*(?:(?:\\*|//)(?!\\*)\\s*)?", " ");
  }

  /** One document's headings, in order, with the labels of the paragraphs under each. */
  private record Doc(boolean exists, List<Section> sections) {
    static Doc read(Path file) {
      if (!Files.isRegularFile(file)) {
        return new Doc(false, List.of());
      }
      try {
        return parse(Files.readString(file));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    static Doc parse(String text) {
      List<Section> sections = new ArrayList<>();
      Section current = new Section(1, null, "", new ArrayList<>());
      boolean fence = false;
      for (String line : text.split("\\R")) {
        if (line.startsWith("```")) {
          fence = !fence;
          continue;
        }
        Matcher h = HEADING.matcher(line);
        if (!fence && h.matches()) {
          int level = line.indexOf(' ');
          String title = h.group(1).replace("`", "");
          Matcher n = NUMBERED.matcher(title);
          String number = n.matches() ? n.group(1) : null;
          current = new Section(level, number, n.matches() ? n.group(2) : title, new ArrayList<>());
          sections.add(current);
        } else if (!fence) {
          Matcher l = LABEL.matcher(line.strip());
          if (l.find()) {
            String label = l.group(1) != null ? l.group(1) : l.group(2);
            current.labels().add(label.replace("`", "").replaceAll("[.:]$", "").strip());
          }
        }
      }
      return new Doc(true, sections);
    }

    /** Why the reference does not resolve, or empty when it does. */
    Optional<String> resolve(String sectionRefs, String name) {
      if (!exists) {
        return Optional.of("no such document");
      }
      List<Section> scope = sections;
      if (sectionRefs != null) {
        Matcher m = SECTION.matcher(sectionRefs);
        String first = null;
        while (m.find()) {
          String number = m.group(1);
          first = first == null ? number : first;
          if (numbered(number).isEmpty()) {
            return Optional.of("no section " + number);
          }
        }
        scope = numbered(first);
      }
      if (name == null) {
        return Optional.empty();
      }
      String wanted = name.replace("`", "").strip().toLowerCase(Locale.ROOT);
      for (Section s : scope) {
        String title = s.title().toLowerCase(Locale.ROOT);
        if (title.equals(wanted)
            || title.startsWith(wanted + ":")
            || title.startsWith(wanted + " (")
            || s.labels().stream().anyMatch(l -> l.equalsIgnoreCase(wanted))) {
          return Optional.empty();
        }
      }
      return Optional.of("no heading or label \"" + wanted + "\"");
    }

    /** Section N and the sections nested under it. */
    private List<Section> numbered(String number) {
      List<Section> out = new ArrayList<>();
      int level = 0;
      for (Section s : sections) {
        if (level > 0 && s.level() <= level) {
          break;
        }
        if (level > 0) {
          out.add(s);
        } else if (number.equals(s.number())) {
          out.add(s);
          level = s.level();
        }
      }
      return out;
    }
  }

  private record Section(int level, String number, String title, List<String> labels) {}
}
