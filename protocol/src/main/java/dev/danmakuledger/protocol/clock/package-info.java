/** Hybrid logical clocks (Kulkarni et al. 2014) for capture timestamps. */
package dev.danmakuledger.protocol.clock;
