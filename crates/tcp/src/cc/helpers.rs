//! Window arithmetic shared by controllers, as in Linux net/ipv4/tcp_cong.c.

use super::CcState;

/// RFC 3742's K above max_ssthresh: int(cwnd / (0.5 max_ssthresh)), at
/// least 1; slow start adds one segment per K acknowledged.
pub fn rfc3742_k(cwnd: u32, max_ssthresh: u32) -> u32 {
    (cwnd / (max_ssthresh / 2).max(1)).max(1)
}

/// Slow start (Linux `tcp_slow_start`): grow by the segments acknowledged, up to
/// ssthresh; returns the acknowledged segments left over for congestion avoidance.
///
/// Above `tp.max_ssthresh` (when non-zero) this is RFC 3742 limited slow start:
/// each acknowledged segment adds 1/K segment, K = floor(cwnd / (max_ssthresh/2)),
/// so the window grows by at most max_ssthresh/2 segments per RTT.
///
/// With `tp.ss_ack_limit` = L > 0, one ACK adds at most L segments (RFC 5681
/// §3.1 with L = 1, RFC 3465 ABC with L = 2) and what it acknowledged beyond L
/// is not carried over to congestion avoidance.
pub fn slow_start(tp: &mut CcState, acked: u32) -> u32 {
    let acked = if tp.ss_ack_limit > 0 {
        acked.min(tp.ss_ack_limit)
    } else {
        acked
    };
    if tp.max_ssthresh > 0 && tp.cwnd > tp.max_ssthresh {
        let mut left = acked;
        while left > 0 && tp.cwnd < tp.ssthresh {
            left -= 1;
            let k = rfc3742_k(tp.cwnd, tp.max_ssthresh);
            tp.cwnd_cnt += 1;
            if tp.cwnd_cnt >= k {
                tp.cwnd_cnt = 0;
                tp.cwnd = (tp.cwnd + 1).min(tp.cwnd_clamp);
            }
        }
        return left;
    }
    let cwnd = tp.cwnd.saturating_add(acked).min(tp.ssthresh);
    let left = acked - (cwnd - tp.cwnd);
    tp.cwnd = cwnd.min(tp.cwnd_clamp);
    left
}

/// The prologue every Linux `cong_avoid` shares: nothing when cwnd is not the
/// limit (`tcp_is_cwnd_limited`), slow start below ssthresh; returns the
/// acknowledged segments left for congestion avoidance, `None` when none are.
/// An ACK in congestion avoidance counts at most `tp.ca_ack_limit` segments
/// when that is set (FreeBSD's ABC credit, `cc_ack_received`).
pub fn ca_acked(tp: &mut CcState, acked: u32) -> Option<u32> {
    if !tp.is_cwnd_limited {
        return None;
    }
    let acked = if tp.in_slow_start() {
        slow_start(tp, acked)
    } else if tp.ca_ack_limit > 0 {
        acked.min(tp.ca_ack_limit)
    } else {
        acked
    };
    (acked > 0).then_some(acked)
}

/// Additive increase of one segment per `w` segments acknowledged
/// (Linux `tcp_cong_avoid_ai`).
pub fn cong_avoid_ai(tp: &mut CcState, w: u32, acked: u32) {
    let w = w.max(1);
    // If credits accumulated at a higher w, apply them gently now.
    if tp.cwnd_cnt >= w {
        tp.cwnd_cnt = 0;
        tp.cwnd += 1;
    }
    tp.cwnd_cnt += acked;
    if tp.cwnd_cnt >= w {
        let delta = tp.cwnd_cnt / w;
        tp.cwnd_cnt -= delta * w;
        tp.cwnd += delta;
    }
    tp.cwnd = tp.cwnd.min(tp.cwnd_clamp);
}

