/** 64-bit Snowflake-style message ids (ARCHITECTURE §5). */
package dev.danmakuledger.protocol.id;
