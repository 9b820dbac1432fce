/** Redis Lua scripts for atomic dedupe and per-room sequencing, and their runner. */
package dev.danmakuledger.lua;
