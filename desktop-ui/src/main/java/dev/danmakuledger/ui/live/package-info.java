/**
 * What keeps the console current: background execution with results on the FX thread, the
 * connection banner, refresh coalescing and the live-update loop (polling plus the SSE feed).
 */
package dev.danmakuledger.ui.live;
