//! RED, Random Early Detection (Floyd & Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1(4), 1993), as the paper's
//! pseudocode (its figure 2) states it:
//!
//! - on each arrival, avg <- (1 - w_q) avg + w_q q; after an idle period,
//!   avg <- (1 - w_q)^m avg with m = idle time / typical transmission time;
//! - below min_th nothing is dropped (count = -1); between min_th and max_th,
//!   p_b = max_p (avg - min_th) / (max_th - min_th) and the arrival is dropped with
//!   p_a = p_b / (1 - count p_b), so drops are spaced uniformly (count counts the
//!   arrivals since the last drop); above max_th every arrival is dropped, or, in
//!   gentle mode (Floyd 2000), p_b rises linearly from max_p to 1 between max_th
//!   and 2 max_th;
//! - the hard limit drops arrivals when the queue is full.
//!
//! ECN (`ecn = true`; RFC 3168 section 5, Floyd's "TCP and Explicit Congestion
//! Notification", 1994): an arrival that RED selects for an early, probabilistic
//! drop (between min_th and max_th, and in gentle mode between max_th and
//! 2 max_th) is marked CE and queued instead if it is ECN-capable. This follows
//! ns-2's queue/red.cc, whose gentle mode this file already follows: only
//! `drop_early` marks (`setbit` and `hf->ect()`); the "forced" drops (average
//! above max_th, or above 2 max_th in gentle mode) and drops because the queue is
//! full stay drops. Linux net/sched/sch_red.c differs in the forced region: with
//! `ecn` it marks there too (`RED_HARD_MARK`) unless `harddrop` is also set, so
//! this queue is Linux's `ecn harddrop`; Linux RED has no gentle mode.
//!
//! Deviations: the average is in packets (ns-2's default).

use super::fifo::Fifo;
use super::{QPkt, Qdisc, QueueLimit};
use tcplab_engine::{RngStream, SimTime};

/// RED parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    /// Lower threshold of the average queue, packets.
    pub min_th: f64,
    /// Upper threshold, packets.
    pub max_th: f64,
    /// Drop probability at max_th.
    pub max_p: f64,
    /// EWMA weight of the average.
    pub w_q: f64,
    /// Gentle mode above max_th.
    pub gentle: bool,
    /// Typical transmission time of a packet (idle-time decay), nanoseconds.
    pub tx_time_ns: f64,
    /// Mark ECN-capable arrivals CE instead of dropping them early.
    pub ecn: bool,
}

/// A RED queue.
pub struct Red {
    pub(crate) q: Fifo,
    p: RedParams,
    pub(crate) avg: f64,
    pub(crate) count: i64,
    idle_since: Option<SimTime>,
    rng: RngStream,
}

impl Red {
    /// A RED queue with hard limit `limit`.
    pub fn new(limit: QueueLimit, p: RedParams, rng: RngStream) -> Self {
        Red {
            q: Fifo::new(limit),
            p,
            avg: 0.0,
            count: -1,
            idle_since: Some(SimTime::ZERO),
            rng,
        }
    }
    /// The average queue, packets.
    pub fn average(&self) -> f64 {
        self.avg
    }
    /// p_b for an average queue (before the count correction).
    pub fn p_b(&self, avg: f64) -> f64 {
        let RedParams {
            min_th,
            max_th,
            max_p,
            gentle,
            ..
        } = self.p;
        if avg < min_th {
            0.0
        } else if avg < max_th {
            max_p * (avg - min_th) / (max_th - min_th)
        } else if gentle && avg < 2.0 * max_th {
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            1.0
        }
    }
    /// p_a = p_b / (1 - count p_b), at most 1.
    pub fn p_a(&self, p_b: f64, count: i64) -> f64 {
        let d = 1.0 - count as f64 * p_b;
        if d <= 0.0 {
            1.0
        } else {
            (p_b / d).min(1.0)
        }
    }
    fn update_avg(&mut self, now: SimTime) {
        let w = self.p.w_q;
        // An arrival at an empty queue decays the average for the idle time; the
        // queue stops being idle only if the arrival is admitted (see enqueue).
        match self.idle_since.take() {
            Some(since) if self.q.is_empty() => {
                let m = (now.0 - since.0) as f64 / self.p.tx_time_ns.max(1.0);
                self.avg *= (1.0 - w).powf(m);
            }
            _ => self.avg = (1.0 - w) * self.avg + w * self.q.len() as f64,
        }
    }
}

