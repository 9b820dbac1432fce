package dev.danmakuledger.lua;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One version of one script: its name ({@code admit}, {@code seed}, {@code lease}), the version
 * declared by its header line {@code -- version: N} and its source. The script must also define
 * {@code local VERSION = N} and return it as the first element of every reply, so the runner can
 * check that the code Redis ran is the version it selected (docs/lua-scripts.md, "Replies and
 * versions").
 *
 * @param name the script's name, {@code [a-z]+}
 * @param version the declared version, {@code >= 1}
 * @param source the Lua source, which must declare {@code version} in both places
 */
public record LuaScript(String name, int version, String source) {
  private static final Pattern NAME = Pattern.compile("[a-z]+");
  private static final Pattern HEADER =
      Pattern.compile("^-- version: (\\d{1,9})$", Pattern.MULTILINE);
  private static final Pattern CONSTANT =
      Pattern.compile("^local VERSION = (\\d{1,9})$", Pattern.MULTILINE);

  public LuaScript {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(source, "source");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("script name: got '" + name + "', want [a-z]+");
    }
    if (version < 1) {
      throw new IllegalArgumentException("script version: got " + version + ", want >= 1");
    }
    int header = declared(HEADER, "-- version: N", name, source);
    int constant = declared(CONSTANT, "local VERSION = N", name, source);
    if (header != version || constant != version) {
      throw new IllegalArgumentException(
          "script "
              + name
              + " declares version "
              + header
              + " (header) and "
              + constant
              + " (VERSION), want both "
              + version);
    }
  }

  private static int declared(Pattern pattern, String form, String name, String source) {
    Matcher m = pattern.matcher(source);
    if (!m.find()) {
      throw new IllegalArgumentException("script " + name + ": got no '" + form + "' line");
    }
    return Integer.parseInt(m.group(1));
  }

  /** Parses the version from {@code source}'s {@code -- version: N} header line. */
  public static LuaScript of(String name, String source) {
    Objects.requireNonNull(source, "source");
    Matcher m = HEADER.matcher(source);
    if (!m.find()) {
      throw new IllegalArgumentException("script " + name + ": got no '-- version: N' line");
    }
    return new LuaScript(name, Integer.parseInt(m.group(1)), source);
  }

  /** The bundled script {@code dev/danmakuledger/lua/<name>.lua}. */
  static LuaScript bundled(String name) {
    String path = name + ".lua";
    try (InputStream in = LuaScript.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("bundled script " + path + ": got no such resource");
      }
      return of(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("reading bundled script " + path, e);
    }
  }

  /** The SHA-1 of the source, lowercase hex: the digest EVALSHA names the script by. */
  public String sha1() {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-1");
      return HexFormat.of().formatHex(md.digest(source.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is a required JDK algorithm", e);
    }
  }

  @Override
  public String toString() {
    return "LuaScript[" + name + " v" + version + "]";
  }
}
