//! ns-2's one-way `Agent/TCP/Sack1` loss recovery (ns-2 2.28 tcp/tcp-sack1.cc
//! with its `ScoreBoardRQ`, tcp/scoreboard-rq.cc; 2.35's differs only for the
//! last packets of a finite transfer), recovery `sack1-ns2`:
//!
//! - Fast retransmit on the duplicate ACK number numdupacks(cwnd_) that
//!   brings new SACK information (`CheckUpdate`), once `highest_ack_ >
//!   recover_` (`bugfix_`); each earlier one sends one packet at `t_seqno_`
//!   if `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_` (`singledup_`,
//!   `send_one`); later ones send nothing (`send_much` only while
//!   `dupacks_ == 0`).
//! - At the fast retransmit `pipe_ = maxseq_ - highest_ack_ -
//!   numdupacks(cwnd_)` (`LimTransmitFix_` false), cwnd_ = int(window()/2)
//!   (`slowdown(CLOSE_CWND_HALF)`), only the first packet is resent.
//! - In recovery every ACK takes one off `pipe_`, a partial ACK one more
//!   (`partial_ack_` false); `send_much` sends while `pipe_ < int(cwnd_)`,
//!   each packet adding one: first the holes below the highest SACKed packet
//!   not yet resent in this recovery (`GetNextRetran`, `MarkRetran`), then
//!   new data. Nothing counts a lost packet as gone, so a window with many
//!   losses stalls until the timeout ([`pipe_at_entry`]).
//! - The scoreboard is forgotten at a timeout, on every new ACK outside
//!   recovery and at the end of a recovery (`ClearScoreBoard`); after a
//!   timeout duplicate ACKs are ignored until a new ACK (`timeout_`), and
//!   the sender goes back N from `highest_ack_ + 1` over SACKed data too.
//!
//! The sender keeps the sequence pointers and does the sending; this module
//! keeps `pipe_`, `h_seqno_` and `timeout_`, and the rules above.

use crate::scoreboard::{Scoreboard, SACKED};

/// The state tcp-sack1.cc adds to `Agent/TCP`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sack1 {
    /// `pipe_`: packets the sender believes in the network during a recovery.
    pub pipe: i64,
    /// `ScoreBoardRQ::h_seqno_` as a sequence number: holes below it were
    /// resent in this recovery.
    h_seqno: u64,
    /// `timeout_`: a timeout happened and no new ACK since; duplicate ACKs
    /// are ignored.
    pub timeout: bool,
}

impl Sack1 {
    /// `dupack_action`'s sack_action: a recovery starts with `outstanding`
    /// packets (`maxseq_ - highest_ack_`) after `numdupacks` duplicate ACKs,
    /// and its first packet, ending at `first_end`, is resent
    /// (`MarkRetran(highest_ack_ + 1)`).
    pub fn enter(&mut self, outstanding: u32, numdupacks: u32, first_end: u64) {
        self.pipe = pipe_at_entry(outstanding, numdupacks);
        self.h_seqno = first_end;
    }

    /// An ACK in recovery, whatever it acknowledges (`--pipe_`).
    pub fn on_ack(&mut self) {
        self.pipe -= 1;
    }

    /// A partial ACK, which advances `highest_ack_` below `recover_`, takes
    /// one more off (`partial_ack_` false: "so that we never do worse than
    /// slow-start").
    pub fn on_partial_ack(&mut self) {
        self.pipe -= 1;
    }

    /// Whether `send_much` may send one more packet in recovery.
    pub fn may_send(&self, cwnd: u32) -> bool {
        self.pipe < i64::from(cwnd)
    }

    /// A packet went out in recovery (`pipe_++`).
    pub fn sent(&mut self) {
        self.pipe += 1;
    }

    /// `GetNextRetran`: the first segment at or above `h_seqno_` (and
    /// `snd_una`) not SACKed with a SACKed one above it, if any. Segments
    /// skipped are SACKed or below the hole found, which stays so until the
    /// scoreboard is cleared: the scan point moves past them (amortised
    /// O(1) per ACK).
    pub fn next_retran(&mut self, sb: &Scoreboard, snd_una: u64) -> Option<usize> {
        let from = self.h_seqno.max(snd_una);
        let first = sb.index_of(from)?;
        for i in first..sb.len() {
            let s = sb.get(i);
            if s.start >= sb.high_sacked {
                self.h_seqno = s.start;
                return None;
            }
            if s.flags & SACKED == 0 {
                self.h_seqno = s.start;
                return Some(i);
            }
        }
        None
    }

    /// `MarkRetran`: the segment ending at `end` was resent.
    pub fn mark_retran(&mut self, end: u64) {
        self.h_seqno = self.h_seqno.max(end);
    }

