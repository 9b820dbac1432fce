package dev.danmakuledger.edge;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Layering of the edge agent (CONVENTIONS "Build habits"). */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.danmakuledger.edge");

  @Test
  void onlyTheCommandLineWritesToTheTerminal() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.danmakuledger.edge.cli..")
        .should()
        .accessField(System.class, "out")
        .orShould()
        .accessField(System.class, "err")
        .because("services log through slf4j or return values; only CLI entry points print")
        .check(MAIN);
  }

  @Test
  void agentNeverReachesIntoServerCode() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.danmakuledger.server..", "dev.danmakuledger.lua..", "dev.danmakuledger.ui..")
        .check(MAIN);
  }

  @Test
  void bloomFilterStandsAlone() {
    classes()
        .that()
        .resideInAPackage("dev.danmakuledger.edge.bloom..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("dev.danmakuledger.edge.bloom..", "java..")
        .check(MAIN);
  }

  @Test
  void storeKnowsNothingOfTheLayersAboveIt() {
    noClasses()
        .that()
        .resideInAPackage("dev.danmakuledger.edge.store..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.danmakuledger.edge.capture..",
            "dev.danmakuledger.edge.api..",
            "dev.danmakuledger.edge.cli..",
            "dev.danmakuledger.edge.importer..")
        .check(MAIN);
  }

  @Test
  void captureServiceDoesNotDependOnItsClients() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.danmakuledger.edge.capture..", "dev.danmakuledger.edge.importer..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.danmakuledger.edge.api..", "dev.danmakuledger.edge.cli..")
        .check(MAIN);
  }
}
