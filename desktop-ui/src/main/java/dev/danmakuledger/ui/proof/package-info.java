/** Local verification of inclusion proofs against device-signed checkpoints. */
package dev.danmakuledger.ui.proof;