impl Qdisc for Red {
    fn enqueue(&mut self, mut p: QPkt, now: SimTime) -> Option<QPkt> {
        self.update_avg(now);
        let pb = self.p_b(self.avg);
        // A forced drop (p_b = 1) or an early one (with probability p_a).
        let (drop, early) = if pb >= 1.0 {
            self.count = 0;
            (true, false)
        } else if pb > 0.0 {
            self.count += 1;
            let pa = self.p_a(pb, self.count);
            if self.rng.uniform() < pa {
                self.count = 0;
                (true, true)
            } else {
                (false, false)
            }
        } else {
            self.count = -1;
            (false, false)
        };
        let full = !self.q.fits(p.size);
        // ns-2 red.cc drop_early: an early drop of an ECN-capable packet becomes
        // a CE mark; the count restarts either way.
        let drop = drop && !(early && !full && self.p.ecn && p.mark_ce());
        if drop || full {
            if self.q.is_empty() {
                // Still idle: the decay is accounted up to now (the paper's q_time
                // stands while the queue stays empty; counting from now avoids
                // decaying the same interval twice).
                self.idle_since = Some(now);
            }
            return Some(p);
        }
        self.q.push(p, now);
        None
    }
    fn dequeue(&mut self, now: SimTime, _drop: &mut dyn FnMut(QPkt)) -> Option<QPkt> {
        let (p, _) = self.q.pop()?;
        if self.q.is_empty() {
            self.idle_since = Some(now);
        }
        Some(p)
    }
    fn len_packets(&self) -> u32 {
        self.q.len() as u32
    }
    fn len_bytes(&self) -> u64 {
        self.q.bytes()
    }
    fn name(&self) -> &'static str {
        "red"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Ecn;

