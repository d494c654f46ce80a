//! The fields of Linux's `struct tcp_info` (include/uapi/linux/tcp.h, as of
//! Linux 6.7, which added `tcpi_total_rto`) that the backend reads, at their
//! byte offsets. Older kernels return a shorter structure: the fields they
//! lack read as zero.

use tcplab_tcp::cc::CcModel;

/// What a sender's socket says of itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpInfo {
    /// `tcpi_state` (1: established).
    pub state: u8,
    /// `tcpi_ca_state`: 0 open, 1 disorder, 2 CWR, 3 recovery, 4 loss.
    pub ca_state: u8,
    /// `tcpi_backoff`: the RTO's current exponent.
    pub backoff: u8,
    /// `tcpi_options`: 1 timestamps, 2 SACK, 4 window scaling, 8 ECN.
    pub options: u8,
    /// `tcpi_rto`, microseconds.
    pub rto_us: u32,
    /// `tcpi_snd_mss`: payload bytes of a full segment.
    pub snd_mss: u32,
    /// `tcpi_unacked`, `tcpi_sacked`, `tcpi_lost`, `tcpi_retrans`: segments.
    pub unacked: u32,
    /// SACKed segments.
    pub sacked: u32,
    /// Segments marked lost.
    pub lost: u32,
    /// Retransmitted segments in flight.
    pub retrans: u32,
    /// `tcpi_rtt`: smoothed RTT, microseconds.
    pub rtt_us: u32,
    /// `tcpi_rttvar`, microseconds.
    pub rttvar_us: u32,
    /// `tcpi_snd_ssthresh`, segments (0x7fffffff: infinite).
    pub ssthresh: u32,
    /// `tcpi_snd_cwnd`, segments.
    pub cwnd: u32,
    /// `tcpi_total_retrans`: segments retransmitted over the connection.
    pub total_retrans: u32,
    /// `tcpi_pacing_rate`, bytes per second (`u64::MAX`: not paced).
    pub pacing_rate: u64,
    /// `tcpi_bytes_acked`.
    pub bytes_acked: u64,
    /// `tcpi_data_segs_out`: data segments sent, retransmissions included.
    pub data_segs_out: u32,
    /// `tcpi_total_rto`: retransmission timeouts, SYN's included (6.7+).
    pub total_rto: u16,
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

impl TcpInfo {
    /// Decode the raw structure.
    pub fn parse(b: &[u8; crate::sys::TCP_INFO_LEN]) -> TcpInfo {
        let mut u64b = [0u8; 8];
        u64b.copy_from_slice(&b[120..128]);
        TcpInfo {
            state: b[0],
            ca_state: b[1],
            backoff: b[4],
            options: b[5],
            rto_us: u32_at(b, 8),
            snd_mss: u32_at(b, 16),
            unacked: u32_at(b, 24),
            sacked: u32_at(b, 28),
            lost: u32_at(b, 32),
            retrans: u32_at(b, 36),
            rtt_us: u32_at(b, 68),
            rttvar_us: u32_at(b, 72),
            ssthresh: u32_at(b, 76),
            cwnd: u32_at(b, 80),
            total_retrans: u32_at(b, 100),
            pacing_rate: u64::from_ne_bytes(b[104..112].try_into().expect("8 bytes")),
            bytes_acked: u64::from_ne_bytes(u64b),
            data_segs_out: u32_at(b, 156),
            total_rto: u16::from_ne_bytes([b[240], b[241]]),
        }
    }
    /// Segments in flight, as `tcp_packets_in_flight`: unacked - (sacked +
    /// lost) + retrans.
    pub fn in_flight(&self) -> u32 {
        (self.unacked + self.retrans).saturating_sub(self.sacked + self.lost)
    }
    /// Whether timestamps were negotiated.
    pub fn timestamps(&self) -> bool {
        self.options & 1 != 0
    }
    /// Whether ECN was negotiated.
    pub fn ecn(&self) -> bool {
        self.options & 8 != 0
    }
}

