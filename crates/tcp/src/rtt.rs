//! Round-trip time estimation and the retransmission timeout, RFC 6298:
//! SRTT/RTTVAR with alpha 1/8 and beta 1/4, RTO = SRTT + max(G, 4 RTTVAR)
//! bounded by a minimum and a maximum, exponential backoff on expiry. Karn's
//! rule (no samples from retransmitted segments without timestamps) is applied
//! by the caller, which alone knows how a sample was obtained.

use tcplab_engine::SimTime;

/// RTT estimator and RTO of one sender.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<SimTime>,
    rttvar: SimTime,
    rto: SimTime,
    backoff: u32,
    min_rto: SimTime,
    max_rto: SimTime,
    granularity: SimTime,
    min_rtt: Option<SimTime>,
    latest: Option<SimTime>,
    var_floor: SimTime,
    slop: SimTime,
}

impl RttEstimator {
    /// Before any sample: RTO = `initial` (RFC 6298 (2.1): 1 s).
    pub fn new(initial: SimTime, min_rto: SimTime, max_rto: SimTime, granularity: SimTime) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: SimTime::ZERO,
            rto: initial.min(max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            granularity,
            min_rtt: None,
            latest: None,
            var_floor: SimTime::ZERO,
            slop: SimTime::ZERO,
        }
    }
    /// Linux's variant: the variance term is at least `floor` (tcp_rtt_estimator
    /// keeps mdev_max >= tcp_rto_min), so RTO = SRTT + max(4 RTTVAR, floor).
    pub fn with_var_floor(mut self, floor: SimTime) -> Self {
        self.var_floor = floor;
        self
    }
    /// FreeBSD's variant: `slop` added to every RTO (TCPT_RANGESET adds
    /// tcp_rexmit_slop, 200 ms by default) before the minimum applies.
    pub fn with_slop(mut self, slop: SimTime) -> Self {
        self.slop = slop;
        self
    }
    /// Take one RTT measurement R (RFC 6298 (2.2) and (2.3)); clears the backoff.
    pub fn sample(&mut self, r: SimTime) {
        match self.srtt {
            None => {
                // (2.2) SRTT <- R, RTTVAR <- R/2
                self.srtt = Some(r);
                self.rttvar = SimTime(r.0 / 2);
            }
            Some(srtt) => {
                // (2.3) RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'| ; SRTT <- 7/8 SRTT + 1/8 R'
                let diff = srtt.0.abs_diff(r.0);
                self.rttvar = SimTime((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(SimTime((7 * srtt.0 + r.0) / 8));
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.latest = Some(r);
        self.backoff = 0;
        self.rto = self.base_rto();
    }
    fn base_rto(&self) -> SimTime {
        let srtt = self.srtt.unwrap_or(SimTime::ZERO);
        // RTO <- SRTT + max(G, K*RTTVAR), K = 4, then (2.4) at least min, (2.5) at most max.
        let var = self
            .granularity
            .max(SimTime(4 * self.rttvar.0))
            .max(self.var_floor);
        (srtt + var + self.slop).max(self.min_rto).min(self.max_rto)
    }
    /// (5.5) The timer expired: double the RTO, up to the maximum.
    pub fn back_off(&mut self) {
        self.backoff += 1;
        self.rto = SimTime(self.rto.0.saturating_mul(2)).min(self.max_rto);
    }
    /// RFC 6298 (5.7): after a SYN timed out, the RTO for data starts at 3 s if no sample came.
    pub fn reset_after_syn_timeout(&mut self) {
        if self.srtt.is_none() {
            self.rto = SimTime::from_secs(3).max(self.min_rto).min(self.max_rto);
            self.backoff = 0;
        }
    }
    /// The current RTO (backoff included).
    pub fn rto(&self) -> SimTime {
        self.rto
    }
    /// Smoothed RTT, if any sample was taken.
    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt
    }
    /// RTT variation.
    pub fn rttvar(&self) -> SimTime {
        self.rttvar
    }
    /// Smallest sample so far.
    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }
    /// Latest sample.
    pub fn latest(&self) -> Option<SimTime> {
        self.latest
    }
    /// Number of consecutive backoffs.
    pub fn backoffs(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }
    fn est() -> RttEstimator {
        RttEstimator::new(ms(1000), ms(1000), ms(60_000), ms(1))
    }

    #[test]
    fn initial_rto_is_one_second() {
        assert_eq!(est().rto(), ms(1000));
    }

    #[test]
    fn first_and_second_samples_follow_rfc6298() {
        let mut e = RttEstimator::new(ms(1000), ms(200), ms(60_000), ms(1));
        // R = 100 ms: SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
        e.sample(ms(100));
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), ms(50));
        assert_eq!(e.rto(), ms(300));
        // R' = 200 ms: RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5;
        // RTO = 112.5 + 250 = 362.5 ms.
        e.sample(ms(200));
        assert_eq!(e.rttvar(), SimTime(62_500_000));
        assert_eq!(e.srtt(), Some(SimTime(112_500_000)));
        assert_eq!(e.rto(), SimTime(362_500_000));
    }

    #[test]
    fn rto_is_floored_at_the_minimum_and_granularity_counts() {
        let mut e = est();
        e.sample(ms(10)); // 10 + 4*5 = 30 ms < 1 s minimum
        assert_eq!(e.rto(), ms(1000));
        let mut e = RttEstimator::new(ms(1000), SimTime::ZERO, ms(60_000), ms(100));
        e.sample(ms(8)); // RTTVAR 4 ms: 4*4 = 16 < G = 100 -> RTO = 8 + 100
        assert_eq!(e.rto(), ms(108));
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_and_a_sample_clears_it() {
        let mut e = est();
        let seq: Vec<u64> = (0..8)
            .map(|_| {
                e.back_off();
                e.rto().0 / 1_000_000
            })
            .collect();
        assert_eq!(
            seq,
            vec![2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]
        );
        assert_eq!(e.backoffs(), 8);
        e.sample(ms(100));
        assert_eq!(e.backoffs(), 0);
        assert_eq!(e.rto(), ms(1000));
    }

    #[test]
    fn linux_floors_the_variance_term_at_the_minimum_rto() {
        // RTO = SRTT + max(4 RTTVAR, 200 ms). R = 100 ms: 100 + max(200, 200) = 300 ms.
        // Twenty more samples of 100 ms: RTTVAR -> 50 * (3/4)^20 = 0.16 ms, so
        // RTO = 100 + 200 = 300 ms (RFC 6298 would give max(200, 100.6) = 200 ms).
        let mut e =
            RttEstimator::new(ms(1000), ms(200), ms(120_000), ms(1)).with_var_floor(ms(200));
        e.sample(ms(100));
        assert_eq!(e.rto(), ms(300));
        for _ in 0..20 {
            e.sample(ms(100));
        }
        assert_eq!(e.rto(), ms(300));
    }

    #[test]
    fn freebsd_adds_the_retransmit_slop() {
        // RTO = SRTT + 4 RTTVAR + 200 ms slop, at least 30 ms. R = 100 ms:
        // 100 + 200 + 200 = 500 ms; after a steady 100 ms: 100 + ~0 + 200 = 300 ms
        // (the 1 ms granularity G stands in for a zero variance: 301 ms).
        let mut e = RttEstimator::new(ms(1000), ms(30), ms(64_000), ms(1)).with_slop(ms(200));
        e.sample(ms(100));
        assert_eq!(e.rto(), ms(500));
        for _ in 0..40 {
            e.sample(ms(100));
        }
        assert_eq!(e.rto(), ms(301));
    }

    #[test]
    fn syn_timeout_sets_three_seconds_until_a_sample() {
        let mut e = est();
        e.back_off();
        e.reset_after_syn_timeout();
        assert_eq!(e.rto(), ms(3000));
    }
}
