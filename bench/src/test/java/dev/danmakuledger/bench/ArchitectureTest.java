package dev.danmakuledger.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module rules of the architecture (docs/architecture.md §9), checked on the compiled main
 * classes of every module. The bench module is built last in the reactor, so all of them are
 * present when this runs.
 */
class ArchitectureTest {
  private static final List<String> MODULES =
      List.of(
          "merkle",
          "protocol",
          "lua",
          "edge-agent",
          "testkit",
          "sync-server",
          "desktop-ui",
          "demo",
          "bench");

  private static JavaClasses all;

  @BeforeAll
  static void importModules() {
    Path root = Path.of("").toAbsolutePath().getParent();
    Path[] dirs =
        MODULES.stream()
            .map(m -> root.resolve(m).resolve("target/classes"))
            .filter(Files::isDirectory)
            .toArray(Path[]::new);
    all =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPaths(dirs);
    assertTrue(
        all.stream().anyMatch(c -> c.getPackageName().startsWith("dev.danmakuledger.merkle")),
        "merkle classes not found under " + root + "/merkle/target/classes: build from the root");
  }

  @Test
  void merkleDependsOnlyOnTheJdkAndBouncyCastle() {
    classes()
        .that()
        .resideInAPackage("dev.danmakuledger.merkle..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "javax..", "org.bouncycastle..", "dev.danmakuledger.merkle..")
        .check(all);
  }

  @Test
  void nothingDependsOnTheConsole() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.danmakuledger.ui..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.danmakuledger.ui..")
        .check(all);
  }

  @Test
  void consoleNeverTouchesServerRedisOrServerStorage() {
    noClasses()
        .that()
        .resideInAPackage("dev.danmakuledger.ui..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.danmakuledger.server..",
            "dev.danmakuledger.lua..",
            "dev.danmakuledger.edge..",
            "io.lettuce..",
            "org.mariadb..",
            "com.zaxxer..",
            "org.flywaydb..")
        .allowEmptyShould(true)
        .check(all);
  }

  @Test
  void onlyTheConsoleHistoryUsesJdbc() {
    noClasses()
        .that()
        .resideInAPackage("dev.danmakuledger.ui..")
        .and()
        .resideOutsideOfPackage("dev.danmakuledger.ui.history..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("java.sql..", "javax.sql..", "org.h2..")
        .allowEmptyShould(true)
        .check(all);
  }

  @Test
  void onlyTheServerUsesTheLuaScripts() {
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "dev.danmakuledger.lua..", "dev.danmakuledger.server..", "dev.danmakuledger.bench..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.danmakuledger.lua..")
        .check(all);
  }

  @Test
  void onlyTestsUseTheTestKit() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.danmakuledger.testkit..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.danmakuledger.testkit..")
        .check(all);
  }

  @Test
  void protocolDependsOnNoApplicationModule() {
    noClasses()
        .that()
        .resideInAPackage("dev.danmakuledger.protocol..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.danmakuledger.edge..",
            "dev.danmakuledger.server..",
            "dev.danmakuledger.ui..",
            "dev.danmakuledger.lua..")
        .allowEmptyShould(true)
        .check(all);
  }

  @Test
  void onlyCommandLineEntryPointsPrintToTheConsole() {
    noClasses()
        .that()
        .resideOutsideOfPackages("..cli..", "dev.danmakuledger.bench..")
        .and()
        .doNotHaveSimpleName("Main")
        .should()
        .accessField(System.class, "out")
        .orShould()
        .accessField(System.class, "err")
        .check(all);
  }

  @Test
  void everyModuleWithSourcesIsChecked() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    for (String module : MODULES) {
      Path sources = root.resolve(module).resolve("src/main/java");
      boolean hasCode;
      try (Stream<Path> files = Files.walk(sources)) {
        hasCode =
            files.anyMatch(f -> f.toString().endsWith(".java") && !f.endsWith("package-info.java"));
      }
      String classesDir = root.resolve(module).resolve("target/classes").toString();
      assertTrue(
          !hasCode
              || all.stream()
                  .anyMatch(
                      c ->
                          c.getSource()
                              .map(s -> s.getUri().getPath())
                              .orElse("")
                              .startsWith(classesDir)),
          module + " has sources but no classes were imported from " + classesDir);
    }
  }

  /**
   * Package-private by default: a public top-level type is an entry point ({@code main}), an
   * exception, used from outside its own package (by main or test code of any module), or part of
   * the public signature of another public type. Anything else would be public by accident.
   */
  @Test
  void everyPublicTypeIsUsedOutsideItsPackage() {
    JavaClasses withTests =
        new ClassFileImporter()
            .importPaths(
                MODULES.stream()
                    .flatMap(
                        m ->
                            Stream.of("target/classes", "target/test-classes")
                                .map(d -> root().resolve(m).resolve(d)))
                    .filter(Files::isDirectory)
                    .toArray(Path[]::new));
    Set<String> exposed = new HashSet<>();
    for (JavaClass c : withTests) {
      if (!c.getModifiers().contains(JavaModifier.PUBLIC)) {
        continue;
      }
      c.getRawSuperclass().ifPresent(s -> exposed.add(s.getName()));
      c.getRawInterfaces().forEach(i -> exposed.add(i.getName()));
      for (JavaMember m : c.getMembers()) {
        if (!m.getModifiers().contains(JavaModifier.PUBLIC)) {
          continue;
        }
        if (m instanceof JavaCodeUnit u) {
          u.getParameterTypes()
              .forEach(t -> t.getAllInvolvedRawTypes().forEach(r -> exposed.add(r.getName())));
          u.getReturnType().getAllInvolvedRawTypes().forEach(r -> exposed.add(r.getName()));
          u.getThrowsClause().getTypes().forEach(r -> exposed.add(r.getName()));
        } else if (m instanceof JavaField f) {
          f.getType().getAllInvolvedRawTypes().forEach(r -> exposed.add(r.getName()));
        }
      }
    }
    List<String> accidental = new ArrayList<>();
    for (JavaClass c : all) {
      if (!c.isTopLevelClass()
          || !c.getModifiers().contains(JavaModifier.PUBLIC)
          || c.getPackageName().contains("jmh_generated")
          || c.getSimpleName().endsWith("Exception")
          || exposed.contains(c.getName())
          || c.getMethods().stream()
              .anyMatch(
                  m ->
                      m.getName().equals("main")
                          && m.getModifiers().contains(JavaModifier.STATIC))) {
        continue;
      }
      JavaClass used = withTests.get(c.getName());
      boolean outside =
          used.getDirectDependenciesToSelf().stream()
              .anyMatch(d -> !d.getOriginClass().getPackageName().equals(c.getPackageName()));
      if (!outside) {
        accidental.add(c.getName());
      }
    }
    assertTrue(
        accidental.isEmpty(),
        "public, but nothing outside their package uses them (make them package-private): "
            + accidental);
  }

  private static Path root() {
    return Path.of("").toAbsolutePath().getParent();
  }
}