/// ns-2's limited slow start in congestion avoidance (tcp.cc `opencwnd` with
/// `limited_slow_start`, ns-2 2.28): one new ACK adds 1/round segment,
/// round = int(cwnd / (max_ssthresh/2)), here as one segment per `round` ACKs
/// (ns-2's float cwnd reaches the same integers when max_ssthresh is even).
/// Returns false, changing nothing, when round is 0 (cwnd below
/// max_ssthresh/2), where ns-2 2.28 divides by zero and ns-2 2.35 falls back to
/// the ordinary increase.
pub fn ns2_limited_slow_start(tp: &mut CcState, max_ssthresh: u32) -> bool {
    // int(cwnd / (max_ssthresh / 2.0)) = floor(2 cwnd / max_ssthresh).
    let round = (2 * tp.cwnd as u64 / max_ssthresh.max(1) as u64) as u32;
    if round == 0 {
        return false;
    }
    tp.cwnd_cnt += 1;
    if tp.cwnd_cnt >= round {
        tp.cwnd_cnt = 0;
        tp.cwnd = (tp.cwnd + 1).min(tp.cwnd_clamp);
    }
    true
}

/// ns-2 2.35's `limited_slow_start(cwnd, max_ssthresh, increment)` (tcp.cc)
/// on the double `cwnd_`: the increment of one new ACK in congestion
/// avoidance, raised to 1/round, round = int(cwnd / (max_ssthresh / 2.0)),
/// when round > 0 and that is larger (2.28 divided by a round of 0).
pub fn ns2_lss_increment(cwnd: f64, max_ssthresh: u32, increment: f64) -> f64 {
    if max_ssthresh == 0 {
        return increment;
    }
    let round = (cwnd / (max_ssthresh as f64 / 2.0)) as u32;
    if round == 0 {
        return increment;
    }
    let increment1 = 1.0 / round as f64;
    if increment < increment1 {
        increment1
    } else {
        increment
    }
}

/// RFC 5681 (4): ssthresh = max(FlightSize / 2, 2 segments).
pub fn reno_ssthresh(tp: &CcState) -> u32 {
    (tp.in_flight / 2).max(2)
}

