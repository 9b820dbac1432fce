package dev.danmakuledger.ui;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.GeneralCodingRules;

/**
 * The console's layering (docs/architecture.md §9; MVVM as in docs/console.md): it never touches
 * server, Redis or SQL code; only the history uses JDBC (its own H2 file); views never call the
 * client; view-models hold no nodes and expose only read-only properties; only the CLI entry point
 * prints.
 */
@AnalyzeClasses(
    packages = "dev.danmakuledger.ui",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  static final ArchRule noServerRedisOrAgentCode =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.danmakuledger.server..",
              "dev.danmakuledger.lua..",
              "dev.danmakuledger.edge..",
              "io.lettuce..",
              "redis..",
              "org.mariadb..",
              "com.zaxxer..",
              "org.flywaydb..");

  @ArchTest
  static final ArchRule onlyTheHistoryUsesJdbc =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.danmakuledger.ui.history..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("java.sql..", "javax.sql..", "org.h2..");

  @ArchTest
  static final ArchRule viewsNeverCallTheClient =
      noClasses()
          .that()
          .haveSimpleNameEndingWith("View")
          .or()
          .haveSimpleName("ConsoleWindow")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("dev.danmakuledger.ui.client..", "okhttp3..");

  @ArchTest
  static final ArchRule viewModelsHoldNoNodes =
      noClasses()
          .that()
          .haveSimpleNameEndingWith("ViewModel")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("javafx.scene..", "javafx.stage..");

  @ArchTest
  static final ArchRule viewModelsExposeOnlyReadOnlyProperties =
      methods()
          .that()
          .areDeclaredInClassesThat()
          .haveSimpleNameEndingWith("ViewModel")
          .and()
          .arePublic()
          .should(returnNoWritableProperty());

  @ArchTest
  static final ArchRule onlyTheCommandLinePrints =
      noClasses()
          .that()
          .doNotHaveFullyQualifiedName("dev.danmakuledger.ui.app.Main")
          .should(GeneralCodingRules.ACCESS_STANDARD_STREAMS);

  private static ArchCondition<JavaMethod> returnNoWritableProperty() {
    return new ArchCondition<>("return no writable JavaFX property or observable list") {
      @Override
      public void check(JavaMethod m, ConditionEvents events) {
        String type = m.getRawReturnType().getName();
        boolean property = type.startsWith("javafx.beans.property.");
        boolean list = type.startsWith("javafx.collections.");
        boolean writable =
            (property && !m.getRawReturnType().getSimpleName().startsWith("ReadOnly")) || list;
        events.add(
            new SimpleConditionEvent(
                m, !writable, m.getFullName() + " returns " + type + ", want a ReadOnly*Property"));
      }
    };
  }
}
