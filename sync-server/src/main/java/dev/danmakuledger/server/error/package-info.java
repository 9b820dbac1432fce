/** Domain errors of the sync server, each with a stable problem+json code. */
package dev.danmakuledger.server.error;
