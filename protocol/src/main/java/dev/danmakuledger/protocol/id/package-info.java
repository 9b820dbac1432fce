/** 64-bit Snowflake-style message ids (docs/architecture.md §5). */
package dev.danmakuledger.protocol.id;