    fn red(gentle: bool) -> Red {
        let p = RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle,
            tx_time_ns: 1e6,
            ecn: false,
        };
        Red::new(QueueLimit::Packets(1000), p, RngStream::new(1, 2))
    }

    #[test]
    fn drop_probabilities_follow_the_paper() {
        let r = red(false);
        // Below min_th: 0. Midway (avg 10): p_b = 0.1 * 5/10 = 0.05. At max_th and above: 1.
        assert_eq!(r.p_b(4.9), 0.0);
        assert!((r.p_b(10.0) - 0.05).abs() < 1e-12);
        assert_eq!(r.p_b(15.0), 1.0);
        // p_a = p_b / (1 - count p_b): count 1 -> 0.05/0.95 = 0.0526316;
        // count 10 -> 0.05/0.5 = 0.1; count 19 -> 0.05/0.05 = 1.
        assert!((r.p_a(0.05, 1) - 0.05 / 0.95).abs() < 1e-12);
        assert!((r.p_a(0.05, 10) - 0.1).abs() < 1e-12);
        assert!((r.p_a(0.05, 19) - 1.0).abs() < 1e-12);
        assert_eq!(r.p_a(0.05, 25), 1.0);
        // Gentle: between max_th and 2 max_th, p_b = max_p + (1 - max_p)(avg - max_th)/max_th:
        // avg 22.5 -> 0.1 + 0.9 * 7.5/15 = 0.55.
        let g = red(true);
        assert!((g.p_b(22.5) - 0.55).abs() < 1e-12);
        assert_eq!(g.p_b(30.0), 1.0);
    }

    #[test]
    fn the_average_is_an_ewma_of_the_queue_at_arrivals() {
        // Ten packets queued and never served; each further arrival sees q >= 10.
        // With w_q = 0.002 and q held at 10 (the limit), after n arrivals
        // avg = 10 (1 - 0.998^n): n = 1000 gives 8.649 (arrivals are dropped at the
        // hard limit, so q stays 10).
        let p = RedParams {
            min_th: 100.0,
            max_th: 200.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: false,
            tx_time_ns: 1e6,
            ecn: false,
        };
        let mut r = Red::new(QueueLimit::Packets(10), p, RngStream::new(1, 2));
        let t = SimTime::from_millis(1);
        for id in 0..10 {
            r.enqueue(
                QPkt {
                    id,
                    size: 1500,
                    flow: 0,
                    ecn: crate::Ecn::NotEct,
                },
                t,
            );
        }
        let a10 = r.average();
        for id in 0..1000 {
            r.enqueue(
                QPkt {
                    id,
                    size: 1500,
                    flow: 0,
                    ecn: crate::Ecn::NotEct,
                },
                t,
            );
        }
        // From a10 after 10 arrivals, 1000 more at q = 10: avg = 10 - (10 - a10) 0.998^1000.
        let expected = 10.0 - (10.0 - a10) * 0.998f64.powi(1000);
        assert!(
            (r.average() - expected).abs() < 1e-9,
            "{} vs {expected}",
            r.average()
        );
        assert!((r.average() - 8.65).abs() < 0.05);
    }

    #[test]
    fn the_average_decays_over_an_idle_period() {
        // avg 8, queue empty for 500 typical transmission times: 8 * 0.998^500 = 2.943.
        let mut r = red(false);
        r.avg = 8.0;
        r.idle_since = Some(SimTime::ZERO);
        r.enqueue(
            QPkt {
                id: 0,
                size: 1500,
                flow: 0,
                ecn: crate::Ecn::NotEct,
            },
            SimTime::from_millis(500),
        );
        assert!((r.average() - 8.0 * 0.998f64.powf(500.0)).abs() < 1e-9);
    }

    #[test]
    fn count_spacing_makes_inter_drop_gaps_uniform() {
        // With avg held at 10 (p_b = 0.05) and count incremented before p_a is
        // computed (the paper's figure 2, as ns-2), the k-th arrival after a drop
        // has p_a = p_b / (1 - k p_b); surviving k - 1 arrivals has probability
        // (1 - k p_b) / (1 - p_b), so P(gap = k) = p_b / (1 - p_b) for
        // k = 1 .. 1/p_b - 1 = 19: uniform, mean 10. (The paper's section 7 prose
        // says 1 .. 1/p_b; its pseudocode gives one less.)
        let mut r = red(false);
        let mut gaps = vec![];
        let mut since = 0;
        for id in 0..200_000u32 {
            // The arrival's update with an empty queue multiplies avg by 1 - w_q:
            // start from 10 / 0.998 so that the arrival sees exactly 10.
            r.avg = 10.0 / 0.998;
            r.idle_since = None;
            since += 1;
            if r.enqueue(
                QPkt {
                    id,
                    size: 1500,
                    flow: 0,
                    ecn: crate::Ecn::NotEct,
                },
                SimTime::ZERO,
            )
            .is_some()
            {
                gaps.push(since);
                since = 0;
            }
            r.q.clear();
        }
        // The first gap starts from the initial count of -1, not 0: skip it.
        let gaps = &gaps[1..];
        let mean = gaps.iter().sum::<u32>() as f64 / gaps.len() as f64;
        assert!(gaps.iter().all(|&g| (1..=19).contains(&g)));
        // sd of a uniform on 1..19 is 5.48; over ~20000 gaps the mean's sd is 0.039.
        assert!((mean - 10.0).abs() < 5.0 * 0.039, "mean gap {mean}");
    }

    #[test]
    fn dropped_arrivals_at_an_idle_queue_keep_the_idle_decay_going() {
        // Regression: the average was left high after a burst; with the queue idle,
        // arrivals 1 s apart that are dropped must still decay the average by the
        // idle time: avg 20 -> 20 * 0.998^(1 s / 1 ms) = 2.7 at the first arrival,
        // below min_th, so it is admitted instead of being dropped forever.
        let mut r = red(false);
        r.avg = 20.0;
        r.idle_since = Some(SimTime::ZERO);
        let got = r.enqueue(
            QPkt {
                id: 0,
                size: 1500,
                flow: 0,
                ecn: crate::Ecn::NotEct,
            },
            SimTime::from_secs(1),
        );
        assert!(got.is_none(), "dropped with avg {}", r.average());
        assert!((r.average() - 20.0 * 0.998f64.powf(1000.0)).abs() < 1e-9);
    }

    fn red_ecn(gentle: bool) -> Red {
        let mut r = red(gentle);
        r.p.ecn = true;
        r
    }

    /// Offer packet `id` with codepoint `ecn` to an empty, non-idle queue whose
    /// average becomes exactly `avg` at this arrival (the update multiplies it by
    /// 1 - w_q = 0.998), after `count` arrivals since the last drop.
    fn arrive_at(r: &mut Red, avg: f64, count: i64, id: u32, ecn: Ecn) -> Option<QPkt> {
        r.q.clear();
        r.avg = avg / 0.998;
        r.idle_since = None;
        r.count = count;
        let p = QPkt {
            id,
            size: 1500,
            flow: 0,
            ecn,
        };
        r.enqueue(p, SimTime::ZERO)
    }

    #[test]
    fn ecn_marks_an_ect_arrival_that_would_be_dropped_early_and_drops_a_not_ect_one() {
        // avg 12: p_b = 0.1 (12 - 5) / 10 = 0.07. With count 14 before the arrival
        // (15 after the increment), 1 - 15 x 0.07 = -0.05 <= 0: p_a = 1, the
        // early drop is certain.
        let mut r = red_ecn(false);
        assert!((r.p_b(12.0) - 0.07).abs() < 1e-12);
        assert_eq!(r.p_a(0.07, 15), 1.0);
        // An ECT(0) packet is marked CE and queued, and the count restarts.
        assert_eq!(arrive_at(&mut r, 12.0, 14, 1, Ecn::Ect0), None);
        assert_eq!(r.count, 0);
        let out = r.dequeue(SimTime::ZERO, &mut |_| panic!("no drop at dequeue"));
        assert_eq!(out.map(|p| (p.id, p.ecn)), Some((1, Ecn::Ce)));
        // ECT(1) and an already-marked packet are ECN-capable too.
        assert_eq!(arrive_at(&mut r, 12.0, 14, 2, Ecn::Ect1), None);
        assert_eq!(r.q.pop().map(|(p, _)| p.ecn), Some(Ecn::Ce));
        assert_eq!(arrive_at(&mut r, 12.0, 14, 3, Ecn::Ce), None);
        // The same state with a Not-ECT packet: dropped, unchanged.
        let d = arrive_at(&mut r, 12.0, 14, 4, Ecn::NotEct);
        assert_eq!(d.map(|p| (p.id, p.ecn)), Some((4, Ecn::NotEct)));
        assert!(r.q.is_empty());
        assert_eq!(r.count, 0);
        // Without `ecn` the ECT packet is dropped like any other.
        let d = arrive_at(&mut red(false), 12.0, 14, 5, Ecn::Ect0);
        assert_eq!(d.map(|p| p.id), Some(5));
    }

    #[test]
    fn ecn_marks_in_the_gentle_region_but_forced_drops_stay_drops() {
        // Gentle, avg 22.5: p_b = 0.1 + 0.9 x 7.5 / 15 = 0.55; count 0 -> 1:
        // p_a = 0.55 / 0.45 > 1, so 1: an early drop, which ECN turns into a mark
        // (ns-2 drop_early covers the gentle region).
        let mut g = red_ecn(true);
        assert_eq!(arrive_at(&mut g, 22.5, 0, 1, Ecn::Ect0), None);
        assert_eq!(g.q.pop().map(|(p, _)| p.ecn), Some(Ecn::Ce));
        // Gentle, avg 31 >= 2 max_th = 30: p_b = 1, a forced drop: ECT dropped.
        let d = arrive_at(&mut g, 31.0, 0, 2, Ecn::Ect0);
        assert_eq!(d.map(|p| (p.id, p.ecn)), Some((2, Ecn::Ect0)));
        // Not gentle, avg 16 >= max_th = 15: forced, dropped (ns-2 DTYPE_FORCED;
        // Linux would mark here unless `harddrop` is set).
        let d = arrive_at(&mut red_ecn(false), 16.0, 0, 3, Ecn::Ect0);
        assert_eq!(d.map(|p| p.id), Some(3));
    }

    #[test]
    fn ecn_never_marks_past_a_full_queue() {
        // Limit 1 packet, one queued: the arrival does not fit. The average is set
        // so that the update (with q = 1) gives 12, and count 14: the early drop
        // is certain as above, yet the ECT packet is dropped, not marked, because
        // the buffer is full.
        let mut r = Red::new(
            QueueLimit::Packets(1),
            RedParams {
                ecn: true,
                ..red(false).p
            },
            RngStream::new(1, 2),
        );
        let queued = QPkt {
            id: 0,
            size: 1500,
            flow: 0,
            ecn: Ecn::Ect0,
        };
        r.q.push(queued, SimTime::ZERO);
        r.avg = (12.0 - 0.002) / 0.998;
        r.idle_since = None;
        r.count = 14;
        let p = QPkt { id: 1, ..queued };
        assert_eq!(r.enqueue(p, SimTime::ZERO), Some(p));
        assert!((r.average() - 12.0).abs() < 1e-12);
        assert_eq!(r.q.len(), 1);
        // With room, the same decision marks (average 12, count 14 again).
        r.q.pop();
        r.avg = 12.0 / 0.998;
        r.count = 14;
        assert_eq!(r.enqueue(p, SimTime::ZERO), None);
    }

    #[test]
    fn with_ecn_marks_fall_exactly_where_drops_would() {
        // The decisions depend only on avg, count and the random stream: with the
        // queue reset before each arrival, ECT arrivals under `ecn` are marked at
        // exactly the arrivals a Not-ECT run with the same seed drops.
        let (mut a, mut b) = (red(false), red_ecn(false));
        let mut marks = 0;
        for id in 0..20_000u32 {
            let (ca, cb) = (a.count, b.count);
            let dropped = arrive_at(&mut a, 10.0, ca, id, Ecn::NotEct).is_some();
            assert_eq!(arrive_at(&mut b, 10.0, cb, id, Ecn::Ect0), None);
            let marked = b.q.pop().map(|(p, _)| p.ecn) == Some(Ecn::Ce);
            assert_eq!(dropped, marked, "arrival {id}");
            marks += marked as u32;
        }
        // Not vacuous: gaps between decisions are uniform on 1..19 with mean 10
        // (count_spacing_makes_inter_drop_gaps_uniform), so about 2000 of 20000
        // arrivals are marked.
        assert!((1800..2200).contains(&marks), "{marks} marks");
    }
}
