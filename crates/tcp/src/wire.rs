//! A segment as bytes on the wire: the IPv4 and TCP headers (options laid out
//! as Linux lays them, the layout `TcpHeader::options_len` counts), for packet
//! captures that Wireshark, tshark and tcptrace read as they read a real
//! trace. The data is not modelled: a capture holds the headers, and the
//! packet's length says how much data followed (as `tcpdump -s` with a short
//! snap length). Checksums are computed as if the data were zeros.
//!
//! Sequence numbers are written modulo 2^32 (tcplab's never wrap); timestamps
//! in milliseconds of simulated time (RFC 7323 leaves the clock's rate to the
//! sender; Linux uses 1 ms).

use crate::header::{TcpHeader, MAX_SACK_BLOCKS, SYN};

/// Addresses and ports of a segment's packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoints {
    /// Source IPv4 address.
    pub src_ip: [u8; 4],
    /// Destination IPv4 address.
    pub dst_ip: [u8; 4],
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
}

/// Option kinds (RFC 793, 7323, 2018).
const NOP: u8 = 1;
const MSS: u8 = 2;
const WSCALE: u8 = 3;
const SACK_PERM: u8 = 4;
const SACK: u8 = 5;
const TIMESTAMP: u8 = 8;

fn sum16(data: &[u8], mut acc: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u32) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// Set the checksum of the IPv4 header at the start of `ip` (RFC 791,
/// RFC 1071), over its IHL words, after a change to the header (a CE mark).
pub fn set_ipv4_checksum(ip: &mut [u8]) {
    let ihl = ((ip[0] & 0x0f) as usize) * 4;
    ip[10..12].fill(0);
    let c = fold(sum16(&ip[..ihl], 0));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
}

impl TcpHeader {
    /// Append the IPv4 and TCP headers of this segment, in a packet of
    /// `ip_len` bytes (its size on the wire: headers and data), to `out`;
    /// returns the bytes written.
    pub fn write_headers(&self, ep: &Endpoints, ip_len: u32, out: &mut Vec<u8>) -> usize {
        let start = out.len();
        let opt_len = self.options_len() as usize;
        let tcp_len = 20 + opt_len;
        // ns-2 agents' packets may be shorter than their headers as laid out.
        let ip_len = ip_len.max(20 + tcp_len as u32).min(65535);
        // IPv4 (RFC 791): version 4, IHL 5; the ECN field from the packet.
        out.extend_from_slice(&[0x45, self.ip_ecn as u8]);
        out.extend_from_slice(&(ip_len as u16).to_be_bytes());
        out.extend_from_slice(&[0, 0, 0x40, 0]); // id 0, DF
        out.extend_from_slice(&[64, 6, 0, 0]); // TTL 64, TCP, checksum below
        out.extend_from_slice(&ep.src_ip);
        out.extend_from_slice(&ep.dst_ip);
        let ip_sum = fold(sum16(&out[start..start + 20], 0));
        out[start + 10..start + 12].copy_from_slice(&ip_sum.to_be_bytes());
        // TCP (RFC 793).
        let t = out.len();
        out.extend_from_slice(&ep.src_port.to_be_bytes());
        out.extend_from_slice(&ep.dst_port.to_be_bytes());
        out.extend_from_slice(&(self.seq as u32).to_be_bytes());
        out.extend_from_slice(&(self.ack as u32).to_be_bytes());
        out.push(((tcp_len / 4) as u8) << 4);
        out.push(self.flags);
        out.extend_from_slice(&(self.wnd.min(65535) as u16).to_be_bytes());
        out.extend_from_slice(&[0, 0, 0, 0]); // checksum below, urgent pointer 0
        let ts = |v: u64| ((v / 1_000_000) as u32).to_be_bytes();
        if self.has(SYN) {
            if self.mss != 0 {
                out.extend_from_slice(&[MSS, 4]);
                out.extend_from_slice(&self.mss.to_be_bytes());
            }
            if self.has_ts {
                // Linux: SACKOK + TS in 12 bytes, or NOP NOP TS without SACK.
                if self.sack_perm {
                    out.extend_from_slice(&[SACK_PERM, 2, TIMESTAMP, 10]);
                } else {
                    out.extend_from_slice(&[NOP, NOP, TIMESTAMP, 10]);
                }
                out.extend_from_slice(&ts(self.tsval));
                out.extend_from_slice(&ts(self.tsecr));
            } else if self.sack_perm {
                out.extend_from_slice(&[NOP, NOP, SACK_PERM, 2]);
            }
            if let Some(ws) = self.wscale {
                out.extend_from_slice(&[NOP, WSCALE, 3, ws]);
            }
        } else if self.has_ts {
            out.extend_from_slice(&[NOP, NOP, TIMESTAMP, 10]);
            out.extend_from_slice(&ts(self.tsval));
            out.extend_from_slice(&ts(self.tsecr));
        }
        let n = (self.nsack as usize).min(MAX_SACK_BLOCKS);
        if n > 0 {
            out.extend_from_slice(&[NOP, NOP, SACK, 2 + 8 * n as u8]);
            for &(l, r) in &self.sack[..n] {
                out.extend_from_slice(&l.to_be_bytes());
                out.extend_from_slice(&r.to_be_bytes());
            }
        }
        debug_assert_eq!(out.len() - t, tcp_len, "options as options_len counts them");
        // Checksum over the pseudo-header and the segment, its data taken as zeros.
        let seg_len = ip_len as usize - 20;
        let mut acc = sum16(&ep.src_ip, 0);
        acc = sum16(&ep.dst_ip, acc);
        acc += 6 + seg_len as u32;
        acc = sum16(&out[t..], acc);
        let c = fold(acc);
        out[t + 16..t + 18].copy_from_slice(&c.to_be_bytes());
        out.len() - start
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::{ACK, SYN};

    const EP: Endpoints = Endpoints {
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 0, 2],
        src_port: 40000,
        dst_port: 5001,
    };

