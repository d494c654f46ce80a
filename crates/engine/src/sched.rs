//! The event scheduler: a binary heap keyed `(time, seq)` so that events at the
//! same instant run first-in first-out. Semantics follow SimPy: `step` runs the
//! next event, `peek` tells its time, `run_until(t)` runs every event strictly
//! before `t` and leaves the clock at `t`.
//!
//! Most events schedule another one; so `step` leaves the event it returns at
//! the top of the heap, marked taken, and the next `schedule` overwrites it
//! (one sift-down) instead of a pop and a push (two). The order of events is
//! unchanged: a taken top is popped before anything else is looked at.

use crate::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Clone, Copy)]
struct Entry<E> {
    time: SimTime,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
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
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// A discrete-event scheduler over events of type `E`.
pub struct Scheduler<E> {
    heap: BinaryHeap<Entry<E>>,
    now: SimTime,
    seq: u64,
    processed: u64,
    /// The heap's top is the event `step` last returned, not yet removed.
    taken: bool,
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
    /// An empty scheduler whose heap is pre-sized for `n` pending events.
    pub fn with_capacity(n: usize) -> Self {
        Scheduler {
            heap: BinaryHeap::with_capacity(n),
            now: SimTime::ZERO,
            seq: 0,
            processed: 0,
            taken: false,
        }
    }
    /// Remove the taken top, if any.
    #[inline]
    fn settle(&mut self) {
        if self.taken {
            self.heap.pop();
            self.taken = false;
        }
    }
    /// The current simulated time.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// The time of the next event, if any.
    #[inline]
    pub fn peek(&mut self) -> Option<SimTime> {
        self.settle();
        self.heap.peek().map(|e| e.time)
    }
    /// Number of events waiting.
    pub fn pending(&self) -> usize {
        self.heap.len() - self.taken as usize
    }
    /// Number of events taken out of the queue so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }
    /// Schedule `ev` at absolute time `at` (not before now).
    #[inline]
    pub fn schedule(&mut self, at: SimTime, ev: E) {
        debug_assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        let seq = self.seq;
        self.seq += 1;
        let e = Entry { time: at, seq, ev };
        if self.taken {
            // Overwrite the taken top; PeekMut sifts it down when dropped.
            self.taken = false;
            *self.heap.peek_mut().expect("a taken top exists") = e;
        } else {
            self.heap.push(e);
        }
    }
    /// Schedule `ev` after a delay from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: SimTime, ev: E) {
        self.schedule(self.now + delay, ev);
    }
    /// Take the next event, advancing the clock to its time.
    #[inline]
    pub fn step(&mut self) -> Option<(SimTime, E)> {
        self.settle();
        let e = *self.heap.peek()?;
        self.taken = true;
        self.now = e.time;
        self.processed += 1;
        Some((e.time, e.ev))
    }
    /// Take the next event if it is strictly before `until`.
    #[inline]
    pub fn step_before(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        self.settle();
        match self.heap.peek() {
            Some(e) if e.time < until => self.step(),
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
