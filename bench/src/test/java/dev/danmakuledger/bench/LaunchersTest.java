package dev.danmakuledger.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The {@code bin/} launchers (docs/operations.md, "JVM options"): the module list {@code
 * bin/lib/launch.sh} reads from the POMs equals the one an XML parser reads from them, and each
 * launcher documents its {@code <TOOL>_JAVA_OPTS} variable where operators look for it.
 */
class LaunchersTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  /** Launcher name to the module it runs. */
  static Set<Map.Entry<String, String>> launchers() {
    return Map.of(
            "demo", "demo",
            "bench", "bench",
            "edge-agent", "edge-agent",
            "sync-server", "sync-server",
            "console", "desktop-ui",
            "tlog", "merkle")
        .entrySet();
  }

  @ParameterizedTest
  @MethodSource("launchers")
  void launchScriptReadsTheModuleDependenciesThePomsDeclare(Map.Entry<String, String> launcher)
      throws Exception {
    String module = launcher.getValue();
    Process p =
        new ProcessBuilder(
                "bash", "-c", "source bin/lib/launch.sh && module_closure \"$1\"", "-", module)
            .directory(ROOT.toFile())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), "module_closure did not finish");
    assertEquals(0, p.exitValue(), out);
    assertEquals(closure(module), new TreeSet<>(out.lines().filter(l -> !l.isBlank()).toList()));
  }

  @ParameterizedTest
  @MethodSource("launchers")
  void everyLauncherNamesItsJavaOptsVariable(Map.Entry<String, String> launcher)
      throws IOException {
    String variable = launcher.getKey().toUpperCase(Locale.ROOT).replace('-', '_') + "_JAVA_OPTS";
    String script = Files.readString(ROOT.resolve("bin").resolve(launcher.getKey()));
    assertTrue(
        script.contains(variable), "bin/" + launcher.getKey() + " does not mention " + variable);
    assertTrue(
        Files.readString(ROOT.resolve("docs/operations.md")).contains("`" + variable + "`"),
        "docs/operations.md does not list " + variable);
  }

  /** The module and the project modules it depends on outside test scope, transitively. */
  private static Set<String> closure(String module) throws Exception {
    Set<String> seen = new TreeSet<>();
    Deque<String> todo = new ArrayDeque<>(Set.of(module));
    while (!todo.isEmpty()) {
      String m = todo.pop();
      if (seen.add(m)) {
        todo.addAll(projectDependencies(m));
      }
    }
    return seen;
  }

  private static Set<String> projectDependencies(String module) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    Element project =
        f.newDocumentBuilder()
            .parse(ROOT.resolve(module).resolve("pom.xml").toFile())
            .getDocumentElement();
    Set<String> out = new TreeSet<>();
    for (Node deps = project.getFirstChild(); deps != null; deps = deps.getNextSibling()) {
      if (!"dependencies".equals(deps.getNodeName())) {
        continue;
      }
      NodeList list = ((Element) deps).getElementsByTagName("dependency");
      for (int i = 0; i < list.getLength(); i++) {
        Element d = (Element) list.item(i);
        if ("dev.danmakuledger".equals(text(d, "groupId")) && !"test".equals(text(d, "scope"))) {
          out.add(text(d, "artifactId"));
        }
      }
    }
    return out;
  }

  private static String text(Element e, String child) {
    NodeList n = e.getElementsByTagName(child);
    return n.getLength() == 0 ? null : n.item(0).getTextContent().strip();
  }
}
