/**
 * Test fixtures shared by the modules' tests, so each exists once: {@link
 * dev.danmakuledger.testkit.TestDevice} (a device that signs its RFC 6962 log with C2SP checkpoints
 * as an agent does, without SQLite), and {@link dev.danmakuledger.testkit.BilibiliSample} (the
 * bundled Bilibili file, read with the importer's own parser). A test-scope dependency only; it
 * brings the one settable clock, {@code dev.danmakuledger.protocol.testing.MutableClock} from
 * protocol's test-jar, with it.
 */
package dev.danmakuledger.testkit;
