//! RFC 6675 SACK-based loss recovery: what the scoreboard does not hold
//! itself (IsLost and the pipe are `Scoreboard::mark_lost` and
//! `Scoreboard::in_flight`). NextSeg's rule 3: in recovery, with nothing
//! deemed lost left to resend and no new data the window allows, resend the
//! first segment below the highest SACKed one that is neither SACKed nor
//! ever retransmitted.

use crate::scoreboard::{Scoreboard, EVER_RETRANS, RETRANS, SACKED};

/// RFC 6675 NextSeg (3) from scan point `from` (segments below it were
/// examined in this episode and never become candidates again: flags only
/// accumulate, so the scan is amortised O(1)). Returns the segment to resend,
/// if any, and the next scan point (`snd_max` when the scoreboard ran out).
pub fn next_seg_rule3(
    sb: &Scoreboard,
    from: u64,
    snd_una: u64,
    snd_max: u64,
) -> (Option<usize>, u64) {
    let hs = sb.high_sacked;
    let first = sb.index_of(from.max(snd_una)).unwrap_or(sb.len());
    for i in first..sb.len() {
        let s = sb.get(i);
        if s.start >= hs {
            return (None, s.start);
        }
        if s.flags & (SACKED | RETRANS | EVER_RETRANS) == 0 {
            return (Some(i), s.end());
        }
    }
    (None, snd_max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoreboard::{test_board, RateAcc, TxSnap};
    use tcplab_engine::SimTime;

    #[test]
    fn rule3_resends_each_unsacked_hole_below_the_highest_sack_once() {
        // RFC 6675 5: segments 0..9 (100 bytes each from 1), SACKed 3-4 and
        // 7: holes 0-2 and 5-6 lie below the highest SACK (8); 2 was
        // retransmitted already.
        let mut sb = test_board(10);
        let mut r = RateAcc::default();
        sb.sack(301, 501, &mut r);
        sb.sack(701, 801, &mut r);
        sb.retransmitted(2, SimTime::ZERO, TxSnap::default());
        let (snd_una, snd_max) = (1, 1001);
        let mut from = snd_una;
        let mut resent = vec![];
        loop {
            let (i, next) = next_seg_rule3(&sb, from, snd_una, snd_max);
            from = next;
            match i {
                Some(i) => {
                    resent.push(i);
                    sb.retransmitted(i, SimTime::ZERO, TxSnap::default());
                }
                None => break,
            }
        }
        assert_eq!(resent, vec![0, 1, 5, 6]);
        assert_eq!(from, 801, "the scan stops at the highest SACKed segment");
    }
}