    /// `ClearScoreBoard` (the SACK marks are the sender's to clear).
    pub fn clear(&mut self) {
        self.h_seqno = 0;
    }
}

/// `pipe_` at the fast retransmit: everything outstanding but the
/// numdupacks(cwnd_) packets the duplicate ACKs showed gone. After a window
/// of W packets with L losses and no ACK lost, the W - L duplicate ACKs
/// bring it down to L, the retransmission's partial ACK to L - 2: with cwnd
/// W/2 nothing more is sent (until the timeout) when L >= W/2 + 2.
pub fn pipe_at_entry(outstanding: u32, numdupacks: u32) -> i64 {
    i64::from(outstanding) - i64::from(numdupacks)
}

/// `send_one` (`singledup_`): a duplicate ACK below numdupacks sends the
/// packet at `t_seqno_` when `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`,
/// i.e. `outstanding + 1 <= cwnd + dupacks` (`outstanding`: packets from
/// `highest_ack_ + 1` up to `t_seqno_`, excluded).
pub fn limited_transmit_ok(outstanding: u32, cwnd: u32, dupacks: u32) -> bool {
    outstanding < cwnd + dupacks
}

/// cwnd_ at the fast retransmit, `slowdown(CLOSE_SSTHRESH_HALF |
/// CLOSE_CWND_HALF)`: the new ssthresh_ (int(window()/2), or the variant's
/// decrease), but without its floor of 2 when window() <= 3 (cwnd_ 1).
pub fn entry_cwnd(ssthresh: u32, window: u32) -> u32 {
    match window / 2 {
        h if h < 2 => h.max(1),
        _ => ssthresh,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoreboard::test_board as board;
    use crate::scoreboard::RateAcc;

    #[test]
    fn next_retran_gives_each_hole_below_the_highest_sack_once() {
        // ScoreBoardRQ with blocks [3,5) and [7,8) over packets 0..10,
        // h_seqno_ = 1 after MarkRetran(0): nexthole(1) = 1, then 2, then
        // the end of [3,5) = 5, 6; from 7 the hole after [7,8) is 8 with no
        // block above (fcnt -1): none.
        let mut sb = board(10);
        let mut r = RateAcc::default();
        sb.sack(301, 501, &mut r);
        sb.sack(701, 801, &mut r);
        let mut s = Sack1::default();
        s.enter(10, 3, 101);
        let mut got = vec![];
        while let Some(i) = s.next_retran(&sb, 1) {
            got.push(i);
            s.mark_retran(sb.get(i).end());
        }
        assert_eq!(got, vec![1, 2, 5, 6]);
        // A new SACK above the next hole makes it eligible: [9,10).
        sb.sack(901, 1001, &mut r);
        assert_eq!(s.next_retran(&sb, 1), Some(8));
        // Cleared, the scan starts again from snd_una.
        s.clear();
        assert_eq!(s.next_retran(&sb, 1), Some(0));
    }

    #[test]
    fn pipe_after_a_window_with_l_losses_stalls_from_l_w_over_2_plus_2() {
        // W = 32 outstanding, L lost first, no limited transmit: entry at the
        // 3rd dupack with pipe = 32 - 3 = 29, W - L - 3 more dupacks, then
        // the retransmission's partial ACK (-2): pipe = L - 2 against cwnd 16.
        for (l, stalls) in [(17u32, false), (18, true)] {
            let mut s = Sack1::default();
            s.enter(32, 3, 101);
            assert_eq!(s.pipe, 29);
            for _ in 0..(32 - l - 3) {
                s.on_ack();
            }
            assert_eq!(s.pipe, i64::from(l));
            s.on_ack();
            s.on_partial_ack();
            assert_eq!(s.may_send(16), !stalls, "L = {l}");
        }
    }

    #[test]
    fn limited_transmit_and_entry_window_follow_send_one_and_slowdown() {
        // t_seqno_ <= highest_ack_ + cwnd_ + dupacks_: with 10 out and cwnd
        // 10 the first dupack sends (11 <= 11), with 11 out the second (12 <=
        // 12), with 13 out the second does not.
        assert!(limited_transmit_ok(10, 10, 1));
        assert!(limited_transmit_ok(11, 10, 2));
        assert!(!limited_transmit_ok(13, 10, 2));
        // int(window()/2): 3 -> 1 (ssthresh_ 2), 4 -> ssthresh 2, 40 -> 20.
        assert_eq!(entry_cwnd(2, 3), 1);
        assert_eq!(entry_cwnd(2, 4), 2);
        assert_eq!(entry_cwnd(20, 40), 20);
    }
}
