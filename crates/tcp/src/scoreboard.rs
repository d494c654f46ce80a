//! The sender's record of every segment sent and not yet cumulatively
//! acknowledged, with SACK, lost and retransmitted flags (RFC 6675's scoreboard,
//! Linux's retransmit queue). Counters are kept incrementally and checked
//! against a recount in debug builds.

use std::collections::VecDeque;
use tcplab_engine::SimTime;

/// Selectively acknowledged.
pub const SACKED: u8 = 1;
/// Considered lost (stays set when retransmitted, as Linux's TCPCB_LOST: the
/// pipe counts such a segment once, through its retransmission).
pub const LOST: u8 = 2;
/// A retransmission of it is in flight.
pub const RETRANS: u8 = 4;
/// It was retransmitted at least once (Karn's rule).
pub const EVER_RETRANS: u8 = 8;
/// It carries PSH, the end of an application write (`push`); kept for its
/// retransmissions, as Linux keeps it in the skb's `tcp_flags`.
pub const PUSH: u8 = 16;
/// It is the first segment of the skb it was sent in (a TSO/GSO burst of
/// Linux's paced sender): a burst of retransmissions holds one skb's lost
/// segments, as `tcp_xmit_retransmit_queue` checks pacing before each skb.
pub const SKB_HEAD: u8 = 32;

/// One segment of the sequence space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seg {
    /// First sequence number.
    pub start: u64,
    /// Sequence numbers occupied (payload, +1 for a FIN).
    pub len: u32,
    /// Data bytes.
    pub payload: u32,
    /// Carries the FIN.
    pub fin: bool,
    /// Time of the latest (re)transmission.
    pub sent: SimTime,
    /// Flag bits.
    pub flags: u8,
    /// Rate-sampling snapshot taken at the latest transmission.
    pub tx: TxSnap,
}

/// What a segment remembers of the connection when sent, for delivery-rate
/// sampling (Linux `tcp_skb_cb.tx`, set by `tcp_rate_skb_sent`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxSnap {
    /// Segments delivered so far (`tp->delivered`).
    pub delivered: u64,
    /// Time of the latest delivery (`tp->delivered_mstamp`).
    pub delivered_time: SimTime,
    /// Send time of the first segment of the current flight (`tp->first_tx_mstamp`).
    pub first_time: SimTime,
    /// Sent while application-limited.
    pub app_limited: bool,
    /// The controller's stamp when sent (`CcState::tx_mark`: ns-2 FAST's
    /// `cwnd_array_`).
    pub cc_mark: u32,
}

/// Accumulates, over the segments one ACK delivers, what the rate sample needs
/// (Linux `tcp_rate_skb_delivered`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RateAcc {
    /// The delivered segment with the largest `tx.delivered` (first one on ties).
    pub best: Option<Seg>,
    /// Send time of the most recently sent delivered segment never retransmitted.
    pub newest_clean: Option<SimTime>,
    /// Of those, the newest newly SACKed (Linux `last_sackt`).
    pub newest_clean_sacked: Option<SimTime>,
    /// Send time of the earliest newly SACKed segment never retransmitted
    /// (Linux `first_sackt`, the SACK RTT sample).
    pub oldest_clean_sacked: Option<SimTime>,
    /// What RACK learns from the same segments (`tcp_rack_advance`).
    pub rack: crate::recovery::rack::RackAcc,
    /// Lowest end sequence of a delivered segment never retransmitted
    /// (F-RTO's `FLAG_ORIG_SACK_ACKED` when it is at most `high_seq`).
    pub clean_end_min: Option<u64>,
}

