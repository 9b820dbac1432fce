/**
 * The console's own audit of every room log (docs/room-log.md, docs/console.md "Rooms"): it
 * verifies each published checkpoint against the server's log key, recomputes its root from the
 * tiles, and proves each new checkpoint consistent with the last one it verified, raising a kept
 * SPLIT VIEW alert when one is not.
 */
package dev.danmakuledger.ui.roomlog;
