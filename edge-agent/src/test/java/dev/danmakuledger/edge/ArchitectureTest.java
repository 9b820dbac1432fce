package dev.danmakuledger.edge;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The edge agent's layering and public surface (docs/architecture.md §9): only command-line entry
 * points print, the Bloom filter stands alone, the store knows nothing of its callers, and the
 * public types are exactly the pinned list, so the surface other modules may use cannot grow
 * without this test changing with it.
 */
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

  /**
   * Every public top-level type. Most are used by other modules (the benchmarks and end-to-end
   * tests embed agents); the rest are needed across this module's packages (store types in the
   * {@code EdgeStore} contract, the Bloom filter, retention, the CLI entry point). A new public
   * type must be added here on purpose; one that no longer needs to be public must be removed.
   */
  private static final Class<?>[] PUBLIC_SURFACE = {
    EdgeAgent.class,
    dev.danmakuledger.edge.api.IngestServer.class,
    dev.danmakuledger.edge.bloom.BloomConfig.class,
    dev.danmakuledger.edge.bloom.BloomFilter.class,
    dev.danmakuledger.edge.bloom.BloomSnapshot.class,
    dev.danmakuledger.edge.bloom.RotatingBloom.class,
    dev.danmakuledger.edge.capture.AgentStatus.class,
    dev.danmakuledger.edge.capture.CaptureAck.class,
    dev.danmakuledger.edge.capture.CaptureRequest.class,
    dev.danmakuledger.edge.capture.CaptureService.class,
    dev.danmakuledger.edge.capture.DedupeStats.class,
    dev.danmakuledger.edge.capture.IdempotencyConflictException.class,
    dev.danmakuledger.edge.capture.LogStatus.class,
    dev.danmakuledger.edge.cli.EdgeAgentMain.class,
    dev.danmakuledger.edge.config.AgentConfig.class,
    dev.danmakuledger.edge.config.NotInitializedException.class,
    dev.danmakuledger.edge.importer.BilibiliEntry.class,
    dev.danmakuledger.edge.importer.BilibiliImporter.class,
    dev.danmakuledger.edge.importer.ImportProgress.class,
    dev.danmakuledger.edge.importer.ImportSummary.class,
    dev.danmakuledger.edge.keys.DeviceIdentity.class,
    dev.danmakuledger.edge.retention.PruneReport.class,
    dev.danmakuledger.edge.retention.Pruner.class,
    dev.danmakuledger.edge.retention.RetentionDaemon.class,
    dev.danmakuledger.edge.store.AppendBatch.class,
    dev.danmakuledger.edge.store.DataDirLock.class,
    dev.danmakuledger.edge.store.DuplicateKeyException.class,
    dev.danmakuledger.edge.store.Durability.class,
    dev.danmakuledger.edge.store.EdgeStore.class,
    dev.danmakuledger.edge.store.LogStateRow.class,
    dev.danmakuledger.edge.store.NewRecord.class,
    dev.danmakuledger.edge.store.OutcomeUpdate.class,
    dev.danmakuledger.edge.store.PrivateFiles.class,
    dev.danmakuledger.edge.store.QueueState.class,
    dev.danmakuledger.edge.store.StoreException.class,
    dev.danmakuledger.edge.store.StoreFullException.class,
    dev.danmakuledger.edge.store.StoreLockedException.class,
    dev.danmakuledger.edge.store.StoredCheckpoint.class,
    dev.danmakuledger.edge.store.StoredRecord.class,
    dev.danmakuledger.edge.sync.Backoff.class,
    dev.danmakuledger.edge.sync.Enrollment.class,
    dev.danmakuledger.edge.sync.ReceiptVerifier.class,
    dev.danmakuledger.edge.sync.ServerLink.class,
    dev.danmakuledger.edge.sync.Sleeper.class,
    dev.danmakuledger.edge.sync.SyncClient.class,
    dev.danmakuledger.edge.sync.SyncDaemon.class,
    dev.danmakuledger.edge.sync.SyncProgress.class,
    dev.danmakuledger.edge.sync.SyncReport.class,
    dev.danmakuledger.edge.sync.SyncSettings.class,
    dev.danmakuledger.edge.sync.SyncStoppedException.class,
    dev.danmakuledger.edge.sync.Syncer.class,
    dev.danmakuledger.edge.verify.LogVerifier.class,
    dev.danmakuledger.edge.verify.VerifyReport.class,
  };

  @Test
  void publicSurfaceIsPinned() {
    classes()
        .that()
        .areTopLevelClasses()
        .and()
        .doNotBelongToAnyOf(PUBLIC_SURFACE)
        .should()
        .notBePublic()
        .because(
            "everything else is package-private: make a type public only when another package"
                + " or module calls it, and pin it in PUBLIC_SURFACE")
        .check(MAIN);
  }

  @Test
  void everyPinnedTypeIsStillPublic() {
    for (Class<?> c : PUBLIC_SURFACE) {
      classes()
          .that()
          .haveFullyQualifiedName(c.getName())
          .should()
          .bePublic()
          .because("a type that no longer needs to be public leaves PUBLIC_SURFACE")
          .check(MAIN);
    }
  }

  private static final DescribedPredicate<JavaClass> EXTENDED_IN_THE_MODULE =
      DescribedPredicate.describe("extended in the module", c -> !c.getSubclasses().isEmpty());

  @Test
  void concreteClassesAreFinal() {
    classes()
        .that()
        .areTopLevelClasses()
        .and()
        .areNotInterfaces()
        .and()
        .areNotEnums()
        .and()
        .doNotHaveModifier(JavaModifier.ABSTRACT)
        .and(DescribedPredicate.not(EXTENDED_IN_THE_MODULE))
        .should()
        .haveModifier(JavaModifier.FINAL)
        .because("classes are final unless the module extends them")
        .check(MAIN);
  }
}
