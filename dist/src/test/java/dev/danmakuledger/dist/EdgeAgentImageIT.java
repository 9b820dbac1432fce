package dev.danmakuledger.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edge-agent image works on a device without a JDK: unpacked, with no {@code java} on the PATH
 * and no JAVA_HOME, its launcher captures, reports and verifies on the bundled runtime
 * (docs/operations.md, "Install"; exit codes: docs/edge-agent.md).
 */
class EdgeAgentImageIT {
  @TempDir static Path tmp;
  static Path image;
  static Map<String, String> env;

  @BeforeAll
  static void unpack() throws Exception {
    image = Release.unpack(Release.archive("danmaku-edge-agent"), tmp.resolve("opt"));
    Path tools = Release.toolsWithoutJava(tmp.resolve("tools"));
    env = Map.of("PATH", tools.toString(), "HOME", tmp.toString());
  }

  Release.Result agent(String... args) throws Exception {
    String[] command = new String[args.length + 1];
    command[0] = image.resolve("bin/edge-agent").toString();
    System.arraycopy(args, 0, command, 1, args.length);
    return Release.run(tmp, env, command);
  }

  @Test
  void bundlesARuntimeWithoutTheCompiler() throws Exception {
    assertTrue(Files.isExecutable(image.resolve("runtime/bin/java")), "runtime/bin/java");
    assertFalse(Files.exists(image.resolve("runtime/bin/javac")), "a JDK's javac in the image");
    String release = Files.readString(image.resolve("runtime/release"));
    assertTrue(release.contains("java.sql"), "the store's JDBC module in:\n" + release);
    assertFalse(release.contains("jdk.compiler"), "jdk.compiler in:\n" + release);
    assertTrue(Files.isRegularFile(image.resolve("systemd/danmaku-edge-agent.service")));
    assertTrue(Files.isRegularFile(image.resolve("config/edge-agent.env")));
  }

  @Test
  void initSendStatusVerifyWithNoJavaOnThePath() throws Exception {
    String data = tmp.resolve("data").toString();

    Release.Result missing = agent("status", "--data-dir", data);
    assertEquals(5, missing.exit(), "status before init: " + missing);

    Release.Result init = agent("init", "--data-dir", data, "--device-id", "cam-01");
    assertEquals(0, init.exit(), "init: " + init);
    assertTrue(init.out().contains("verifier key: danmaku-ledger/device/cam-01+"), init.out());

    Release.Result again = agent("init", "--data-dir", data, "--device-id", "cam-01");
    assertEquals(5, again.exit(), "second init: " + again);

    Release.Result fresh = agent("send", "--data-dir", data, "--room", "r1", "--user", "u1", "弹幕");
    assertEquals(0, fresh.exit(), "send: " + fresh);
    assertTrue(fresh.out().startsWith("captured index=0 key=cam-01:u1:"), fresh.out());

    String key = "cam-01:u2:1764547200000:0123456789abcdef0123456789abcdef";
    String[] keyed = {
      "send", "--data-dir", data, "--room", "r1", "--user", "u2", "--key", key, "hi"
    };
    Release.Result first = agent(keyed);
    assertEquals(0, first.exit(), "keyed send: " + first);
    assertTrue(first.out().startsWith("captured index=1 key=" + key), first.out());
    Release.Result repeat = agent(keyed);
    assertEquals(0, repeat.exit(), "repeated send: " + repeat);
    assertTrue(repeat.out().startsWith("repeat (original ack) index=1"), repeat.out());

    Release.Result status = agent("status", "--data-dir", data);
    assertEquals(0, status.exit(), "status: " + status);
    assertTrue(Pattern.compile("(?m)^log size:\\s+2$").matcher(status.out()).find(), status.out());
    assertTrue(status.out().contains("UNSYNCED=2"), status.out());

    Release.Result verify = agent("verify", "--data-dir", data);
    assertEquals(0, verify.exit(), "verify: " + verify);
    assertTrue(verify.out().startsWith("ok: 2 records"), verify.out());
  }

  @Test
  void badInputIsAUsageError() throws Exception {
    Release.Result bad = agent("init", "--data-dir", tmp.resolve("bad").toString());
    assertEquals(2, bad.exit(), "init without --device-id: " + bad);
    assertTrue(bad.err().contains("--device-id"), bad.err());
  }
}