impl RateAcc {
    /// Offer one newly SACKed segment.
    #[inline]
    pub fn offer(&mut self, s: &Seg) {
        self.offer_as(s, false);
    }
    /// Offer one newly (cumulatively) acknowledged segment, never SACKed.
    #[inline]
    pub fn offer_acked(&mut self, s: &Seg) {
        self.offer_as(s, true);
    }
    #[inline]
    fn offer_as(&mut self, s: &Seg, cumulative: bool) {
        // Linux tcp_rate_skb_delivered (since 5.18): the segment sent last
        // (ties: the higher end_seq, tcp_skb_sent_after) sets the sample,
        // as does any segment while the sample's prior_delivered is 0.
        if self.best.is_none_or(|b| {
            b.tx.delivered == 0 || s.sent > b.sent || (s.sent == b.sent && s.end() > b.end())
        }) {
            self.best = Some(*s);
        }
        if !s.has(EVER_RETRANS) && self.newest_clean.is_none_or(|t| s.sent > t) {
            self.newest_clean = Some(s.sent);
        }
        if !cumulative
            && !s.has(EVER_RETRANS)
            && self.newest_clean_sacked.is_none_or(|t| s.sent > t)
        {
            self.newest_clean_sacked = Some(s.sent);
        }
        if cumulative {
            self.rack.offer_acked(s.sent, s.end(), s.flags);
        } else {
            self.rack.offer(s.sent, s.end(), s.flags);
        }
        if !s.has(EVER_RETRANS) && self.clean_end_min.is_none_or(|e| s.end() < e) {
            self.clean_end_min = Some(s.end());
        }
    }
}

impl Seg {
    /// One past the last sequence number.
    #[inline]
    pub fn end(&self) -> u64 {
        self.start + self.len as u64
    }
    /// Whether a flag is set.
    #[inline]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// What a cumulative ACK removed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Acked {
    /// Segments removed.
    pub segs: u32,
    /// Of which were not SACKed before (newly delivered).
    pub newly_delivered: u32,
    /// Send time of the earliest removed segment never retransmitted, if no removed
    /// segment was ever retransmitted (Karn).
    pub karn_sent: Option<SimTime>,
    /// Whether any removed segment had been retransmitted.
    pub any_retrans: bool,
    /// Send time of the earliest removed segment neither SACKed before nor
    /// ever retransmitted, if no removed segment was ever retransmitted
    /// (Linux 6.x `first_ackt` under `FLAG_RETRANS_DATA_ACKED`).
    pub first_unsacked_sent: Option<SimTime>,
    /// The newest segment removed (ns-2's `tcph->seqno()` packet), whatever
    /// its history: what a controller reads of it.
    pub last: Option<crate::cc::SentSeg>,
}

impl Acked {
    /// Send time of the newest removed segment, if no removed segment was
    /// ever retransmitted (Linux 2.2's `seq_rtt`, the last skb freed).
    pub fn newest_sent(&self) -> Option<SimTime> {
        self.last.filter(|_| !self.any_retrans).map(|s| s.sent)
    }
}

/// The scoreboard.
#[derive(Debug)]
pub struct Scoreboard {
    segs: VecDeque<Seg>,
    mss: u32,
    /// Segments SACKed.
    pub sacked: u32,
    /// Segments marked lost and not retransmitted.
    pub lost: u32,
    /// Retransmissions in flight.
    pub retrans: u32,
    /// Segments marked lost and not yet retransmitted (candidates to resend).
    pub lost_pending: u32,
    /// One past the highest SACKed sequence number (0 if none).
    pub high_sacked: u64,
    /// Everything unSACKed below this is already marked lost (RFC 6675 IsLost scan point).
    lost_scan: u64,
}