/// Linux `tcp_reno_cong_avoid`: slow start below ssthresh, then one segment per
/// window of acknowledged segments; nothing when not limited by cwnd.
pub fn reno_cong_avoid(tp: &mut CcState, acked: u32) {
    let Some(acked) = ca_acked(tp, acked) else {
        return;
    };
    let w = tp.cwnd;
    cong_avoid_ai(tp, w, acked);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_the_rest() {
        let mut tp = CcState::new(10, 1448);
        tp.ssthresh = 12;
        assert_eq!(slow_start(&mut tp, 5), 3);
        assert_eq!(tp.cwnd, 12);
    }

    #[test]
    fn abc_credits_at_most_l_segments_per_ack_in_congestion_avoidance() {
        // FreeBSD cc_ack_received with abc_l_var 2, cwnd 10 above ssthresh:
        // five stretch ACKs of 6 segments credit 5 x 2 = 10 segments, one
        // window: +1 segment. Without the limit they credit 30: 6, 12 -> 11
        // (2 left), 8, 14 -> 12 (3 left), 9.
        let mut tp = CcState::new(10, 1448);
        tp.ssthresh = 5;
        tp.ca_ack_limit = 2;
        for _ in 0..5 {
            reno_cong_avoid(&mut tp, 6);
        }
        assert_eq!((tp.cwnd, tp.cwnd_cnt), (11, 0));
        let mut free = CcState::new(10, 1448);
        free.ssthresh = 5;
        for _ in 0..5 {
            reno_cong_avoid(&mut free, 6);
        }
        assert_eq!((free.cwnd, free.cwnd_cnt), (12, 9));
    }

    #[test]
    fn additive_increase_is_one_segment_per_window() {
        // cwnd 10: 10 segments acked one at a time -> 11; then 11 more -> 12.
        let mut tp = CcState::new(10, 1448);
        tp.ssthresh = 5;
        for _ in 0..10 {
            reno_cong_avoid(&mut tp, 1);
        }
        assert_eq!((tp.cwnd, tp.cwnd_cnt), (11, 0));
        for _ in 0..10 {
            reno_cong_avoid(&mut tp, 1);
        }
        assert_eq!(tp.cwnd, 11);
        reno_cong_avoid(&mut tp, 1);
        assert_eq!(tp.cwnd, 12);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut tp = CcState::new(10, 1448);
        tp.is_cwnd_limited = false;
        reno_cong_avoid(&mut tp, 5);
        assert_eq!(tp.cwnd, 10);
    }

    #[test]
    fn limited_slow_start_adds_half_max_ssthresh_per_rtt() {
        // RFC 3742 with max_ssthresh = 100: at cwnd 200, K = floor(200/50) = 4, and K
        // stays 4 up to cwnd 249 (249/50 = 4.98); one segment per 4 acknowledged. A
        // round of 200 ACKs (one per segment) adds 200/4 = 50: cwnd 250, i.e.
        // max_ssthresh/2 per RTT, where standard slow start would have doubled it.
        let mut tp = CcState::new(200, 1448);
        tp.max_ssthresh = 100;
        for _ in 0..200 {
            slow_start(&mut tp, 1);
        }
        assert_eq!(tp.cwnd, 250);
        // Below max_ssthresh it is ordinary slow start: +1 per segment.
        let mut tp = CcState::new(50, 1448);
        tp.max_ssthresh = 100;
        slow_start(&mut tp, 10);
        assert_eq!(tp.cwnd, 60);
    }

    #[test]
    fn ns2_limited_slow_start_adds_one_over_int_cwnd_over_half_max_ssthresh() {
        // ns-2 2.28 limited_slow_start(cwnd, 100, 1/cwnd): round = int(cwnd/50).
        // cwnd 120: round 2, +1/2 per ACK: 2 ACKs -> 121. cwnd 49: round 0,
        // where ns-2 2.28 would add 1/0; here nothing, and false.
        let mut tp = CcState::new(120, 1448);
        assert!(ns2_limited_slow_start(&mut tp, 100));
        assert_eq!((tp.cwnd, tp.cwnd_cnt), (120, 1));
        assert!(ns2_limited_slow_start(&mut tp, 100));
        assert_eq!((tp.cwnd, tp.cwnd_cnt), (121, 0));
        let mut tp = CcState::new(49, 1448);
        assert!(!ns2_limited_slow_start(&mut tp, 100));
        assert_eq!((tp.cwnd, tp.cwnd_cnt), (49, 0));
    }

    #[test]
    fn ns2_lss_increment_is_limited_slow_starts_on_the_double_cwnd() {
        // limited_slow_start(cwnd, 100, 1/cwnd): round = int(cwnd/50.0).
        // 120.5: round 2, 1/2 > 1/120.5. 49.9: round 0, the increment as is.
        // 150: round 3, 1/3. An increment above 1/round (HSTCP's a(w)/w at
        // a huge window) stays. max_ssthresh 0: no limit.
        assert_eq!(ns2_lss_increment(120.5, 100, 1.0 / 120.5), 0.5);
        assert_eq!(ns2_lss_increment(49.9, 100, 1.0 / 49.9), 1.0 / 49.9);
        assert_eq!(ns2_lss_increment(150.0, 100, 1.0 / 150.0), 1.0 / 3.0);
        assert_eq!(ns2_lss_increment(150.0, 100, 0.5), 0.5);
        assert_eq!(ns2_lss_increment(150.0, 0, 1.0 / 150.0), 1.0 / 150.0);
    }

    #[test]
    fn ssthresh_is_half_the_flight_but_at_least_two() {
        let mut tp = CcState::new(10, 1448);
        tp.in_flight = 31;
        assert_eq!(reno_ssthresh(&tp), 15);
        tp.in_flight = 3;
        assert_eq!(reno_ssthresh(&tp), 2);
    }
}
