//! CoDel, Controlled Delay (RFC 8289), following its section 5 pseudocode: the
//! sojourn time of each dequeued packet is compared with TARGET; once it has
//! stayed above TARGET for INTERVAL the queue enters the dropping state and drops
//! at dequeue, the next drop scheduled by the control law
//! `drop_next = t + INTERVAL / sqrt(count)`; re-entering the dropping state soon
//! after leaving it resumes from `count - lastcount` (section 5.5). A hard limit
//! tail-drops arrivals when the buffer is full.
//!
//! ECN (`ecn = true`): RFC 8289 section 5 lets CoDel mark ECN-capable packets
//! instead of dropping them; the control law runs unchanged, so marks fall
//! exactly where drops would. As Linux include/net/codel_impl.h
//! `codel_dequeue`: in the dropping state, when a drop is due, count is
//! incremented, the head is marked CE and sent, `drop_next` advances by the
//! control law and the loop stops (one mark per dequeue); on entering the
//! dropping state the head is marked instead of dropped and sent. Not-ECT
//! packets are dropped as before; the hard limit always drops.

use super::fifo::Fifo;
use super::{QPkt, Qdisc, QueueLimit};
use tcplab_engine::SimTime;

/// CoDel parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    /// Acceptable standing queue delay (RFC 8289: 5 ms).
    pub target: SimTime,
    /// Sliding window (RFC 8289: 100 ms).
    pub interval: SimTime,
    /// Below this many queued bytes the queue is never considered standing (one MTU).
    pub max_packet: u64,
    /// Mark ECN-capable packets CE instead of dropping them.
    pub ecn: bool,
}

impl Default for CodelParams {
    fn default() -> Self {
        CodelParams {
            target: SimTime::from_millis(5),
            interval: SimTime::from_millis(100),
            max_packet: 1500,
            ecn: false,
        }
    }
}

/// The per-queue CoDel state machine of RFC 8289 section 5, shared by [`Codel`]
/// and FQ-CoDel (one per flow queue). It owns no packets: `dequeue` takes the
/// queue's head through a closure.
#[derive(Clone, Debug, Default)]
pub(crate) struct CodelState {
    first_above_time: Option<SimTime>,
    drop_next: SimTime,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

impl CodelState {
    /// RFC 8289 control_law: t + INTERVAL / sqrt(count).
    fn control_law(p: &CodelParams, t: SimTime, count: u32) -> SimTime {
        t + SimTime((p.interval.0 as f64 / (count.max(1) as f64).sqrt()).round() as u64)
    }

    /// RFC 8289 dodequeue: the head packet and whether it may be dropped. `pop`
    /// removes the head and returns it with its enqueue time and the bytes still
    /// queued after it (what the "below one MTU" test looks at).
    fn dodequeue<F>(&mut self, p: &CodelParams, now: SimTime, pop: &mut F) -> (Option<QPkt>, bool)
    where
        F: FnMut() -> Option<(QPkt, SimTime, u64)>,
    {
        let Some((pkt, at, backlog)) = pop() else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now - at;
        let mut ok_to_drop = false;
        if sojourn < p.target || backlog <= p.max_packet {
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + p.interval),
                Some(t) if now >= t => ok_to_drop = true,
                _ => {}
            }
        }
        (Some(pkt), ok_to_drop)
    }

    /// RFC 8289 dequeue: the packet to send, if any; packets dropped on the way
    /// go to `drop`. `pop` is as for `dodequeue`.
    pub(crate) fn dequeue<F>(
        &mut self,
        p: &CodelParams,
        now: SimTime,
        mut pop: F,
        drop: &mut dyn FnMut(QPkt),
    ) -> Option<QPkt>
    where
        F: FnMut() -> Option<(QPkt, SimTime, u64)>,
    {
        let (mut r, mut ok) = self.dodequeue(p, now, &mut pop);
        // Linux codel_dequeue: with ECN, the packet a drop is due for is marked
        // instead when it is ECN-capable.
        let mark = |r: &mut Option<QPkt>| p.ecn && r.as_mut().is_some_and(QPkt::mark_ce);
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if mark(&mut r) {
                    self.drop_next = Self::control_law(p, self.drop_next, self.count);
                    break;
                }
                if let Some(pkt) = r {
                    drop(pkt);
                }
                (r, ok) = self.dodequeue(p, now, &mut pop);
                if !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = Self::control_law(p, self.drop_next, self.count);
                }
            }
        } else if ok {
            if !mark(&mut r) {
                if let Some(pkt) = r {
                    drop(pkt);
                }
                (r, _) = self.dodequeue(p, now, &mut pop);
            }
            self.dropping = true;
            // Section 5.5: resume near the previous drop rate if it ended recently.
            let delta = self.count.saturating_sub(self.lastcount);
            self.count =
                if delta > 1 && now.saturating_sub(self.drop_next) < SimTime(16 * p.interval.0) {
                    delta
                } else {
                    1
                };
            self.drop_next = Self::control_law(p, now, self.count);
            self.lastcount = self.count;
        }
        r
    }
}

/// A CoDel queue.
pub struct Codel {
    q: Fifo,
    p: CodelParams,
    state: CodelState,
}

impl Codel {
    /// A CoDel queue with hard limit `limit`.
    pub fn new(limit: QueueLimit, p: CodelParams) -> Self {
        Codel {
            q: Fifo::new(limit),
            p,
            state: CodelState::default(),
        }
    }
}

