package dev.danmakuledger.merkle.cli;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.tiles.EntryBundle;
import dev.danmakuledger.merkle.tiles.TileId;
import dev.danmakuledger.merkle.tiles.Tiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code tlog fetch-room}: mirrors a room log (docs/room-log.md) from a sync server's {@code
 * /v1/rooms/<room>/log/} into a directory in the C2SP tlog-tiles layout that {@code verify-room}
 * audits. Full tiles and bundles are immutable, so ones already in the mirror are kept, not fetched
 * again; partial ones and the checkpoint are fetched each time, the checkpoint last, so an
 * interrupted fetch leaves the previous, complete mirror. It checks only shapes (sizes, bundle
 * framing, the checkpoint's origin): what the files prove is {@code verify-room}'s business.
 */
final class FetchRoom {
  private static final Pattern ROOM = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final long MAX_BUNDLE_BYTES =
      TileId.FULL_WIDTH * (2L + EntryBundle.MAX_ENTRY_BYTES);

  private final HttpClient http;
  private final PrintStream out;

  FetchRoom(HttpClient http, PrintStream out) {
    this.http = http;
    this.out = out;
  }

  static HttpClient defaultClient() {
    return HttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(10))
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  void run(List<String> rest) throws UsageException, CheckFailed {
    Args a = Args.parse(rest, Set.of("out"), Set.of(), List.of("URL", "ROOM"));
    String room = a.operand(1);
    if (!ROOM.matcher(room).matches() || room.equals(".") || room.equals("..")) {
      throw new UsageException("ROOM: got \"" + room + "\", want [A-Za-z0-9_.-]{1,64}");
    }
    URI base = logPrefix(a.operand(0), room);
    Mirror mirror = Mirror.open(Path.of(a.option("out")));
    byte[] noteBytes = get(base, "checkpoint", SignedNote.MAX_NOTE_BYTES, true);
    Checkpoint cp = checkpoint(noteBytes, room);
    int fetched = 0;
    int kept = 0;
    for (TileId t : Tiles.forSize(cp.size())) {
      int want = t.width() * Rfc6962.HASH_SIZE;
      if (t.isFull() && mirror.hasFile(t.path(), want)) {
        kept++;
        continue;
      }
      fetched += fetchTile(base, mirror, t, want);
    }
    long bundles = Tiles.fullTiles(cp.size(), 0) + (cp.size() % TileId.FULL_WIDTH == 0 ? 0 : 1);
    for (long i = 0; i < bundles; i++) {
      TileId id = Tiles.tileAt(cp.size(), 0, i);
      if (id.isFull() && mirror.hasBundle(id.entriesPath())) {
        kept++;
        continue;
      }
      fetched += fetchBundle(base, mirror, id);
    }
    mirror.write("checkpoint", noteBytes);
    out.println(
        cp.origin()
            + " size "
            + cp.size()
            + ": fetched "
            + (fetched + 1)
            + " files (checkpoint included), kept "
            + kept
            + " full tiles and bundles already mirrored");
  }

  private static URI logPrefix(String url, String room) throws UsageException {
    URI u;
    try {
      u = new URI(url);
    } catch (URISyntaxException e) {
      throw new UsageException("URL: " + e.getMessage(), e);
    }
    if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme()))
        || u.getHost() == null
        || u.getRawQuery() != null
        || u.getRawFragment() != null) {
      throw new UsageException(
          "URL: got \"" + url + "\", want http(s)://host[:port][/path] without query or fragment");
    }
    String s = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    return URI.create(s + "/v1/rooms/" + room + "/log/");
  }

  private static Checkpoint checkpoint(byte[] note, String room) throws CheckFailed {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(java.nio.ByteBuffer.wrap(note))
              .toString();
    } catch (CharacterCodingException e) {
      throw new CheckFailed("checkpoint", "not valid UTF-8");
    }
    int end = text.indexOf("\n\n");
    Checkpoint cp;
    try {
      if (end < 0) {
        throw new IllegalArgumentException("no blank line before the signatures");
      }
      cp = Checkpoint.parse(text.substring(0, end + 1));
    } catch (IllegalArgumentException e) {
      throw new CheckFailed("checkpoint", e.getMessage());
    }
    String want = VerifyRoom.ROOM_ORIGIN_PREFIX + room;
    if (!cp.origin().equals(want)) {
      throw new CheckFailed(
          "checkpoint", "origin: got \"" + cp.origin() + "\", want \"" + want + "\"");
    }
    return cp;
  }

  /** Fetches one tile; a missing partial tile may be served as its full tile (C2SP tlog-tiles). */
  private int fetchTile(URI base, Mirror mirror, TileId t, int want)
      throws UsageException, CheckFailed {
    byte[] b = get(base, t.path(), want, t.isFull());
    if (b == null) {
      TileId full = TileId.full(t.level(), t.index());
      b = get(base, full.path(), full.width() * Rfc6962.HASH_SIZE, true);
      checkLength(full.path(), b, full.width() * Rfc6962.HASH_SIZE);
      mirror.write(full.path(), b);
      return 1;
    }
    checkLength(t.path(), b, want);
    mirror.write(t.path(), b);
    return 1;
  }

  private int fetchBundle(URI base, Mirror mirror, TileId id) throws UsageException, CheckFailed {
    byte[] b = get(base, id.entriesPath(), MAX_BUNDLE_BYTES, id.isFull());
    TileId stored = id;
    if (b == null) {
      stored = TileId.full(0, id.index());
      b = get(base, stored.entriesPath(), MAX_BUNDLE_BYTES, true);
    }
    try {
      EntryBundle.decode(b, stored.width());
    } catch (IllegalArgumentException e) {
      throw new CheckFailed(stored.entriesPath(), e.getMessage());
    }
    mirror.write(stored.entriesPath(), b);
    return 1;
  }

  private static void checkLength(String path, byte[] b, int want) throws CheckFailed {
    if (b.length != want) {
      throw new CheckFailed(path, "got " + b.length + " bytes, want " + want);
    }
  }

  /**
   * GETs {@code path} below the log prefix, reading at most {@code max} bytes; returns null on 404
   * unless {@code required}.
   */
  private byte[] get(URI base, String path, long max, boolean required)
      throws UsageException, CheckFailed {
    URI uri = base.resolve(path);
    HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build();
    try {
      HttpResponse<InputStream> resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream in = resp.body()) {
        if (resp.statusCode() == 404 && !required) {
          return null;
        }
        if (resp.statusCode() != 200) {
          throw new CheckFailed(path, "GET " + uri + ": HTTP " + resp.statusCode());
        }
        byte[] b = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, max + 1));
        if (b.length > max) {
          throw new CheckFailed(path, "response larger than " + max + " bytes");
        }
        return b;
      }
    } catch (IOException e) {
      throw new UsageException("GET " + uri + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UsageException("GET " + uri + ": interrupted", e);
    }
  }
}
