/** The data directory layout and the agent's settings file {@code agent.properties}. */
package dev.danmakuledger.edge.config;
