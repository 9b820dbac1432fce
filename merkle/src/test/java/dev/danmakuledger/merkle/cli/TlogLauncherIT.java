package dev.danmakuledger.merkle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.ReferenceTree;
import dev.danmakuledger.merkle.hash.Rfc6962;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the real {@code bin/tlog} launcher as a separate process on a random tree and checks its
 * output against the recursive RFC 9162 reference.
 */
class TlogLauncherIT {
  private static final HexFormat HEX = HexFormat.of();
  private static final Path TLOG =
      Path.of("").toAbsolutePath().getParent().resolve("bin").resolve("tlog");

  @TempDir Path dir;

  record Result(int status, String out, String err) {}

  @Test
  void launcherAgreesWithReferenceAndReportsStatuses() throws Exception {
    assertTrue(Files.isExecutable(TLOG), "missing executable " + TLOG);
    Random rnd = new Random(91622L);
    int size = 300 + rnd.nextInt(200);
    StringBuilder file = new StringBuilder();
    List<byte[]> hashes = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      byte[] leaf = new byte[rnd.nextInt(40)];
      rnd.nextBytes(leaf);
      file.append(HEX.formatHex(leaf)).append('\n');
      hashes.add(Rfc6962.leafHash(leaf));
    }
    Path leaves = Files.writeString(dir.resolve("leaves.txt"), file);
    String root = HEX.formatHex(ReferenceTree.root(hashes));

    assertEquals(new Result(0, root + "\n", ""), tlog("root", leaves.toString()));

    int index = rnd.nextInt(size);
    Result proof = tlog("inclusion", "--index", "" + index, leaves.toString());
    StringBuilder want = new StringBuilder();
    for (byte[] h : ReferenceTree.path(index, hashes)) {
      want.append(HEX.formatHex(h)).append('\n');
    }
    assertEquals(new Result(0, want.toString(), ""), proof);

    Path proofFile = Files.writeString(dir.resolve("proof.txt"), proof.out());
    String leafHex = file.toString().split("\n", -1)[index];
    assertEquals(
        new Result(0, "ok\n", ""),
        tlog(
            "verify-inclusion",
            "--index",
            "" + index,
            "--size",
            "" + size,
            "--leaf-hex",
            leafHex,
            "--root",
            root,
            proofFile.toString()));
    assertEquals(
        1,
        tlog(
                "verify-inclusion",
                "--index",
                "" + index,
                "--size",
                "" + size,
                "--leaf-hex",
                leafHex + "00",
                "--root",
                root,
                proofFile.toString())
            .status());
    assertEquals(2, tlog("root", dir.resolve("missing.txt").toString()).status());
  }

  private static Result tlog(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(TLOG.toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    byte[] err = p.getErrorStream().readAllBytes();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("tlog timed out: " + cmd);
    }
    return new Result(
        p.exitValue(),
        new String(out, StandardCharsets.UTF_8),
        new String(err, StandardCharsets.UTF_8));
  }
}
