package dev.danmakuledger.lua;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The lua module's rules (docs/architecture.md §2): Lettuce only, no console output. */
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.danmakuledger.lua");

  @Test
  void dependsOnlyOnTheJdkAndLettuce() {
    classes()
        .that()
        .resideInAPackage("dev.danmakuledger.lua..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "io.lettuce..", "dev.danmakuledger.lua..")
        .check(MAIN);
  }

  @Test
  void neverPrints() {
    noClasses()
        .should()
        .accessField(System.class, "out")
        .orShould()
        .accessField(System.class, "err")
        .check(MAIN);
  }

  /**
   * The Redis plumbing stays inside the module; the key layout ({@code RedisKeys}) is the scripts'
   * contract with operators and fault drills (docs/lua-scripts.md, "Key layout"), so it is public.
   */
  @Test
  void implementationClassesStayPackagePrivate() {
    classes()
        .that()
        .haveSimpleNameStartingWith("Redis")
        .and()
        .haveSimpleNameNotEndingWith("Exception")
        .and()
        .doNotHaveSimpleName("RedisKeys")
        .or()
        .haveSimpleName("ScriptCaller")
        .should()
        .notHaveModifier(JavaModifier.PUBLIC)
        .check(MAIN);
  }
}
