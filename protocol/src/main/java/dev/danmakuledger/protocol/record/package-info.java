/** The danmaku record, its validation and its canonical bytes (docs/canonical-record.md). */
package dev.danmakuledger.protocol.record;
