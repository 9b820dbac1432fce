package dev.danmakuledger.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The systemd units shipped in the archives load without a single warning and keep systemd's
 * exposure score of their sandbox at 2.0 or below ({@code systemd-analyze verify} and {@code
 * security}; docs/operations.md, "Install"). Skipped where systemd-analyze is not installed.
 */
class SystemdUnitsIT {
  @TempDir Path tmp;

  @ParameterizedTest
  @CsvSource({
    "danmaku-edge-agent, danmaku-edge-agent.service, /opt/danmaku-ledger/edge-agent",
    "danmaku-sync-server, danmaku-sync-server.service, /opt/danmaku-ledger/sync-server"
  })
  void unitIsValidAndSandboxed(String archive, String unit, String installDir) throws Exception {
    Map<String, String> env = Map.of("PATH", System.getenv("PATH"));
    Release.Result which = Release.run(tmp, env, "bash", "-c", "command -v systemd-analyze");
    assumeTrue(which.exit() == 0, "systemd-analyze is not installed");

    Path unpacked = Release.unpack(Release.archive(archive), tmp.resolve("opt"));
    String text = Files.readString(unpacked.resolve("systemd/" + unit));
    assertTrue(text.contains("ExecStart=" + installDir + "/bin/"), text);
    // verify checks that ExecStart= names an executable: point it at the unpacked copy.
    Path copy = Files.createDirectories(tmp.resolve("units")).resolve(unit);
    Files.writeString(copy, text.replace(installDir, unpacked.toString()));

    Release.Result verify = Release.run(tmp, env, "systemd-analyze", "verify", copy.toString());
    assertEquals(0, verify.exit(), "systemd-analyze verify: " + verify);
    assertEquals("", verify.out() + verify.err(), "warnings of systemd-analyze verify");

    List<String> security =
        List.of("systemd-analyze", "security", "--offline=yes", "--threshold=20", copy.toString());
    Release.Result score = Release.run(tmp, env, security.toArray(String[]::new));
    assertEquals(0, score.exit(), "exposure above 2.0: " + score);
    for (String setting :
        List.of(
            "Restart=on-failure",
            "ProtectSystem=strict",
            "ProtectHome=yes",
            "PrivateTmp=yes",
            "NoNewPrivileges=yes",
            "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX")) {
      assertTrue(text.contains("\n" + setting + "\n"), setting + " in " + unit);
    }
  }
}