impl Qdisc for Codel {
    fn enqueue(&mut self, p: QPkt, now: SimTime) -> Option<QPkt> {
        if !self.q.fits(p.size) {
            return Some(p);
        }
        self.q.push(p, now);
        None
    }

    fn dequeue(&mut self, now: SimTime, drop: &mut dyn FnMut(QPkt)) -> Option<QPkt> {
        let q = &mut self.q;
        let pop = || q.pop().map(|(p, at)| (p, at, q.bytes()));
        self.state.dequeue(&self.p, now, pop, drop)
    }

    fn len_packets(&self) -> u32 {
        self.q.len() as u32
    }
    fn len_bytes(&self) -> u64 {
        self.q.bytes()
    }
    fn name(&self) -> &'static str {
        "codel"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Ecn;

    #[test]
    fn drops_follow_the_control_law() {
        // 1000 packets of 1500 B queued at 0, one dequeued per millisecond: the
        // packet leaving at t ms has sojourn t ms. Sojourn reaches TARGET (5 ms)
        // at 5 ms: first_above_time = 105 ms. Drops (RFC 8289 section 5):
        //   105 ms (entering the dropping state, count 1, drop_next = 205),
        //   205 ms (count 2, drop_next = 205 + 100/sqrt 2 = 275.71),
        //   276 ms (count 3, drop_next = 275.71 + 100/sqrt 3 = 333.45),
        //   334 ms (count 4, drop_next = 333.45 + 50 = 383.45), 384 ms.
        let mut q = Codel::new(QueueLimit::Packets(10_000), CodelParams::default());
        for id in 0..1000 {
            q.enqueue(
                QPkt {
                    id,
                    size: 1500,
                    flow: 0,
                    ecn: crate::Ecn::NotEct,
                },
                SimTime::ZERO,
            );
        }
        let mut drop_times = vec![];
        for t in 1..=400u64 {
            let mut dropped = 0;
            q.dequeue(SimTime::from_millis(t), &mut |_| dropped += 1);
            for _ in 0..dropped {
                drop_times.push(t);
            }
        }
        assert_eq!(drop_times, vec![105, 205, 276, 334, 384]);
    }

    #[test]
    fn a_short_queue_is_never_dropped_from() {
        // Sojourn below TARGET: no drop however long it lasts.
        let mut q = Codel::new(QueueLimit::Packets(100), CodelParams::default());
        let mut drops = 0;
        for t in 0..10_000u64 {
            q.enqueue(
                QPkt {
                    flow: 0,
                    id: t as u32,
                    size: 1500,
                    ecn: crate::Ecn::NotEct,
                },
                SimTime::from_millis(t),
            );
            q.dequeue(
                SimTime::from_millis(t) + SimTime::from_millis(1),
                &mut |_| drops += 1,
            );
        }
        assert_eq!(drops, 0);
    }

    /// 1000 packets of 1500 B with codepoint `ecn` queued at 0, one dequeue per
    /// millisecond up to 400 ms: (times of marks, times of drops, packets sent).
    fn standing_queue(ecn_on: bool, ecn: Ecn) -> (Vec<u64>, Vec<u64>, usize) {
        let p = CodelParams {
            ecn: ecn_on,
            ..CodelParams::default()
        };
        let mut q = Codel::new(QueueLimit::Packets(10_000), p);
        for id in 0..1000 {
            let pkt = QPkt {
                id,
                size: 1500,
                flow: 0,
                ecn,
            };
            q.enqueue(pkt, SimTime::ZERO);
        }
        let (mut marks, mut drops, mut sent) = (vec![], vec![], 0);
        for t in 1..=400u64 {
            let out = q.dequeue(SimTime::from_millis(t), &mut |_| drops.push(t));
            if let Some(p) = out {
                sent += 1;
                if p.ecn == Ecn::Ce && ecn != Ecn::Ce {
                    marks.push(t);
                }
            }
        }
        (marks, drops, sent)
    }

    #[test]
    fn ecn_marks_follow_the_control_law_at_the_drop_times() {
        // The standing queue of drops_follow_the_control_law, every packet ECT(0):
        // the sojourn of the packet leaving at t ms is still t ms (all were queued
        // at 0), so the state machine is the same and the marks fall at the drop
        // times derived there: 105 (entering, count 1, drop_next 205), 205
        // (count 2, + 100/sqrt 2 = 275.71), 276 (count 3, + 100/sqrt 3 = 333.45),
        // 334 (count 4, + 50 = 383.45), 384 ms. No packet is dropped: one leaves
        // per dequeue, 400 in all.
        let (marks, drops, sent) = standing_queue(true, Ecn::Ect0);
        assert_eq!(marks, vec![105, 205, 276, 334, 384]);
        assert_eq!((drops.len(), sent), (0, 400));
        // Not-ECT packets are still dropped at those times, with ECN on or off;
        // each drop takes a second packet off the queue at that dequeue.
        for on in [true, false] {
            let (marks, drops, sent) = standing_queue(on, Ecn::NotEct);
            assert_eq!((marks.len(), drops), (0, vec![105, 205, 276, 334, 384]));
            assert_eq!(sent, 400);
        }
        // ECT packets without ECN on the queue: dropped.
        let (marks, drops, _) = standing_queue(false, Ecn::Ect0);
        assert_eq!((marks.len(), drops.len()), (0, 5));
    }
}
