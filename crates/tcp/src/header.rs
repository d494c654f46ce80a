//! The TCP segment as it travels: flags, sequence numbers (64-bit, never
//! wrapping: a deliberate deviation that removes wrap-around arithmetic without
//! changing behaviour below 4 GiB per connection), window, and options
//! (MSS, window scale, SACK-permitted on SYNs; timestamps; SACK blocks).
//!
//! The header also carries the IP ECN codepoint of the packet that carries it
//! (`ip_ecn`), as Linux keeps the IP DS field beside each segment
//! (`TCP_SKB_CB(skb)->ip_dsfield`): the sender sets it, the world copies it into
//! the packet's IP field and, on delivery, back from the IP field (where a queue
//! may have marked it CE).
//!
//! Sizes follow the wire format: 20 bytes of IP and 20 of TCP header, options
//! padded to 4 bytes as Linux lays them out (RFC 793, 2018, 7323). Segments of
//! ns-2 one-way agents (`ns2_sizes`) have ns-2's sizes instead (ns-2 2.28
//! tcp.cc `headersize`, `output`; tcp-sink.cc `Sacker::append_ack`): data
//! `packetSize_` + `tcpip_base_hdr_size_` 40 (+ `ts_option_size_` 10 with
//! timestamps), the SYN 40, ACKs the sink's `packetSize_` 40 + 8 per SACK block.

use tcplab_net::Ecn;

/// SYN flag.
pub const SYN: u8 = 0x02;
/// PSH flag: the end of an application write (`push`).
pub const PSH: u8 = 0x08;
/// ACK flag.
pub const ACK: u8 = 0x10;
/// FIN flag.
pub const FIN: u8 = 0x01;
/// ECN-Echo flag (RFC 3168 section 6.1).
pub const ECE: u8 = 0x40;
/// Congestion Window Reduced flag (RFC 3168 section 6.1).
pub const CWR: u8 = 0x80;

/// IPv4 + TCP header bytes without options.
pub const BASE_HEADER: u32 = 40;
/// Timestamp option with its two NOPs (RFC 7323 Appendix A layout).
pub const TS_OPTION: u32 = 12;
/// ns-2 `tcpip_base_hdr_size_` (ns-default.tcl): IP + TCP header of every packet.
pub const NS2_BASE_HEADER: u32 = 40;
/// ns-2 `ts_option_size_` (ns-default.tcl): added to data packets with timestamps.
pub const NS2_TS_OPTION: u32 = 10;
/// ns-2 sink: each SACK block adds 8 bytes to the ACK (tcp-sink.cc `append_ack`).
pub const NS2_SACK_BLOCK: u32 = 8;
/// At most this many SACK blocks fit in 40 option bytes without timestamps; 3 with.
pub const MAX_SACK_BLOCKS: usize = 4;

/// A TCP segment header with its options. `payload` is the number of data bytes
/// carried (the data itself is not modelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TcpHeader {
    /// SYN/ACK/FIN/ECE/CWR bits.
    pub flags: u8,
    /// Sequence number of the first byte (or of the SYN/FIN).
    pub seq: u64,
    /// Cumulative acknowledgement (valid with ACK).
    pub ack: u64,
    /// Window field as sent: already shifted right by the sender's window scale
    /// (except on SYNs), at most 65535.
    pub wnd: u32,
    /// Data bytes carried.
    pub payload: u32,
    /// MSS option (SYN only; 0 = absent).
    pub mss: u16,
    /// Window-scale option shift (SYN only; `None` = absent).
    pub wscale: Option<u8>,
    /// SACK-permitted option (SYN only).
    pub sack_perm: bool,
    /// Timestamps option present.
    pub has_ts: bool,
    /// TSval (sender clock, nanoseconds; real stacks use a coarser clock).
    pub tsval: u64,
    /// TSecr.
    pub tsecr: u64,
    /// Number of SACK blocks used.
    pub nsack: u8,
    /// SACK blocks `[left, right)`, most recent first (RFC 2018), as the
    /// wire carries them: the low 32 bits of each edge (`set_sack`).
    /// `sack_block` reads an edge back as the one within 2^31 of the
    /// cumulative ACK (RFC 7323's sequence arithmetic). Exact for flights
    /// below 2 GiB: with window scaling every edge lies within the receive
    /// window of the ACK (below 2^30 bytes above it, the window field being
    /// 16 bits scaled by at most 14) or, for a D-SACK, a segment below it
    /// that the sender sent within a window of it; ns-2's one-way agents
    /// have no receive window, only their `window` (debug builds check).
    /// Half the size of 64-bit edges: a packet is 128 bytes, not 160.
    pub sack: [(u32, u32); MAX_SACK_BLOCKS],
    /// The IP ECN field of the packet carrying the segment (see the module header).
    pub ip_ecn: Ecn,
    /// Sent by an ns-2 one-way agent or sink: ns-2's packet sizes (module header).
    pub ns2_sizes: bool,
    /// The segment is a retransmission. Simulator bookkeeping, not a header
    /// field: it lets the model say which dropped packets were retransmissions.
    pub retrans: bool,
    /// The sender's cwnd (segments) when it sent this segment, and whether it
    /// was in slow start then. Simulator bookkeeping, as `retrans`.
    pub tx_cwnd: u32,
    /// See `tx_cwnd`.
    pub tx_in_ss: bool,
    /// The retransmission a timeout sends first (simulator bookkeeping, as
    /// `retrans`): the receiver counts it spurious if it already had the data.
    pub rto_retx: bool,
}

