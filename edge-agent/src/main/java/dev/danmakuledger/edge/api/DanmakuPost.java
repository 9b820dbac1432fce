package dev.danmakuledger.edge.api;

/**
 * The JSON body of {@code POST /v1/danmaku}. The key may come in the body or in the {@code
 * Idempotency-Key} header; mode, color and fontSize default to Bilibili's 1, 0xFFFFFF and 25.
 */
record DanmakuPost(
    String idempotencyKey,
    String room,
    String user,
    String text,
    Long playbackMs,
    Integer mode,
    Integer color,
    Integer fontSize) {}
