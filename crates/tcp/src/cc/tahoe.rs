//! Tahoe (Jacobson 1988, 4.3BSD-Tahoe): slow start, congestion avoidance and
//! fast retransmit, no fast recovery. On the third duplicate ACK the sender
//! retransmits the missing segment, sets ssthresh to half the flight and the
//! window to one segment, and slow-starts again; `snd_nxt` keeps its value, as
//! in 4.3BSD-Tahoe `tcp_input.c` (`onxt`).

use super::{
    no_params, reno_cong_avoid, reno_ssthresh, CcInfo, CcParams, CcState, CongestionControl,
};
use crate::profile::Recovery;

/// Tahoe.
pub struct Tahoe;

impl CongestionControl for Tahoe {
    fn name(&self) -> &'static str {
        "tahoe"
    }
    // Agent/TCP: opencwnd, windowOption_ 1.
    fn ns2_opencwnd(&self) -> bool {
        true
    }
    // Agent/TCP's cwnd_ is a double: + 1/cwnd_ per ACK (tcp.cc opencwnd).
    fn ns2_fractional_cwnd(&self) -> bool {
        true
    }
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }
    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        reno_cong_avoid(tp, acked)
    }
    fn recovery(&self) -> Option<Recovery> {
        Some(Recovery::Tahoe)
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    no_params("tahoe", p)?;
    Ok(Box::new(Tahoe))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "tahoe",
    description:
        "Tahoe: slow start, congestion avoidance, fast retransmit, then slow start from 1 segment",
    source: "Jacobson, Congestion Avoidance and Control, SIGCOMM 1988; 4.3BSD-Tahoe tcp_input.c",
    params: &[],
    make,
};
