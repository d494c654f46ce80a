//! Reno (4.3BSD-Reno, RFC 5681 fast retransmit and fast recovery): the window
//! rules of NewReno, but fast recovery ends at the first ACK of new data, so a
//! second loss in the window needs three more duplicate ACKs (and halves the
//! window again) or a timeout. SACK information is ignored.

use super::{
    no_params, reno_cong_avoid, reno_ssthresh, CcInfo, CcParams, CcState, CongestionControl,
};
use crate::profile::Recovery;

/// Reno.
pub struct Reno;

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }
    // Agent/TCP/Reno: opencwnd, windowOption_ 1.
    fn ns2_opencwnd(&self) -> bool {
        true
    }
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }
    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        reno_cong_avoid(tp, acked)
    }
    fn recovery(&self) -> Option<Recovery> {
        Some(Recovery::Reno)
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    no_params("reno", p)?;
    Ok(Box::new(Reno))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "reno",
    description:
        "Reno: AIMD with fast recovery that ends at the first new ACK (no partial-ACK handling)",
    source: "RFC 5681 section 3.2; Jacobson 1990 (4.3BSD-Reno)",
    params: &[],
    make,
};