impl Scoreboard {
    /// An empty scoreboard with room for `cap` segments.
    pub fn new(mss: u32, cap: usize) -> Self {
        Scoreboard {
            segs: VecDeque::with_capacity(cap),
            mss,
            sacked: 0,
            lost: 0,
            retrans: 0,
            lost_pending: 0,
            high_sacked: 0,
            lost_scan: 0,
        }
    }
    /// Set the segment size once it is negotiated.
    pub fn set_mss(&mut self, mss: u32) {
        self.mss = mss;
    }
    /// Segments outstanding.
    #[inline]
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    /// No segment outstanding.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    /// Segment by index from the oldest.
    #[inline]
    pub fn get(&self, i: usize) -> &Seg {
        &self.segs[i]
    }
    /// Append a newly sent segment.
    #[inline]
    pub fn push(&mut self, s: Seg) {
        debug_assert!(self.segs.back().is_none_or(|b| b.end() == s.start));
        self.segs.push_back(s);
    }
    /// RFC 6675 pipe / Linux `tcp_packets_in_flight`:
    /// outstanding - SACKed - lost + retransmissions in flight.
    #[inline]
    pub fn in_flight(&self) -> u32 {
        self.segs.len() as u32 - self.sacked - self.lost + self.retrans
    }
    /// Index of the segment holding `seq`, if outstanding.
    pub fn index_of(&self, seq: u64) -> Option<usize> {
        let first = self.segs.front()?;
        if seq < first.start || seq >= self.segs.back()?.end() {
            return None;
        }
        let mut i =
            (((seq - first.start) / self.mss.max(1) as u64) as usize).min(self.segs.len() - 1);
        while self.segs[i].start > seq {
            i -= 1;
        }
        while self.segs[i].end() <= seq {
            i += 1;
        }
        Some(i)
    }
    /// Remove every segment below `ack`; segments not SACKed before are offered
    /// to `rate`.
    pub fn ack_to(&mut self, ack: u64, rate: &mut RateAcc) -> Acked {
        let mut a = Acked::default();
        // Walk the acknowledged head in place, then drop it in one go: the
        // segments are read where they are, not moved out one by one.
        let mut n = 0;
        for s in self.segs.iter() {
            if s.end() > ack {
                break;
            }
            n += 1;
            if s.has(SACKED) {
                self.sacked -= 1;
            } else {
                a.newly_delivered += 1;
                rate.offer_acked(s);
            }
            if s.flags & (LOST | RETRANS) == LOST {
                self.lost_pending -= 1;
            }
            if s.has(LOST) {
                self.lost -= 1;
            }
            if s.has(RETRANS) {
                self.retrans -= 1;
            }
            if s.has(EVER_RETRANS) {
                a.any_retrans = true;
            } else {
                if a.karn_sent.is_none() {
                    a.karn_sent = Some(s.sent);
                }
                if a.first_unsacked_sent.is_none() && !s.has(SACKED) {
                    a.first_unsacked_sent = Some(s.sent);
                }
            }
        }
        if n > 0 {
            a.segs = n;
            let g = &self.segs[n as usize - 1];
            a.last = Some(crate::cc::SentSeg {
                sent: g.sent,
                retransmitted: g.has(EVER_RETRANS),
                mark: g.tx.cc_mark,
            });
            self.segs.drain(..n as usize);
        }
        if a.any_retrans {
            a.karn_sent = None;
            a.first_unsacked_sent = None;
        }
        a
    }
    /// Mark `[left, right)` SACKed; returns the segments newly SACKed, each
    /// offered to `rate`.
    pub fn sack(&mut self, left: u64, right: u64, rate: &mut RateAcc) -> u32 {
        let mut n = 0;
        let Some(mut i) = self.index_of(left) else {
            return 0;
        };
        while i < self.segs.len() {
            let s = &mut self.segs[i];
            if s.end() > right {
                break;
            }
            if s.start >= left && !s.has(SACKED) {
                if s.flags & (LOST | RETRANS) == LOST {
                    self.lost_pending -= 1;
                }
                if s.has(LOST) {
                    self.lost -= 1;
                }
                if s.has(RETRANS) {
                    self.retrans -= 1;
                }
                if !s.has(EVER_RETRANS) && rate.oldest_clean_sacked.is_none_or(|t| s.sent < t) {
                    rate.oldest_clean_sacked = Some(s.sent);
                }
                s.flags = (s.flags & !(LOST | RETRANS)) | SACKED;
                self.sacked += 1;
                n += 1;
                rate.offer(s);
                self.high_sacked = self.high_sacked.max(s.end());
            }
            i += 1;
        }
        n
    }
    /// RFC 6675 IsLost applied to every segment: an unSACKed segment is lost when
    /// at least `dupthresh` SACKed segments lie above it (for full-sized
    /// segments this is also the "(DupThresh - 1) * SMSS bytes" rule). Segments
    /// already retransmitted are left alone. Returns segments newly marked.
    pub fn mark_lost(&mut self, dupthresh: u32) -> u32 {
        if self.sacked < dupthresh {
            return 0;
        }
        // Find the dupthresh-th SACKed segment from the top: everything below it qualifies.
        let mut seen = 0;
        let mut limit_idx = None;
        // Walk down from the highest SACKed segment (segments above it, sent since,
        // are not SACKed and cannot count).
        let top = self
            .index_of(self.high_sacked.saturating_sub(1))
            .map_or(self.segs.len(), |i| i + 1);
        for i in (0..top).rev() {
            if self.segs[i].start < self.lost_scan {
                break;
            }
            if self.segs[i].has(SACKED) {
                seen += 1;
                if seen == dupthresh {
                    limit_idx = Some(i);
                    break;
                }
            }
        }
        let Some(limit) = limit_idx else { return 0 };
        let from = self.index_of(self.lost_scan).unwrap_or(0);
        let mut n = 0;
        for i in from..limit {
            let s = &mut self.segs[i];
            if s.flags & (SACKED | LOST | RETRANS) == 0 {
                s.flags |= LOST;
                self.lost += 1;
                self.lost_pending += 1;
                n += 1;
            }
        }
        self.lost_scan = self.lost_scan.max(self.segs[limit].start);
        n
    }
    /// Mark the oldest outstanding segment lost (fast retransmit, NewReno partial
    /// ACK); returns 1 if it was not marked before.
    pub fn mark_head_lost(&mut self) -> u32 {
        let Some(s) = self.segs.front() else {
            return 0;
        };
        let was_lost = s.has(LOST);
        let n = self.mark_seg_lost(0);
        if was_lost {
            0
        } else {
            n
        }
    }
    /// Segments in `[left, right)` ever retransmitted and ending above
    /// `above` (a D-SACK block over them shows retransmissions needless).
    pub fn ever_retrans_in(&self, left: u64, right: u64, above: u64) -> u32 {
        let Some(i) = self.index_of(left) else {
            return 0;
        };
        self.segs
            .range(i..)
            .take_while(|s| s.end() <= right)
            .filter(|s| s.start >= left && s.has(EVER_RETRANS) && s.end() > above)
            .count() as u32
    }
    /// Linux `tcp_mark_skb_lost`: segment `i` is lost (and so is its
    /// retransmission, if one is in flight: it becomes eligible again).
    /// Returns 1 when it is newly lost or its retransmission is (Linux's
    /// `tp->lost` count), 0 for a SACKed segment or one already lost and not
    /// resent.
    pub fn mark_seg_lost(&mut self, i: usize) -> u32 {
        let s = &mut self.segs[i];
        if s.has(SACKED) {
            return 0;
        }
        let mut n = 0;
        if s.has(RETRANS) {
            s.flags &= !RETRANS;
            self.retrans -= 1;
            if s.has(LOST) {
                self.lost_pending += 1;
                n = 1;
            }
        }
        if !s.has(LOST) {
            s.flags |= LOST;
            self.lost += 1;
            self.lost_pending += 1;
            n = 1;
        }
        n
    }
    /// A tail loss probe resent segment `i` at `now` (Linux
    /// `__tcp_retransmit_skb` from `tcp_send_loss_probe`): ever retransmitted
    /// and sent again, but no retransmission is counted in flight.
    pub fn probe_resent(&mut self, i: usize, now: SimTime, tx: TxSnap) {
        let s = &mut self.segs[i];
        s.flags |= EVER_RETRANS;
        s.sent = now;
        s.tx = tx;
    }
    /// After a timeout: every unSACKed segment is lost, no retransmission is in
    /// flight. Returns the segments newly marked.
    pub fn mark_all_lost(&mut self) -> u32 {
        let before = self.lost;
        for s in self.segs.iter_mut() {
            if !s.has(SACKED) {
                s.flags = (s.flags & !RETRANS) | LOST;
            }
        }
        self.retrans = 0;
        self.lost = self.segs.len() as u32 - self.sacked;
        self.lost_pending = self.lost;
        self.lost_scan = self.segs.back().map_or(0, |s| s.end());
        self.lost - before
    }
    /// Undo of a spurious reduction: nothing is lost after all (Linux clears
    /// every TCPCB_LOST mark in `tcp_undo_cwnd_reduction`).
    pub fn unmark_lost(&mut self) {
        for s in self.segs.iter_mut() {
            s.flags &= !LOST;
        }
        self.lost = 0;
        self.lost_pending = 0;
    }
    /// Forget all SACK information (a reneging receiver, or a non-SACK recovery).
    pub fn clear_sacks(&mut self) {
        for s in self.segs.iter_mut() {
            s.flags &= !SACKED;
        }
        self.sacked = 0;
        self.high_sacked = 0;
        self.lost_scan = 0;
    }
    /// The first segment marked lost and not yet retransmitted, from index `from`.
    pub fn first_lost(&self, from: usize) -> Option<usize> {
        if self.lost_pending == 0 {
            return None;
        }
        (from..self.segs.len()).find(|&i| self.segs[i].flags & (LOST | RETRANS) == LOST)
    }
    /// Mark segment `i` as the first of its skb ([`SKB_HEAD`]).
    #[inline]
    pub fn set_skb_head(&mut self, i: usize) {
        self.segs[i].flags |= SKB_HEAD;
    }
    /// Record a retransmission of segment `i` at `now` with its new snapshot.
    pub fn retransmitted(&mut self, i: usize, now: SimTime, tx: TxSnap) {
        let s = &mut self.segs[i];
        s.tx = tx;
        if !s.has(RETRANS) {
            self.retrans += 1;
            if s.has(LOST) {
                self.lost_pending -= 1;
            }
        }
        s.flags |= RETRANS | EVER_RETRANS;
        s.sent = now;
    }
    /// Recount the flags (debug invariant): (sacked, lost, retrans).
    pub fn recount(&self) -> (u32, u32, u32) {
        let c = |f| self.segs.iter().filter(|s| s.has(f)).count() as u32;
        (c(SACKED), c(LOST), c(RETRANS))
    }
    /// Check the invariants; panics with a description when one fails.
    pub fn check(&self) {
        assert_eq!(
            self.recount(),
            (self.sacked, self.lost, self.retrans),
            "scoreboard counters drifted"
        );
        let pending = self
            .segs
            .iter()
            .filter(|s| s.flags & (LOST | RETRANS) == LOST)
            .count() as u32;
        assert_eq!(pending, self.lost_pending, "lost-pending counter drifted");
        for w in self.segs.iter().zip(self.segs.iter().skip(1)) {
            assert_eq!(w.0.end(), w.1.start, "scoreboard has a gap or overlap");
        }
        for s in &self.segs {
            assert!(
                !(s.has(SACKED) && (s.has(LOST) || s.has(RETRANS))),
                "SACKed segment also lost/retrans"
            );
        }
    }
}

