/** The devices table: verification status, sizes, checkpoint times, clock skew per device. */
package dev.danmakuledger.ui.devices;
