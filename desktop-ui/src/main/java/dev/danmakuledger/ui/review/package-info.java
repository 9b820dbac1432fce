/** The review queue: approve or reject held messages by compare-and-set. */
package dev.danmakuledger.ui.review;