    /// RFC 1071: the ones' complement sum of a header with its checksum is 0xffff.
    #[test]
    fn an_ipv4_checksum_set_in_place_verifies() {
        // RFC 1071: a header with a correct checksum sums to 0xffff.
        let mut ip = [
            0x45, 0x02, 0x05, 0xdc, 0, 0, 0x40, 0, 64, 6, 0xab, 0xcd, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        set_ipv4_checksum(&mut ip);
        assert!(verifies(&ip, 0));
        ip[1] |= 3; // marked CE
        assert!(!verifies(&ip, 0));
        set_ipv4_checksum(&mut ip);
        assert!(verifies(&ip, 0));
    }

    fn verifies(bytes: &[u8], init: u32) -> bool {
        fold(sum16(bytes, init)) == 0
    }

    #[test]
    fn a_data_segment_has_rfc_headers_and_valid_checksums() {
        let h = TcpHeader {
            flags: ACK,
            seq: 1 + 5 * 1448,
            ack: 1,
            wnd: 501,
            payload: 1448,
            has_ts: true,
            tsval: 1_234_567_890,
            tsecr: 1_000_000_000,
            nsack: 1,
            sack: [(100, 200), (0, 0), (0, 0), (0, 0)],
            ..Default::default()
        };
        let mut out = vec![];
        let n = h.write_headers(&EP, h.wire_size(), &mut out);
        // 20 (IP) + 20 (TCP) + 12 (NOP NOP TS) + 12 (NOP NOP SACK, one block).
        assert_eq!(n, 64);
        assert_eq!(out[0], 0x45);
        assert_eq!(u16::from_be_bytes([out[2], out[3]]) as u32, h.wire_size());
        assert_eq!(out[9], 6);
        assert!(verifies(&out[..20], 0), "IP header checksum");
        assert_eq!(u16::from_be_bytes([out[20], out[21]]), 40000);
        assert_eq!(
            u32::from_be_bytes([out[24], out[25], out[26], out[27]]),
            7241
        );
        assert_eq!(out[32] >> 4, 11, "data offset: 44 bytes");
        assert_eq!(out[33], ACK);
        assert_eq!(&out[40..44], &[NOP, NOP, TIMESTAMP, 10]);
        assert_eq!(
            u32::from_be_bytes([out[44], out[45], out[46], out[47]]),
            1234,
            "TSval in ms"
        );
        assert_eq!(&out[52..56], &[NOP, NOP, SACK, 10]);
        assert_eq!(
            u32::from_be_bytes([out[56], out[57], out[58], out[59]]),
            100
        );
        // TCP checksum: pseudo-header (addresses, protocol, TCP length with
        // the 1448 zero bytes of data) plus the header.
        let mut pseudo = 0u32;
        pseudo = sum16(&EP.src_ip, pseudo);
        pseudo = sum16(&EP.dst_ip, pseudo);
        pseudo += 6 + (44 + 1448);
        assert!(verifies(&out[20..], pseudo), "TCP checksum");
    }

    #[test]
    fn a_syn_carries_mss_sackok_timestamps_and_window_scale_as_linux_lays_them() {
        let syn = TcpHeader {
            flags: SYN,
            mss: 1460,
            sack_perm: true,
            has_ts: true,
            wscale: Some(7),
            wnd: 65535,
            ..Default::default()
        };
        let mut out = vec![];
        assert_eq!(syn.write_headers(&EP, syn.wire_size(), &mut out), 60);
        assert_eq!(&out[40..44], &[MSS, 4, 0x05, 0xb4]);
        assert_eq!(&out[44..48], &[SACK_PERM, 2, TIMESTAMP, 10]);
        assert_eq!(&out[56..60], &[NOP, WSCALE, 3, 7]);
    }
}
