//! NewReno fast recovery without SACK (RFC 6582), with the variants the
//! profiles need (ns-2 2.28's `partial_window_deflation_` and one-way agents,
//! Linux 2.2's kept inflation): the window at entry, after a partial ACK,
//! and when the retransmission timer restarts. The sender keeps the state
//! (`recovery_base`, the partial ACK count) and does the retransmitting.

use crate::profile::NewRenoRto;

/// RFC 6582 (1): the window a recovery returns to (`base`: ssthresh, or for
/// an ns-2 one-way agent min(ssthresh, cwnd), WestwoodNR's dupack_action)
/// and cwnd at entry, inflated by the `dupthresh` duplicates.
pub fn entry(ssthresh: u32, cwnd: u32, dupthresh: u32, ns2_agent: bool) -> (u32, u32) {
    let base = if ns2_agent {
        ssthresh.min(cwnd)
    } else {
        ssthresh
    };
    (base, base + dupthresh)
}

/// How a partial ACK changes the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partial {
    /// RFC 6582 (5): deflate by what it acknowledges, add one segment.
    Deflate,
    /// ns-2 `partial_window_deflation_` 0: back to the window set at entry.
    Base,
    /// Linux 2.2: keep the inflated window.
    Keep,
}

/// cwnd after a partial ACK of `acked` segments.
pub fn partial_ack_cwnd(cwnd: u32, acked: u32, base: u32, rule: Partial) -> u32 {
    match rule {
        Partial::Deflate => (cwnd.saturating_sub(acked) + u32::from(acked >= 1)).max(1),
        Partial::Base => base.max(1),
        Partial::Keep => cwnd,
    }
}

/// RFC 6582 section 4: whether the `n`th partial ACK (from 1) restarts the
/// retransmission timer: Impatient on the first only, Slow-but-Steady on each.
pub fn restarts_timer(n: u32, variant: NewRenoRto) -> bool {
    n == 1 || variant == NewRenoRto::SlowButSteady
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6582_windows_at_entry_and_after_partial_acks() {
        // cwnd 20 at the loss, ssthresh 10: entry at 10 + 3 = 13, inflated by
        // the duplicates to, say, 25; a partial ACK of 4 segments deflates to
        // 25 - 4 + 1 = 22 (RFC 6582 (5)), or back to 10 (ns-2), or stays 25.
        assert_eq!(entry(10, 20, 3, false), (10, 13));
        // An ns-2 agent whose window is already below ssthresh keeps it.
        assert_eq!(entry(10, 6, 3, true), (6, 9));
        assert_eq!(partial_ack_cwnd(25, 4, 10, Partial::Deflate), 22);
        assert_eq!(partial_ack_cwnd(25, 0, 10, Partial::Deflate), 25);
        assert_eq!(partial_ack_cwnd(25, 4, 10, Partial::Base), 10);
        assert_eq!(partial_ack_cwnd(25, 4, 10, Partial::Keep), 25);
        assert_eq!(partial_ack_cwnd(2, 5, 10, Partial::Deflate), 1);
    }

    #[test]
    fn impatient_restarts_the_timer_once_slow_but_steady_always() {
        let i: Vec<bool> = (1..=3)
            .map(|n| restarts_timer(n, NewRenoRto::Impatient))
            .collect();
        let s: Vec<bool> = (1..=3)
            .map(|n| restarts_timer(n, NewRenoRto::SlowButSteady))
            .collect();
        assert_eq!(i, vec![true, false, false]);
        assert_eq!(s, vec![true, true, true]);
    }
}