/// A scoreboard of `n` 100-byte segments from sequence 1, segment i sent at
/// i ns, for the tests of the scoreboard and of the recovery mechanisms.
#[cfg(test)]
pub(crate) fn test_board(n: u64) -> Scoreboard {
    let mut b = Scoreboard::new(100, 16);
    for i in 0..n {
        b.push(Seg {
            start: 1 + 100 * i,
            len: 100,
            payload: 100,
            fin: false,
            sent: SimTime(i),
            flags: 0,
            tx: TxSnap::default(),
        });
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::test_board as board;

    #[test]
    fn the_rate_sample_comes_from_the_delivered_segment_sent_last() {
        // Linux tcp_rate_skb_delivered since 5.18 (tcp_skb_sent_after): of
        // the segments one ACK delivers, the one sent last; between two sent
        // at the same time, the higher end. Three segments sent between the
        // same two delivering ACKs (tx.delivered 7 for all), at 30, 50 and
        // 40 us, offered in sequence order: the second (sent at 50 us).
        let seg = |i: u64, sent: u64, delivered: u64| Seg {
            start: 1 + 100 * i,
            len: 100,
            payload: 100,
            fin: false,
            sent: SimTime(sent * 1000),
            flags: 0,
            tx: TxSnap {
                delivered,
                ..TxSnap::default()
            },
        };
        let mut acc = RateAcc::default();
        for s in [seg(0, 30, 7), seg(1, 50, 7), seg(2, 40, 7)] {
            acc.offer(&s);
        }
        assert_eq!(acc.best.map(|b| b.start), Some(101));
        // Sent at the same time: the higher end.
        let mut acc = RateAcc::default();
        for s in [seg(0, 30, 7), seg(1, 30, 7)] {
            acc.offer_acked(&s);
        }
        assert_eq!(acc.best.map(|b| b.start), Some(101));
        // While the best one's prior_delivered is 0 (Linux's
        // !rs->prior_delivered), the next one replaces it, even sent earlier.
        let mut acc = RateAcc::default();
        for s in [seg(0, 50, 0), seg(1, 30, 0)] {
            acc.offer(&s);
        }
        assert_eq!(acc.best.map(|b| b.start), Some(101));
    }

    #[test]
    fn index_lookup_finds_the_segment_holding_a_sequence_number() {
        let b = board(5);
        assert_eq!(b.index_of(1), Some(0));
        assert_eq!(b.index_of(100), Some(0));
        assert_eq!(b.index_of(101), Some(1));
        assert_eq!(b.index_of(500), Some(4));
        assert_eq!(b.index_of(501), None);
        assert_eq!(b.index_of(0), None);
    }

    #[test]
    fn is_lost_needs_three_sacked_segments_above() {
        // Segments 0..10; SACK 3, 4 (two above 0..2): nothing lost; SACK 6: 0,1,2 lost
        // (three SACKed above them) but not 5 (only one SACKed above it).
        let mut b = board(10);
        b.sack(301, 501, &mut RateAcc::default());
        assert_eq!(b.mark_lost(3), 0);
        b.sack(601, 701, &mut RateAcc::default());
        assert_eq!(b.mark_lost(3), 3);
        let lost: Vec<bool> = (0..10).map(|i| b.get(i).has(LOST)).collect();
        assert_eq!(
            lost,
            vec![true, true, true, false, false, false, false, false, false, false]
        );
        // pipe = 10 outstanding - 3 SACKed - 3 lost + 0 retransmitted = 4 (segments 5, 7, 8, 9)
        assert_eq!(b.in_flight(), 4);
        b.check();
        // SACK 8 and 9: now 5 has 3 SACKed above it (6, 8, 9), 7 has two.
        b.sack(801, 1001, &mut RateAcc::default());
        assert_eq!(b.mark_lost(3), 1);
        assert!(b.get(5).has(LOST) && !b.get(7).has(LOST));
        b.check();
    }

    #[test]
    fn retransmission_moves_lost_to_in_flight_and_a_cumulative_ack_clears_it() {
        let mut b = board(6);
        b.sack(201, 501, &mut RateAcc::default());
        b.mark_lost(3);
        assert_eq!((b.lost, b.sacked), (2, 3));
        assert_eq!(b.first_lost(0), Some(0));
        b.retransmitted(0, SimTime(100), TxSnap::default());
        assert_eq!(b.first_lost(0), Some(1));
        // Segment 0 stays counted as lost, its retransmission is in flight:
        // pipe = 6 - 3 SACKed - 2 lost + 1 retransmitted = 2 (segments 0' and 5).
        assert_eq!((b.lost, b.retrans, b.in_flight()), (2, 1, 2));
        let a = b.ack_to(101, &mut RateAcc::default());
        assert!(a.any_retrans);
        assert_eq!(a.karn_sent, None);
        assert_eq!((b.len(), b.retrans, b.lost), (5, 0, 1));
        assert_eq!(b.first_lost(0), Some(0)); // segment 1, now at the head
        b.check();
    }

    #[test]
    fn karn_sample_comes_from_the_earliest_never_retransmitted_segment() {
        let mut b = board(4);
        let a = b.ack_to(201, &mut RateAcc::default());
        assert_eq!((a.segs, a.newly_delivered), (2, 2));
        assert_eq!(a.karn_sent, Some(SimTime(0)));
    }

    #[test]
    fn timeout_marks_every_unsacked_segment_lost() {
        let mut b = board(5);
        b.sack(201, 301, &mut RateAcc::default());
        b.retransmitted(0, SimTime(9), TxSnap::default());
        b.mark_all_lost();
        assert_eq!((b.lost, b.sacked, b.retrans, b.in_flight()), (4, 1, 0, 0));
        b.check();
    }
}
