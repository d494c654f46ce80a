//! FreeBSD's TCP host cache (`tcp_hostcache`): what a connection leaves
//! behind for the next one to the same host. Followed from FreeBSD 9.2's
//! sources (9.1-9.3 alike):
//!
//! - **Saving** (sys/netinet/tcp_subr.c `tcp_discardcb`, run when the
//!   connection's control block is freed: at TIME_WAIT or the last ACK):
//!   only after at least 4 RTT updates (`t_rttupdated >= 4`). ssthresh is
//!   saved only when a loss set it below half the send buffer
//!   (`snd_ssthresh < so_snd.sb_hiwat / 2`), converted from bytes to
//!   packets (rounded, at least 2) and then to bytes on the wire, packets x
//!   (MSS + 40); otherwise nothing is saved for it.
//! - **Merging** (tcp_hostcache.c `tcp_hc_update`): a value already cached
//!   is averaged with the new one, `(old + new) / 2`, integer division;
//!   an empty one takes the new value.
//! - **Use** (tcp_input.c `cc_conn_init`, when a connection is established):
//!   ssthresh = max(2 MSS, cached bytes).
//!
//! Not modelled: the cached srtt and rttvar, which `cc_conn_init` loads
//! into an opening connection before its SYN's RTT sample is taken (that
//! sample is then smoothed into them), so FreeBSD's first RTOs on a
//! connection start from the cache; and the save test's send buffer, which
//! is FreeBSD's auto-sized `sb_hiwat` (32 KiB growing to at most 2 MiB)
//! where tcplab has the host's `sndbuf`, so some ssthresh values FreeBSD
//! would not cache are cached here. Entries expire after an hour unused
//! (`net.inet.tcp.hostcache.expire`), longer than any run here.

/// A TCP/IP header without options (`sizeof(struct tcpiphdr)`), which the
/// cached ssthresh counts per packet.
pub const TCPIP_HEADER: u64 = 40;

/// What one destination's entry holds (the part tcplab models).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostCacheEntry {
    /// `rmx_ssthresh`: bytes on the wire, 0 when none was saved.
    pub ssthresh_bytes: u64,
    /// `rmx_updates`: connections that left metrics.
    pub updates: u32,
}

impl HostCacheEntry {
    /// `tcp_hc_update`: merge a closing connection's ssthresh (0: none).
    pub fn update(&mut self, ssthresh_bytes: u64) {
        self.updates += 1;
        if ssthresh_bytes != 0 {
            self.ssthresh_bytes = if self.ssthresh_bytes == 0 {
                ssthresh_bytes
            } else {
                (self.ssthresh_bytes + ssthresh_bytes) / 2
            };
        }
    }

    /// `cc_conn_init`: the ssthresh a new connection with segments of
    /// `mss` bytes starts with, in whole segments (None: nothing cached).
    pub fn initial_ssthresh(&self, mss: u32) -> Option<u32> {
        (self.ssthresh_bytes != 0 && mss > 0).then(|| {
            let mss = mss as u64;
            (self.ssthresh_bytes.max(2 * mss) / mss).min(u32::MAX as u64) as u32
        })
    }
}

/// `tcp_discardcb`: the ssthresh (bytes on the wire) a closing connection
/// saves, or 0: `ssthresh` in segments of `mss` bytes, the send buffer
/// `sndbuf` in bytes, after `rtt_updates` RTT samples.
pub fn saved_ssthresh(ssthresh: u32, mss: u32, sndbuf: u64, rtt_updates: u32) -> Option<u64> {
    if rtt_updates < 4 {
        return None; // nothing saved at all
    }
    let mss = mss as u64;
    let bytes = ssthresh as u64 * mss;
    if ssthresh == 0 || mss == 0 || bytes >= sndbuf / 2 {
        return Some(0);
    }
    let pkts = ((bytes + mss / 2) / mss).max(2);
    Some(pkts * (mss + TCPIP_HEADER))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loss_set_ssthresh_is_saved_as_packets_on_the_wire() {
        // 100 segments of 1448 B: 144800 B, below half a 4 MiB buffer; 100
        // packets x (1448 + 40) = 148800 B.
        assert_eq!(saved_ssthresh(100, 1448, 4 << 20, 4), Some(148_800));
        // At least two packets: 1 segment -> 2 x 1488.
        assert_eq!(saved_ssthresh(1, 1448, 4 << 20, 9), Some(2 * 1488));
    }

    #[test]
    fn nothing_is_saved_before_four_rtt_updates_and_no_ssthresh_without_a_loss() {
        assert_eq!(saved_ssthresh(100, 1448, 4 << 20, 3), None);
        // The initial ssthresh (no loss) is not below half the buffer.
        assert_eq!(saved_ssthresh(u32::MAX, 1448, 4 << 20, 50), Some(0));
        // 1449 segments of 1448 B = 2,098,152 B >= 2 MiB: not saved.
        assert_eq!(saved_ssthresh(1449, 1448, 4 << 20, 50), Some(0));
    }

    #[test]
    fn cached_values_are_averaged_and_used_as_at_least_two_segments() {
        let mut e = HostCacheEntry::default();
        assert_eq!(e.initial_ssthresh(1448), None);
        e.update(148_800);
        // 148800 / 1448 = 102.76: 102 whole segments.
        assert_eq!(e.initial_ssthresh(1448), Some(102));
        // (148800 + 29760) / 2 = 89280 -> 61.66: 61 segments.
        e.update(20 * 1488);
        assert_eq!(e.ssthresh_bytes, 89_280);
        assert_eq!(e.initial_ssthresh(1448), Some(61));
        // A connection without a loss leaves the value as it was.
        e.update(0);
        assert_eq!((e.ssthresh_bytes, e.updates), (89_280, 3));
        // max(2 MSS, cached): a tiny cached value gives 2 segments.
        let tiny = HostCacheEntry {
            ssthresh_bytes: 100,
            updates: 1,
        };
        assert_eq!(tiny.initial_ssthresh(1448), Some(2));
    }
}
