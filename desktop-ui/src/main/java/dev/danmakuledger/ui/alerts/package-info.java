/** Alerts: forks, tamper evidence, bad signatures and outages. */
package dev.danmakuledger.ui.alerts;
