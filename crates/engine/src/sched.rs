//! The event scheduler. Events run in order of `(time, stamp, seq)`: `stamp`
//! is the time the event was scheduled (or an earlier one given by the
//! caller, see [`Scheduler::schedule_stamped`]) and `seq` counts calls to
//! `schedule`, so that events at the same instant run first-in first-out.
//! Semantics follow SimPy: `step` runs the next event, `peek` tells its time,
//! `run_until(t)` runs every event strictly before `t` and leaves the clock
//! at `t`.
//!
//! Events less than 4096 buckets ahead (16.8 ms: in a packet simulation, nearly
//! all of them) go to a calendar queue (R. Brown, "Calendar queues", CACM 31(10),
//! 1988): a ring of 4096 buckets of 4.096 us, each a list of its events sorted
//! by `(time, stamp)` and in order of scheduling, with a two-level bitmap of the non-empty buckets. Scheduling
//! is an insertion in a short list, taking the next event a bit scan from the
//! bucket of the current time; no step depends on the number of pending events,
//! where a binary heap takes log2(n) dependent, unpredictable comparisons.
//! Later events (timeouts, say) go to a binary heap, and `step` takes the
//! earlier of the two heads. The ring holds buckets `now / width` to
//! `now / width + 4095`, so that its cyclic order from the current bucket is
//! time order; an event in the heap stays there when the clock catches up with
//! it, which the comparison of the two heads makes harmless.

use crate::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// log2 of the bucket width in nanoseconds.
const SHIFT: u32 = 12;
/// Buckets in the ring.
const SLOTS: usize = 1 << 12;
/// Words of the bucket bitmap (one bit of the summary each).
const WORDS: usize = SLOTS / 64;
/// End of a list.
const NIL: u32 = u32::MAX;

/// A pending event and its key (in the heap).
#[derive(Clone, Copy)]
struct Entry<E> {
    time: SimTime,
    stamp: SimTime,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.stamp == o.stamp && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap, we want the earliest (time, seq) on top.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.stamp, o.seq).cmp(&(self.time, self.stamp, self.seq))
    }
}

/// A pending event in the ring: a node of its bucket's list. Its place in
/// the list keeps the order of scheduling among events of one `(time,
/// stamp)`, so it needs no `seq`: an event in the heap at the same `(time,
/// stamp)` was scheduled earlier (the heap takes what is `SLOTS` buckets or
/// more ahead of the clock, so for one `time` it took those scheduled while
/// the clock was further back).
#[derive(Clone, Copy)]
struct Node<E> {
    time: SimTime,
    stamp: SimTime,
    ev: E,
    /// The next node of the bucket (or of the free list), or `NIL`.
    next: u32,
}

/// A discrete-event scheduler over events of type `E`.
pub struct Scheduler<E> {
    /// Nodes of the bucket lists; unused ones form a free list from `free`.
    nodes: Vec<Node<E>>,
    free: u32,
    /// First node of each bucket's list, earliest first.
    head: Vec<u32>,
    /// Bit `s % 64` of word `s / 64`: bucket `s` is not empty.
    bits: [u64; WORDS],
    /// Bit `w`: word `w` of `bits` is not zero.
    summary: u64,
    /// Events scheduled `SLOTS` buckets or more ahead of the clock's bucket.
    far: BinaryHeap<Entry<E>>,
    now: SimTime,
    /// The stamp of the event being handled (see [`Scheduler::schedule_stamped`]).
    stamp: SimTime,
    /// Events pushed on the heap so far (their `seq`).
    seq: u64,
    processed: u64,
}

