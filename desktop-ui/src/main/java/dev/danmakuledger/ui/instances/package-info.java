/** The instances view: every sync-server instance of the cluster, by heartbeat. */
package dev.danmakuledger.ui.instances;