/// Decode Linux's `struct tcp_bbr_info` (`TCP_CC_INFO` of a BBR socket,
/// `bbr_get_info`) into the simulator's model of the same fields:
/// `bbr_bw_lo | bbr_bw_hi << 32` (bytes per second), `bbr_min_rtt` (µs),
/// `bbr_pacing_gain` and `bbr_cwnd_gain` (1/256). `None` unless the kernel
/// returned all of it.
pub fn parse_bbr_info(len: usize, b: &[u8; crate::sys::TCP_CC_INFO_LEN]) -> Option<CcModel> {
    if len < crate::sys::TCP_CC_INFO_LEN {
        return None;
    }
    Some(CcModel {
        bw: u32_at(b, 0) as u64 | (u32_at(b, 4) as u64) << 32,
        min_rtt_us: u32_at(b, 8),
        pacing_gain: u32_at(b, 12),
        cwnd_gain: u32_at(b, 16),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_at_the_offsets_of_the_uapi_header() {
        // Offsets counted by hand from include/uapi/linux/tcp.h: eight u8,
        // then u32 from tcpi_rto at 8 (rto 8, ato 12, snd_mss 16, rcv_mss 20,
        // unacked 24, sacked 28, lost 32, retrans 36, fackets 40, four times
        // 44-56, pmtu 60, rcv_ssthresh 64, rtt 68, rttvar 72, snd_ssthresh 76,
        // snd_cwnd 80, advmss 84, reordering 88, rcv_rtt 92, rcv_space 96,
        // total_retrans 100), u64 pacing 104, max_pacing 112, bytes_acked
        // 120, bytes_received 128, u32 segs_out 136, segs_in 140, notsent
        // 144, min_rtt 148, data_segs_in 152, data_segs_out 156, u64 from
        // 160 to 184, u32 delivered 192, delivered_ce 196, u64 200 and 208,
        // u32 dsack_dups 216 to rehash 236, u16 total_rto 240.
        let mut b = [0u8; crate::sys::TCP_INFO_LEN];
        b[1] = 3;
        b[5] = 1 | 2 | 8;
        b[8..12].copy_from_slice(&204_000u32.to_ne_bytes());
        b[68..72].copy_from_slice(&94_500u32.to_ne_bytes());
        b[80..84].copy_from_slice(&57u32.to_ne_bytes());
        b[100..104].copy_from_slice(&12u32.to_ne_bytes());
        b[120..128].copy_from_slice(&123_456_789u64.to_ne_bytes());
        b[156..160].copy_from_slice(&9_999u32.to_ne_bytes());
        b[240..242].copy_from_slice(&3u16.to_ne_bytes());
        let t = TcpInfo::parse(&b);
        assert_eq!(t.ca_state, 3);
        assert!(t.timestamps() && t.ecn());
        assert_eq!(t.rto_us, 204_000);
        assert_eq!(t.rtt_us, 94_500);
        assert_eq!(t.cwnd, 57);
        assert_eq!(t.total_retrans, 12);
        assert_eq!(t.bytes_acked, 123_456_789);
        assert_eq!(t.data_segs_out, 9_999);
        assert_eq!(t.total_rto, 3);
    }

    #[test]
    fn bbr_info_is_five_u32_of_the_uapi_header_or_nothing() {
        // struct tcp_bbr_info: bbr_bw_lo 0, bbr_bw_hi 4, bbr_min_rtt 8,
        // bbr_pacing_gain 12, bbr_cwnd_gain 16.
        let mut b = [0u8; crate::sys::TCP_CC_INFO_LEN];
        b[0..4].copy_from_slice(&5u32.to_ne_bytes());
        b[4..8].copy_from_slice(&1u32.to_ne_bytes());
        b[8..12].copy_from_slice(&26_123u32.to_ne_bytes());
        b[12..16].copy_from_slice(&320u32.to_ne_bytes());
        b[16..20].copy_from_slice(&512u32.to_ne_bytes());
        let i = parse_bbr_info(20, &b).expect("a whole structure");
        assert_eq!(i.bw, (1u64 << 32) + 5);
        assert_eq!(
            (i.min_rtt_us, i.pacing_gain, i.cwnd_gain),
            (26_123, 320, 512)
        );
        // Reno and Cubic have no get_info: the kernel returns nothing.
        assert_eq!(parse_bbr_info(0, &b), None);
    }
}