impl<E: Copy> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> Scheduler<E> {
    /// An empty scheduler at time zero.
    pub fn new() -> Self {
        Self::with_capacity(1024)
    }
    /// An empty scheduler with room for `n` pending events before it grows.
    pub fn with_capacity(n: usize) -> Self {
        Scheduler {
            nodes: Vec::with_capacity(n),
            free: NIL,
            head: vec![NIL; SLOTS],
            bits: [0; WORDS],
            summary: 0,
            far: BinaryHeap::with_capacity(n),
            now: SimTime::ZERO,
            stamp: SimTime::ZERO,
            seq: 0,
            processed: 0,
        }
    }
    /// The current simulated time.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// The stamp of the event being handled: the time it was scheduled, or
    /// the stamp given to [`Scheduler::schedule_stamped`].
    #[inline]
    pub fn stamp(&self) -> SimTime {
        self.stamp
    }
    /// The first non-empty bucket in cyclic order from the clock's bucket.
    #[inline]
    fn first_bucket(&self) -> Option<usize> {
        let from = (self.now.0 >> SHIFT) as usize & (SLOTS - 1);
        let (w, b) = (from / 64, from % 64);
        let m = self.bits[w] & (u64::MAX << b);
        if m != 0 {
            return Some(w * 64 + m.trailing_zeros() as usize);
        }
        // Later words, then (wrapping round) earlier ones, then the start of
        // word `w`, which holds the latest buckets of the ring.
        let later = self.summary & (u64::MAX << w << 1);
        let earlier = self.summary & !(u64::MAX << w);
        let s = if later != 0 { later } else { earlier };
        if s != 0 {
            let w = s.trailing_zeros() as usize;
            return Some(w * 64 + self.bits[w].trailing_zeros() as usize);
        }
        let m = self.bits[w] & !(u64::MAX << b);
        (m != 0).then(|| w * 64 + m.trailing_zeros() as usize)
    }
    /// The next event: `Some((time, stamp, bucket))`, `bucket` being `None`
    /// when it is in the heap (which goes first on a tie: see [`Node`]).
    #[inline]
    fn head_event(&self) -> Option<(SimTime, SimTime, Option<usize>)> {
        let ring = self.first_bucket().map(|s| {
            let n = &self.nodes[self.head[s] as usize];
            (n.time, n.stamp, Some(s))
        });
        let far = self.far.peek().map(|e| (e.time, e.stamp, None));
        match (ring, far) {
            (Some(r), Some(f)) => Some(if (f.0, f.1) <= (r.0, r.1) { f } else { r }),
            (r, f) => r.or(f),
        }
    }
    /// The time of the next event, if any.
    #[inline]
    pub fn peek(&mut self) -> Option<SimTime> {
        self.head_event().map(|(t, _, _)| t)
    }
    /// Number of events waiting (counted, not kept: the free list is walked).
    pub fn pending(&self) -> usize {
        let mut free = 0;
        let mut n = self.free;
        while n != NIL {
            free += 1;
            n = self.nodes[n as usize].next;
        }
        self.nodes.len() - free + self.far.len()
    }
    /// Number of events taken out of the queue so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }
    /// Schedule `ev` at absolute time `at` (not before now).
    #[inline(always)]
    pub fn schedule(&mut self, at: SimTime, ev: E) {
        self.schedule_stamped(at, self.now, ev);
    }
    /// Schedule `ev` at `at` as if it had been scheduled at `stamp` (not after
    /// `at`): events at the same instant run in order of `(stamp, order of
    /// scheduling)`. [`Scheduler::schedule`] stamps with the current time, so
    /// with no other stamps the order is the order of scheduling. A packet
    /// simulator that computes an arrival later than the transmission that
    /// causes it stamps it with the transmission's start, ns-2's order (its
    /// `LinkDelay::recv` schedules the arrival when the transmission starts).
    #[inline(always)]
    pub fn schedule_stamped(&mut self, at: SimTime, stamp: SimTime, ev: E) {
        debug_assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        debug_assert!(stamp <= at, "stamp {stamp} after the event's time {at}");
        if (at.0 >> SHIFT) - (self.now.0 >> SHIFT) >= SLOTS as u64 {
            // Only the heap needs `seq`: the ring keeps the order of
            // scheduling by the place of each node in its list.
            let seq = self.seq;
            self.seq += 1;
            self.far.push(Entry {
                time: at,
                stamp,
                seq,
                ev,
            });
            return;
        }
        let node = Node {
            time: at,
            stamp,
            ev,
            next: NIL,
        };
        let n = if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        };
        let s = (at.0 >> SHIFT) as usize & (SLOTS - 1);
        // After every node of the bucket whose (time, stamp) is not later
        // (their seq is smaller).
        let (mut prev, mut cur) = (NIL, self.head[s]);
        while cur != NIL && {
            let c = &self.nodes[cur as usize];
            (c.time, c.stamp) <= (at, stamp)
        } {
            prev = cur;
            cur = self.nodes[cur as usize].next;
        }
        self.nodes[n as usize].next = cur;
        if prev == NIL {
            self.head[s] = n;
        } else {
            self.nodes[prev as usize].next = n;
        }
        self.bits[s / 64] |= 1 << (s % 64);
        self.summary |= 1 << (s / 64);
    }
    /// Schedule `ev` after a delay from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: SimTime, ev: E) {
        self.schedule(self.now + delay, ev);
    }
    /// Remove and return the next event, whose key is `(t, _, bucket)`.
    #[inline]
    fn take(&mut self, t: SimTime, stamp: SimTime, bucket: Option<usize>) -> (SimTime, E) {
        let ev = match bucket {
            None => self.far.pop().expect("the heap holds the next event").ev,
            Some(s) => {
                let n = self.head[s];
                let node = self.nodes[n as usize];
                self.head[s] = node.next;
                if node.next == NIL {
                    self.bits[s / 64] &= !(1 << (s % 64));
                    if self.bits[s / 64] == 0 {
                        self.summary &= !(1 << (s / 64));
                    }
                }
                self.nodes[n as usize].next = self.free;
                self.free = n;
                node.ev
            }
        };
        self.now = t;
        self.stamp = stamp;
        self.processed += 1;
        (t, ev)
    }
    /// Take the next event, advancing the clock to its time.
    #[inline]
    pub fn step(&mut self) -> Option<(SimTime, E)> {
        let (t, stamp, bucket) = self.head_event()?;
        Some(self.take(t, stamp, bucket))
    }
    /// Take the next event if it is strictly before `until`.
    #[inline]
    pub fn step_before(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        match self.head_event() {
            Some((t, stamp, bucket)) if t < until => Some(self.take(t, stamp, bucket)),
            _ => None,
        }
    }
    /// Run every event strictly before `until` through `handle`, then set the
    /// clock to `until` (SimPy's `run(until=...)`: events at `until` stay queued).
    pub fn run_until(&mut self, until: SimTime, mut handle: impl FnMut(&mut Self, SimTime, E)) {
        while let Some((t, ev)) = self.step_before(until) {
            handle(self, t, ev);
        }
        if until > self.now {
            self.now = until;
            self.stamp = until;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_taken_top_is_replaced_or_removed_without_reordering() {
        // 10, 20, 30 queued. Take 10; schedule 15 (overwrites the taken top): 15
        // comes next, then a step with no schedule in between removes 15 itself.
        let mut s = Scheduler::new();
        for t in [10u64, 20, 30] {
            s.schedule(SimTime(t), t);
        }
        assert_eq!(s.step(), Some((SimTime(10), 10)));
        assert_eq!(s.pending(), 2);
        s.schedule(SimTime(15), 15);
        assert_eq!(s.pending(), 3);
        assert_eq!(s.peek(), Some(SimTime(15)));
        assert_eq!(s.step(), Some((SimTime(15), 15)));
        assert_eq!(s.step(), Some((SimTime(20), 20)));
        // Ties stay FIFO: two events at 25 scheduled after taking 20.
        s.schedule(SimTime(25), 1);
        s.schedule(SimTime(25), 2);
        let rest: Vec<u64> = std::iter::from_fn(|| s.step().map(|(_, e)| e)).collect();
        assert_eq!(rest, vec![1, 2, 30]);
        assert_eq!(s.pending(), 0);
        assert_eq!(s.processed(), 6);
    }

    /// Random schedules and steps against a model that keeps the pending events
    /// in a list and takes the least `(time, order of scheduling)`.
    fn against_the_model(seed: u64, ahead: impl Fn(&mut crate::RngStream) -> u64) {
        against_the_model_stamped(seed, false, ahead)
    }

    /// With `stamped`, half the events are stamped at a random earlier time:
    /// the model then takes the least `(time, stamp, order of scheduling)`.
    fn against_the_model_stamped(
        seed: u64,
        stamped: bool,
        ahead: impl Fn(&mut crate::RngStream) -> u64,
    ) {
        let mut rng = crate::RngStream::new(seed, 0);
        let mut s: Scheduler<u64> = Scheduler::with_capacity(4);
        let mut model: Vec<(u64, u64, u64)> = Vec::new(); // (time, stamp, id); ids grow
        let mut id = 0u64;
        let next = |model: &mut Vec<(u64, u64, u64)>| {
            let i = (0..model.len()).min_by_key(|&i| model[i]).unwrap();
            let (t, _, id) = model.remove(i);
            (t, id)
        };
        for _ in 0..30_000 {
            match rng.below(100) {
                0..=51 => {
                    let t = s.now().0 + ahead(&mut rng);
                    let now = s.now().0;
                    let stamp = if stamped && rng.below(2) == 0 {
                        rng.below(now + 1)
                    } else {
                        now
                    };
                    if stamp == now && rng.below(2) == 0 {
                        s.schedule(SimTime(t), id);
                    } else {
                        s.schedule_stamped(SimTime(t), SimTime(stamp), id);
                    }
                    model.push((t, stamp, id));
                    id += 1;
                }
                52 => {
                    // Jump the clock to just before the next event.
                    let until = model.iter().map(|m| m.0).min().unwrap_or(s.now().0);
                    s.run_until(SimTime(until), |_, _, _| unreachable!());
                }
                _ if !model.is_empty() => {
                    let (t, e) = next(&mut model);
                    assert_eq!(s.peek(), Some(SimTime(t)));
                    assert_eq!(s.step(), Some((SimTime(t), e)), "seed {seed}");
                }
                _ => assert_eq!(s.step(), None),
            }
            assert_eq!(s.pending(), model.len());
        }
        while let Some((t, e)) = s.step() {
            assert_eq!((t.0, e), next(&mut model), "seed {seed}");
        }
        assert!(model.is_empty());
    }

    #[test]
    fn random_schedules_and_steps_match_a_sorted_list() {
        // Many ties (a few ns ahead); within a bucket or a few; across the whole
        // ring and beyond it into the heap, wrapping round the ring.
        let h = (SLOTS as u64) << SHIFT;
        against_the_model(1, |r| r.below(20));
        against_the_model(2, |r| r.below(20_000));
        against_the_model(3, |r| r.below(h + h / 2));
        against_the_model(4, |r| match r.below(4) {
            0 => r.below(8),
            1 => h - 4096 + r.below(8192),
            2 => r.below(10 * h),
            _ => r.below(1 << 20),
        });
    }

    #[test]
    fn stamped_schedules_and_steps_match_a_sorted_list() {
        let h = (SLOTS as u64) << SHIFT;
        against_the_model_stamped(5, true, |r| r.below(20));
        against_the_model_stamped(6, true, |r| r.below(20_000));
        against_the_model_stamped(7, true, |r| r.below(h + h / 2));
    }

    #[test]
    fn an_event_stamped_earlier_runs_before_others_at_its_instant() {
        // At 10 ns: a is scheduled for 20 (stamped 10), then b for 20 stamped
        // 5, c for 20 stamped 10: b, a, c; the clock's stamp follows.
        let mut s = Scheduler::new();
        s.schedule(SimTime(10), 'x');
        assert_eq!(s.step(), Some((SimTime(10), 'x')));
        s.schedule(SimTime(20), 'a');
        s.schedule_stamped(SimTime(20), SimTime(5), 'b');
        s.schedule_stamped(SimTime(20), SimTime(10), 'c');
        assert_eq!(s.step(), Some((SimTime(20), 'b')));
        assert_eq!(s.stamp(), SimTime(5));
        assert_eq!(s.step(), Some((SimTime(20), 'a')));
        assert_eq!(s.step(), Some((SimTime(20), 'c')));
        assert_eq!(s.stamp(), SimTime(10));
    }

    #[test]
    fn events_come_out_in_time_order() {
        let mut s = Scheduler::new();
        for &t in &[50u64, 10, 30, 20, 40] {
            s.schedule(SimTime(t), t);
        }
        let got: Vec<u64> = std::iter::from_fn(|| s.step().map(|(_, e)| e)).collect();
        assert_eq!(got, vec![10, 20, 30, 40, 50]);
    }

    #[test]
    fn ties_are_first_in_first_out() {
        let mut s = Scheduler::new();
        for i in 0..100u32 {
            s.schedule(SimTime(7), i);
        }
        let got: Vec<u32> = std::iter::from_fn(|| s.step().map(|(_, e)| e)).collect();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn now_and_peek() {
        let mut s = Scheduler::new();
        assert_eq!(s.peek(), None);
        s.schedule(SimTime(5), 'a');
        s.schedule(SimTime(3), 'b');
        assert_eq!(s.now(), SimTime(0));
        assert_eq!(s.peek(), Some(SimTime(3)));
        assert_eq!(s.step(), Some((SimTime(3), 'b')));
        assert_eq!(s.now(), SimTime(3));
        assert_eq!(s.peek(), Some(SimTime(5)));
    }

    #[test]
    fn run_until_excludes_events_at_until_and_sets_clock() {
        let mut s = Scheduler::new();
        s.schedule(SimTime(10), 1);
        s.schedule(SimTime(20), 2);
        s.schedule(SimTime(30), 3);
        let mut seen = vec![];
        s.run_until(SimTime(20), |_, t, e| seen.push((t.0, e)));
        assert_eq!(seen, vec![(10, 1)]);
        assert_eq!(s.now(), SimTime(20));
        assert_eq!(s.peek(), Some(SimTime(20)));
        // Running again to a later time picks up the event at exactly 20.
        s.run_until(SimTime(25), |_, t, e| seen.push((t.0, e)));
        assert_eq!(seen, vec![(10, 1), (20, 2)]);
        assert_eq!(s.now(), SimTime(25));
    }

    #[test]
    fn handlers_can_schedule_events_that_run_in_the_same_call() {
        let mut s = Scheduler::new();
        s.schedule(SimTime(1), 0u32);
        let mut count = 0;
        s.run_until(SimTime(100), |s, _, e| {
            count += 1;
            if e < 9 {
                s.schedule_in(SimTime(10), e + 1);
            }
        });
        assert_eq!(count, 10); // events at 1, 11, ..., 91
        assert_eq!(s.processed(), 10);
    }
}
