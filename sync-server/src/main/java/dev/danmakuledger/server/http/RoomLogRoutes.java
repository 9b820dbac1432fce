package dev.danmakuledger.server.http;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.roomlog.AuditBundles;
import dev.danmakuledger.server.roomlog.RoomLogReads;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.util.function.BiConsumer;

/**
 * The room log endpoints (docs/room-log.md, "Serving" and "Audit bundle"; C2SP tlog-tiles): the
 * checkpoint, hash tiles and entry bundles under {@code /v1/rooms/{room}/log/}, the audit bundle of
 * one message, and the server's public keys. Full tiles never change and are cached for a year; the
 * checkpoint and partial tiles change and are not.
 */
final class RoomLogRoutes {
  static final String CHECKPOINT_TYPE = "text/plain; charset=utf-8";
  static final String TILE_TYPE = "application/octet-stream";
  static final String IMMUTABLE = "public, max-age=31536000, immutable";
  static final String SHORT = "public, max-age=1";
  static final String NO_CACHE = "no-cache";

  /** The server's public keys, {@code GET /v1/server/keys}. */
  record ServerKeys(String logVerifierKey, String cosignerVerifierKey) {}

  private final RoomLogReads reads;
  private final AuditBundles bundles;
  private final ServerKeys keys;
  private final AdminToken adminToken;

  RoomLogRoutes(RoomLogReads reads, AuditBundles bundles, ServerKeys keys, AdminToken adminToken) {
    this.reads = reads;
    this.bundles = bundles;
    this.keys = keys;
    this.adminToken = adminToken;
  }

  /**
   * @param get registers a handler for GET (and HEAD) of a path
   */
  void register(BiConsumer<String, Handler> get, BiConsumer<Context, Object> sendJson) {
    get.accept("/v1/server/keys", ctx -> sendJson.accept(ctx, keys));
    get.accept(
        "/v1/rooms/{room}/log/checkpoint",
        ctx -> {
          String note = reads.checkpoint(Requests.room(ctx));
          ctx.header("Cache-Control", NO_CACHE).contentType(CHECKPOINT_TYPE).result(note);
        });
    get.accept("/v1/rooms/{room}/log/<path>", this::tile);
    get.accept(
        "/v1/rooms/{room}/messages/{seq}/bundle",
        ctx ->
            sendJson.accept(
                ctx,
                bundles.bundle(
                    Requests.room(ctx),
                    positiveSeq(Requests.pathLong(ctx, "seq")),
                    adminToken.presentedBy(ctx))));
  }

  private void tile(Context ctx) {
    String room = Requests.room(ctx);
    String path = ctx.pathParam("path");
    String canonical = "/v1/rooms/" + room + "/log/" + path;
    if (!canonical.equals(ctx.req().getRequestURI())) {
      // C2SP tlog-tiles names each tile by exactly one path; any other spelling (a trailing
      // slash, percent-encoded characters) names no resource
      throw new LedgerException(
          ErrorCode.NOT_FOUND,
          "room log has no "
              + abbreviate(ctx.req().getRequestURI())
              + "; tile paths are served only in their canonical form, e.g. "
              + "/v1/rooms/"
              + room
              + "/log/tile/0/000.p/4 (C2SP tlog-tiles)");
    }
    if (!path.startsWith("tile/")) {
      throw new LedgerException(
          ErrorCode.NOT_FOUND,
          "room log has no "
              + abbreviate(path)
              + "; it serves checkpoint, tile/... and"
              + " tile/entries/...");
    }
    RoomLogReads.Served t = reads.tile(room, path);
    ctx.header("Cache-Control", t.full() ? IMMUTABLE : SHORT)
        .contentType(TILE_TYPE)
        .result(t.data());
  }

  private static long positiveSeq(long seq) {
    if (seq < 1) {
      throw new LedgerException(ErrorCode.INVALID_FIELD, "seq: got " + seq + ", want >= 1");
    }
    return seq;
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "...";
  }
}
