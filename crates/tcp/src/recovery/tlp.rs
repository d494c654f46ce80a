//! The tail loss probe (RFC 8985 section 7) as Linux 6.x does it
//! (net/ipv4/tcp_output.c `tcp_schedule_loss_probe`, `tcp_send_loss_probe`;
//! tcp_input.c `tcp_process_tlp_ack`, `tcp_dsack_seen`'s `FLAG_DSACK_TLP`;
//! v6.12, docs/dev/linux-tcp/rack-tlp.md section 5). This module holds the
//! probe episode and its arithmetic; the sender owns the timer slot the
//! probe shares with RACK and the RTO, and sends the probe.

use tcplab_engine::SimTime;

/// The probe episode of one connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tlp {
    /// snd_max when the probe was sent; 0: no probe outstanding (Linux
    /// `tlp_high_seq`).
    pub high_seq: u64,
    /// The probe resent old data rather than sending new (`tlp_retrans`).
    pub retrans: bool,
}

/// What an ACK means for the probe episode (`tcp_process_tlp_ack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlpAck {
    /// Nothing: no episode, or it goes on.
    Nothing,
    /// The episode ended without a loss.
    Ended,
    /// The probe repaired a loss: the episode ended and the window comes
    /// down once (CWR, at once to ssthresh).
    Repaired,
}

impl Tlp {
    /// A probe episode is under way: no other probe until it ends.
    pub fn outstanding(&self) -> bool {
        self.high_seq != 0
    }

    /// A probe was sent with `snd_max` as the highest sequence out;
    /// `retrans`: it resent the last segment.
    pub fn sent(&mut self, snd_max: u64, retrans: bool) {
        self.high_seq = snd_max;
        self.retrans = retrans;
    }

    /// A recovery, a timeout or an ECN reduction ends any episode
    /// (`tcp_init_cwnd_reduction`, `tcp_enter_loss`).
    pub fn end(&mut self) {
        self.high_seq = 0;
    }

    /// A resent probe still outstanding: Linux's `tcp_init_undo` counts it
    /// as a retransmission of the episode that starts now.
    pub fn resent_outstanding(&self) -> bool {
        self.outstanding() && self.retrans
    }

    /// Whether the first SACK block `(left, right)` of an ACK is a D-SACK
    /// of exactly the probe (`FLAG_DSACK_TLP`: a duplicate of at most one
    /// segment `mss` ending at the probe's `high_seq`), `dsack` telling that
    /// the block is a D-SACK.
    pub fn dsack_of_probe(&self, dsack: bool, left: u64, right: u64, mss: u32) -> bool {
        self.outstanding() && dsack && right - left <= mss as u64 && right == self.high_seq
    }

    /// `tcp_process_tlp_ack` for an ACK of `ack`; `advanced`: it moved
    /// snd_una; `sacked`: it SACKed new data; `dsack_probe`: it D-SACKed the
    /// probe. An ACK exactly at the probe leaves the episode open (Linux).
    pub fn on_ack(&mut self, ack: u64, advanced: bool, sacked: bool, dsack_probe: bool) -> TlpAck {
        if !self.outstanding() || ack < self.high_seq {
            return TlpAck::Nothing;
        }
        if !self.retrans || dsack_probe {
            self.high_seq = 0;
            TlpAck::Ended
        } else if ack > self.high_seq {
            self.high_seq = 0;
            TlpAck::Repaired
        } else if !(advanced || sacked) {
            // A pure duplicate: both the original and the probe arrived.
            self.high_seq = 0;
            TlpAck::Ended
        } else {
            TlpAck::Nothing
        }
    }
}

/// `tcp_schedule_loss_probe`'s timeout: 2 SRTT plus 2 ms, or plus the
/// minimum RTO (`min_rto`, room for a delayed ACK) when a single segment is
/// out (`lone`), rounded up to the timer tick; 1 s (`initial`) without an
/// RTT sample; never past the RTO (`rto_left`, when it is still ahead).
pub fn pto(
    srtt: Option<SimTime>,
    lone: bool,
    min_rto: SimTime,
    initial: SimTime,
    rto_left: Option<SimTime>,
    tick: SimTime,
) -> SimTime {
    let ceil = |d: SimTime| super::ceil_tick(d, tick);
    let t = match srtt {
        Some(s) => {
            let extra = if lone {
                min_rto
            } else {
                SimTime::from_micros(2000)
            };
            ceil(SimTime(2 * s.0) + extra)
        }
        None => initial,
    };
    match rto_left {
        Some(left) => t.min(ceil(left)),
        None => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn the_pto_is_two_srtt_plus_2_ms_or_plus_the_min_rto_for_a_lone_segment() {
        // rack-tlp.md 7.2 (HZ 1000): SRTT 100 ms, RTO 300 ms: 202 ms with
        // several segments out; a lone segment: min(400, 300) = 300 ms, the
        // probe clamped to the RTO (packetdrill cubic-rto-ss-ca-cwnd-bump).
        let (min_rto, init, tick) = (ms(200), ms(1000), ms(1));
        assert_eq!(
            pto(Some(ms(100)), false, min_rto, init, Some(ms(291)), tick),
            ms(202)
        );
        assert_eq!(
            pto(Some(ms(100)), true, min_rto, init, Some(ms(300)), tick),
            ms(300)
        );
        // HZ 250: 202 ms rounds up to 204.
        assert_eq!(
            pto(Some(ms(100)), false, min_rto, init, None, ms(4)),
            ms(204)
        );
        // No RTT sample: TCP_TIMEOUT_INIT.
        assert_eq!(
            pto(None, false, min_rto, init, Some(ms(3000)), tick),
            ms(1000)
        );
    }

    #[test]
    fn an_ack_past_a_resent_probe_means_it_repaired_a_loss() {
        // rack-tlp.md 5.3, "only S10 lost": the ACK at the probe leaves the
        // episode open; the next one beyond it reduces the window once.
        let mut t = Tlp::default();
        t.sent(10_000, true);
        assert!(t.resent_outstanding());
        assert_eq!(t.on_ack(9_000, false, true, false), TlpAck::Nothing);
        assert_eq!(t.on_ack(10_000, true, false, false), TlpAck::Nothing);
        assert!(t.outstanding());
        assert_eq!(t.on_ack(11_000, true, false, false), TlpAck::Repaired);
        assert!(!t.outstanding());
    }

    #[test]
    fn a_dsack_of_the_probe_or_a_new_data_probe_ends_the_episode_quietly() {
        let mut t = Tlp::default();
        t.sent(10_000, true);
        assert!(t.dsack_of_probe(true, 8_552, 10_000, 1448));
        assert!(
            !t.dsack_of_probe(true, 7_104, 10_000, 1448),
            "longer than a segment"
        );
        assert!(
            !t.dsack_of_probe(false, 8_552, 10_000, 1448),
            "not a D-SACK"
        );
        assert_eq!(t.on_ack(11_000, true, false, true), TlpAck::Ended);
        let mut n = Tlp::default();
        n.sent(10_000, false);
        assert_eq!(n.on_ack(10_000, true, false, false), TlpAck::Ended);
        // A pure duplicate at the probe: both copies arrived.
        let mut d = Tlp::default();
        d.sent(10_000, true);
        assert_eq!(d.on_ack(10_000, false, false, false), TlpAck::Ended);
    }
}
