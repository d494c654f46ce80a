//! NewReno's window rules: RFC 5681 slow start and congestion avoidance, with
//! ssthresh = max(FlightSize/2, 2) on loss. Loss recovery is the host's: RFC 6582
//! NewReno, or RFC 6675 when SACK is negotiated (as FreeBSD's `newreno` module
//! and Linux's `reno` do). Growth counts acknowledged segments as Linux
//! `tcp_reno_cong_avoid` does (RFC 3465 byte counting without the L limit).

use super::{
    no_params, reno_cong_avoid, reno_ssthresh, CcInfo, CcParams, CcState, CongestionControl,
};

/// NewReno.
pub struct NewReno;

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    // Agent/TCP/Newreno and Sack1: opencwnd, windowOption_ 1.
    fn ns2_opencwnd(&self) -> bool {
        true
    }
    // Their cwnd_ is Agent/TCP's double: + 1/cwnd_ per ACK, limited slow
    // start added to it (tcp.cc opencwnd, limited_slow_start; neither
    // tcp-newreno.cc nor tcp-sack1.cc overrides opencwnd).
    fn ns2_fractional_cwnd(&self) -> bool {
        true
    }
    fn ssthresh(&mut self, tp: &CcState) -> u32 {
        reno_ssthresh(tp)
    }
    fn cong_avoid(&mut self, tp: &mut CcState, acked: u32) {
        reno_cong_avoid(tp, acked)
    }
}

fn make(p: &CcParams) -> Result<Box<dyn CongestionControl>, String> {
    no_params("newreno", p)?;
    Ok(Box::new(NewReno))
}

/// Registry entry.
pub const INFO: CcInfo = CcInfo {
    name: "newreno",
    description: "AIMD (RFC 5681) with the host's recovery: NewReno (RFC 6582) or SACK (RFC 6675)",
    source: "RFC 5681, RFC 6582, RFC 6675; Linux tcp_cong.c tcp_reno_*; FreeBSD cc_newreno.c",
    params: &[],
    make,
};
