//! D-SACK accounting for undoing a spurious reduction, as Linux 6.x
//! (net/ipv4/tcp_input.c `tcp_init_undo`, `tcp_check_dsack`,
//! `tcp_sacktag_one`, `tcp_try_undo_dsack`, `tcp_may_undo`; tcp_output.c
//! `tcp_retransmit_skb`; docs/dev/linux-tcp/prr-frto-undo.md 3.3-3.5): an
//! episode counts its retransmissions, each D-SACK reporting one of them
//! needless takes one off, and at zero every retransmission was needless:
//! the reduction was spurious. The sender restores the window.

/// Linux `undo_retrans` and the sequence number the episode began at
/// (`undo_marker`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UndoRetrans {
    /// Retransmissions not shown needless yet; -1: none made.
    count: i32,
    /// snd_una when the episode began.
    point: u64,
}

impl Default for UndoRetrans {
    fn default() -> Self {
        UndoRetrans {
            count: -1,
            point: 0,
        }
    }
}

impl UndoRetrans {
    /// `tcp_init_undo` at snd_una `snd_una`, with `in_flight` retransmissions
    /// already out (and a resent loss probe outstanding, `probe`).
    pub fn start(snd_una: u64, in_flight: u32, probe: bool) -> UndoRetrans {
        UndoRetrans {
            count: match in_flight as i32 + probe as i32 {
                0 => -1,
                n => n,
            },
            point: snd_una,
        }
    }

    /// `tcp_retransmit_skb`: one more retransmission in the episode.
    pub fn retransmitted(&mut self) {
        self.count = self.count.max(0) + 1;
    }

    /// A D-SACK block `[left, right)`: below snd_una (`snd_una`), the
    /// segments it spans (`mss` each) if it lies above the episode's start;
    /// above, `covered` (the retransmitted segments it covers ending past
    /// the start, counted by the caller on its scoreboard).
    pub fn dsack(&mut self, left: u64, right: u64, snd_una: u64, mss: u32, covered: u32) {
        if self.count <= 0 {
            return;
        }
        let n = if right <= snd_una {
            if right > self.point {
                (right - left).div_ceil(mss.max(1) as u64) as i32
            } else {
                0
            }
        } else {
            covered as i32
        };
        self.count = (self.count - n).max(0);
    }

    /// Every retransmission of the episode was reported needless.
    pub fn all_needless(&self) -> bool {
        self.count == 0
    }

    /// snd_una when the episode began.
    pub fn point(&self) -> u64 {
        self.point
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_dsack_per_retransmission_makes_the_episode_spurious() {
        // prr-frto-undo.md 3.5: recovery at snd_una 1 resends P1 (count 1);
        // the original arrives, then the D-SACK of P1 (below snd_una, above
        // the start): 0, spurious.
        let mut u = UndoRetrans::start(1, 0, false);
        assert!(!u.all_needless(), "-1: nothing retransmitted yet");
        u.retransmitted();
        u.dsack(1, 1449, 5793, 1448, 0);
        assert!(u.all_needless());
    }

    #[test]
    fn dsacks_of_older_data_or_fewer_than_the_retransmissions_do_not_undo() {
        let mut u = UndoRetrans::start(10_000, 0, false);
        u.retransmitted();
        u.retransmitted();
        // A duplicate from before the episode: not one of its retransmissions.
        u.dsack(5_000, 6_448, 20_000, 1448, 0);
        // One of the two retransmissions reported.
        u.dsack(10_000, 11_448, 20_000, 1448, 0);
        assert!(!u.all_needless());
        // The other, still above snd_una (the caller counted it covered).
        u.dsack(21_000, 22_448, 20_000, 1448, 1);
        assert!(u.all_needless());
    }

    #[test]
    fn a_resent_probe_counts_as_a_retransmission_of_the_episode() {
        // tcp_init_undo: undo_retrans = retrans_out + 1 for the probe.
        let mut u = UndoRetrans::start(1, 0, true);
        u.dsack(1, 1449, 2897, 1448, 0);
        assert!(u.all_needless());
    }
}