impl TcpHeader {
    /// Whether a flag is set.
    #[inline]
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    /// Sequence space the segment occupies (data + SYN + FIN).
    #[inline]
    pub fn seq_len(&self) -> u64 {
        self.payload as u64 + self.has(SYN) as u64 + self.has(FIN) as u64
    }
    /// SACK block `i` (below `nsack`), its edges read against `ack`.
    #[inline]
    pub fn sack_block(&self, i: usize) -> (u64, u64) {
        let (l, r) = self.sack[i];
        (self.unwrap_seq(l), self.unwrap_seq(r))
    }
    /// The SACK blocks carried, most recent first (for inspection and tests;
    /// the sender reads them with `sack_block`).
    pub fn sack_blocks(&self) -> Vec<(u64, u64)> {
        (0..(self.nsack as usize).min(MAX_SACK_BLOCKS))
            .map(|i| self.sack_block(i))
            .collect()
    }
    /// Set SACK block `i` (`nsack` is set apart), after `ack`.
    #[inline]
    pub fn set_sack(&mut self, i: usize, (l, r): (u64, u64)) {
        debug_assert!(
            l.abs_diff(self.ack) < 1 << 31 && r.abs_diff(self.ack) < 1 << 31,
            "SACK block ({l}, {r}) more than 2 GiB from the ACK {}",
            self.ack
        );
        self.sack[i] = (l as u32, r as u32);
    }
    /// The sequence number whose low 32 bits are `v` nearest to `ack`.
    #[inline]
    fn unwrap_seq(&self, v: u32) -> u64 {
        let d = v.wrapping_sub(self.ack as u32) as i32;
        self.ack.wrapping_add_signed(d as i64)
    }
    /// Bytes of options, padded as Linux pads them.
    pub fn options_len(&self) -> u32 {
        let mut n = 0;
        if self.has(SYN) {
            if self.mss != 0 {
                n += 4;
            }
            // Linux: SACKOK+TS share 12 bytes; TS alone 12 (NOP NOP TS);
            // SACKOK alone 4 (NOP NOP SACKOK); WS 4 (NOP WS).
            if self.has_ts {
                n += 12;
            } else if self.sack_perm {
                n += 4;
            }
            if self.wscale.is_some() {
                n += 4;
            }
        } else if self.has_ts {
            n += TS_OPTION;
        }
        if self.nsack > 0 {
            n += 4 + 8 * self.nsack as u32;
        }
        debug_assert!(n <= 40, "options exceed 40 bytes: {n}");
        n
    }
    /// Size of the IP packet carrying this segment.
    #[inline]
    pub fn wire_size(&self) -> u32 {
        if self.ns2_sizes {
            return self.ns2_wire_size();
        }
        BASE_HEADER + self.options_len() + self.payload
    }
    /// ns-2's size: data packets `headersize()` + payload, the SYN and ACKs
    /// 40 bytes, ACKs 8 more per SACK block.
    fn ns2_wire_size(&self) -> u32 {
        let ts = if self.has_ts && self.payload > 0 {
            NS2_TS_OPTION
        } else {
            0
        };
        NS2_BASE_HEADER + ts + self.payload + NS2_SACK_BLOCK * self.nsack as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_edges_read_back_against_the_ack_across_32_bit_wraps() {
        // The connection's 64-bit sequence numbers past 2^32 (4 GiB sent): the
        // wire keeps the low 32 bits, read back as the value within 2^31 of
        // the ACK, as a real TCP reads them (RFC 7323 sequence arithmetic).
        let ack = (5u64 << 32) - 1000; // 1000 bytes below the fifth wrap
        let mut h = TcpHeader {
            flags: ACK,
            ack,
            nsack: 3,
            ..Default::default()
        };
        let above = (ack + 2000, ack + 3448); // across the wrap
        let dsack = (ack - 1448, ack); // below the ACK: a D-SACK
        let far = (ack + (1 << 30), ack + (1 << 30) + 1448); // a 1 GiB window's end
        h.set_sack(0, dsack);
        h.set_sack(1, above);
        h.set_sack(2, far);
        assert_eq!(h.sack[1], (1000, 2448), "the low 32 bits, as on the wire");
        assert_eq!(h.sack_blocks(), vec![dsack, above, far]);
    }

    #[test]
    fn a_packet_is_two_cache_lines() {
        // Packets are copied into the pool and read at every delivery: 32-bit
        // SACK edges keep one at 128 bytes (160 with 64-bit ones).
        assert!(std::mem::size_of::<TcpHeader>() <= 96);
        assert_eq!(std::mem::size_of::<tcplab_net::Packet<TcpHeader>>(), 128);
        assert_eq!(std::mem::align_of::<tcplab_net::Packet<TcpHeader>>(), 64);
    }

    #[test]
    fn a_full_data_segment_with_timestamps_is_a_1500_byte_packet() {
        // MSS option 1460 = 1500 - 40; with timestamps 12 bytes go to options: 1448 of data.
        let h = TcpHeader {
            flags: ACK,
            payload: 1448,
            has_ts: true,
            ..Default::default()
        };
        assert_eq!(h.wire_size(), 1500);
    }

    #[test]
    fn ack_sizes_follow_the_option_layout() {
        let mut h = TcpHeader {
            flags: ACK,
            ..Default::default()
        };
        assert_eq!(h.wire_size(), 40);
        h.has_ts = true;
        assert_eq!(h.wire_size(), 52);
        h.nsack = 3; // 12 + 2 NOP + 2 + 24 = 40 bytes of options: the maximum
        assert_eq!(h.wire_size(), 80);
        let syn = TcpHeader {
            flags: SYN,
            mss: 1460,
            sack_perm: true,
            has_ts: true,
            wscale: Some(7),
            ..Default::default()
        };
        // Linux SYN: MSS(4) + SACKOK/TS(12) + NOP/WS(4) = 20 bytes of options.
        assert_eq!(syn.wire_size(), 60);
    }

    #[test]
    fn ns2_sizes_follow_ns2_agents_and_sinks() {
        // ns-2 2.28: packetSize_ 1460 + tcpip_base_hdr_size_ 40 = 1500 bytes;
        // with timestamps_ the header grows by ts_option_size_ 10 to 1510.
        let mut d = TcpHeader {
            flags: ACK,
            payload: 1460,
            ns2_sizes: true,
            ..Default::default()
        };
        assert_eq!(d.wire_size(), 1500);
        d.has_ts = true;
        assert_eq!(d.wire_size(), 1510);
        // The sink's ACK: packetSize_ 40, timestamps or not; 8 per SACK block
        // (3 blocks: 40 + 24 = 64, where the option layout would give 40 + 28 = 68).
        let mut a = TcpHeader {
            flags: ACK,
            has_ts: true,
            ns2_sizes: true,
            ..Default::default()
        };
        assert_eq!(a.wire_size(), 40);
        a.has_ts = false;
        a.nsack = 3;
        assert_eq!(a.wire_size(), 64);
        // The syn_ packet: tcpip_base_hdr_size_ alone.
        let syn = TcpHeader {
            flags: SYN,
            ns2_sizes: true,
            ..Default::default()
        };
        assert_eq!(syn.wire_size(), 40);
    }

    #[test]
    fn syn_and_fin_take_one_sequence_number() {
        let h = TcpHeader {
            flags: SYN | ACK,
            ..Default::default()
        };
        assert_eq!(h.seq_len(), 1);
        let h = TcpHeader {
            flags: FIN | ACK,
            payload: 100,
            ..Default::default()
        };
        assert_eq!(h.seq_len(), 101);
    }
}
