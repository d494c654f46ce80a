//! Packet captures: every packet a captured link starts to transmit, as a
//! pcap file (nanosecond timestamps of simulated time, Ethernet frames) that
//! Wireshark, tshark, tcpdump and tcptrace read as they read a real trace.
//! Frames hold the IPv4 and TCP headers (options, SACK blocks, timestamps,
//! ECN bits: `tcplab_tcp::wire`); the data is not modelled, so a frame's
//! captured length is its headers and its original length the whole packet
//! (as `tcpdump -s` with a short snap length). Hosts and routers get the
//! address 10.x.y.z of their node number plus one, and a MAC address
//! 02:00:00:xx:yy:zz; a connection's sender uses port 10000 + (connection
//! number mod 50000), its receiver port 5001.

use tcplab_engine::SimTime;
use tcplab_tcp::wire::Endpoints;
use tcplab_tcp::TcpHeader;

/// pcap with nanosecond timestamps (the "modified" magic of libpcap).
const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_ETHERNET.
const ETHERNET: u32 = 1;
/// Headers only: a frame is at most 14 + 60 + 60 bytes.
const SNAPLEN: u32 = 256;

/// A capture file being written: its global header, then a record per packet.
#[derive(Clone, Debug)]
pub struct Capture {
    /// The file's bytes so far.
    pub bytes: Vec<u8>,
    /// Packets recorded.
    pub packets: u64,
}

impl Default for Capture {
    fn default() -> Self {
        Self::new()
    }
}

/// The IPv4 address of node `n`.
pub fn node_ip(n: u32) -> [u8; 4] {
    let v = n + 1;
    [10, (v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// The node whose address is `ip` (the inverse of [`node_ip`]); `None` for
/// an address outside 10.0.0.0/8 or 10.0.0.0 itself.
pub fn ip_node(ip: &[u8]) -> Option<u32> {
    if ip.len() < 4 || ip[0] != 10 {
        return None;
    }
    (u32::from(ip[1]) << 16 | u32::from(ip[2]) << 8 | u32::from(ip[3])).checked_sub(1)
}

fn node_mac(n: u32) -> [u8; 6] {
    let v = n + 1;
    [2, 0, 0, (v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// The port a connection's sender uses.
pub fn sender_port(conn: u32) -> u16 {
    10_000 + (conn % 50_000) as u16
}

/// The connection a sender's port belongs to, among the first `n` (the
/// inverse of [`sender_port`] for connections below 50,000).
pub fn sender_conn(port: u16, n: usize) -> Option<u32> {
    let c = port.checked_sub(10_000)? as usize;
    (c < n).then_some(c as u32)
}

/// The port receivers listen on.
pub const RECEIVER_PORT: u16 = 5001;

impl Capture {
    /// An empty capture: the pcap global header alone.
    pub fn new() -> Self {
        let mut bytes = Vec::with_capacity(1 << 16);
        bytes.extend_from_slice(&MAGIC_NS.to_le_bytes());
        bytes.extend_from_slice(&2u16.to_le_bytes());
        bytes.extend_from_slice(&4u16.to_le_bytes());
        bytes.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        bytes.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        bytes.extend_from_slice(&SNAPLEN.to_le_bytes());
        bytes.extend_from_slice(&ETHERNET.to_le_bytes());
        Capture { bytes, packets: 0 }
    }

    /// Record a packet from node `src` to node `dst` of `ip_len` bytes
    /// carrying `h`, whose transmission started at `at`; `from_sender` says
    /// which end of connection `conn` sent it.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        at: SimTime,
        src: u32,
        dst: u32,
        conn: u32,
        from_sender: bool,
        ip_len: u32,
        h: &TcpHeader,
    ) {
        let (sp, dp) = if from_sender {
            (sender_port(conn), RECEIVER_PORT)
        } else {
            (RECEIVER_PORT, sender_port(conn))
        };
        let ep = Endpoints {
            src_ip: node_ip(src),
            dst_ip: node_ip(dst),
            src_port: sp,
            dst_port: dp,
        };
        let rec = self.bytes.len();
        self.bytes
            .extend_from_slice(&((at.0 / 1_000_000_000) as u32).to_le_bytes());
        self.bytes
            .extend_from_slice(&((at.0 % 1_000_000_000) as u32).to_le_bytes());
        self.bytes.extend_from_slice(&[0; 8]); // lengths, below
        self.bytes.extend_from_slice(&node_mac(dst));
        self.bytes.extend_from_slice(&node_mac(src));
        self.bytes.extend_from_slice(&0x0800u16.to_be_bytes());
        let n = h.write_headers(&ep, ip_len, &mut self.bytes);
        let written = 14 + n as u32;
        let ip_total =
            u16::from_be_bytes([self.bytes[rec + 16 + 14 + 2], self.bytes[rec + 16 + 14 + 3]]);
        let orig = 14 + ip_total as u32;
        self.bytes[rec + 8..rec + 12].copy_from_slice(&written.to_le_bytes());
        self.bytes[rec + 12..rec + 16].copy_from_slice(&orig.to_le_bytes());
        self.packets += 1;
    }

    /// Record an IPv4 packet as it was on a real wire (the real-stack
    /// emulator's captures): `ip` is the whole packet, of which the headers
    /// (at most the snap length) are kept, in an Ethernet frame between the
    /// MAC addresses of its source and destination addresses' nodes.
    pub fn record_ip(&mut self, at: SimTime, ip: &[u8]) {
        let (src, dst) = if ip.len() >= 20 {
            (
                ip_node(&ip[12..16]).unwrap_or(0),
                ip_node(&ip[16..20]).unwrap_or(0),
            )
        } else {
            (0, 0)
        };
        let keep = ip.len().min(SNAPLEN as usize - 14);
        self.bytes
            .extend_from_slice(&((at.0 / 1_000_000_000) as u32).to_le_bytes());
        self.bytes
            .extend_from_slice(&((at.0 % 1_000_000_000) as u32).to_le_bytes());
        self.bytes
            .extend_from_slice(&(14 + keep as u32).to_le_bytes());
        self.bytes
            .extend_from_slice(&(14 + ip.len() as u32).to_le_bytes());
        self.bytes.extend_from_slice(&node_mac(dst));
        self.bytes.extend_from_slice(&node_mac(src));
        self.bytes.extend_from_slice(&0x0800u16.to_be_bytes());
        self.bytes.extend_from_slice(&ip[..keep]);
        self.packets += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_tcp::header::ACK;

    #[test]
    fn a_record_is_a_pcap_ns_record_of_an_ethernet_frame() {
        let mut c = Capture::new();
        assert_eq!(c.bytes.len(), 24);
        assert_eq!(&c.bytes[..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        let h = TcpHeader {
            flags: ACK,
            seq: 1,
            payload: 1448,
            has_ts: true,
            ..Default::default()
        };
        c.record(SimTime(2_500_000_123), 0, 3, 7, true, h.wire_size(), &h);
        let r = &c.bytes[24..];
        assert_eq!(u32::from_le_bytes([r[0], r[1], r[2], r[3]]), 2);
        assert_eq!(u32::from_le_bytes([r[4], r[5], r[6], r[7]]), 500_000_123);
        // Captured: 14 + 20 + 32 bytes of headers; on the wire 14 + 1500.
        assert_eq!(u32::from_le_bytes([r[8], r[9], r[10], r[11]]), 66);
        assert_eq!(u32::from_le_bytes([r[12], r[13], r[14], r[15]]), 1514);
        assert_eq!(r.len(), 16 + 66);
        assert_eq!(&r[16 + 12..16 + 14], &[8, 0]);
        // 10.0.0.1 -> 10.0.0.4, ports 10007 -> 5001.
        assert_eq!(&r[16 + 14 + 12..16 + 14 + 20], &[10, 0, 0, 1, 10, 0, 0, 4]);
        assert_eq!(u16::from_be_bytes([r[50], r[51]]), 10_007);
        assert_eq!(u16::from_be_bytes([r[52], r[53]]), 5001);
    }

    #[test]
    fn a_raw_ip_record_keeps_the_headers_and_the_whole_length() {
        let mut c = Capture::new();
        // A 1500-byte IPv4 packet 10.0.0.2 -> 10.0.0.1: nodes 1 and 0.
        let mut ip = vec![0u8; 1500];
        ip[0] = 0x45;
        ip[12..16].copy_from_slice(&[10, 0, 0, 2]);
        ip[16..20].copy_from_slice(&[10, 0, 0, 1]);
        c.record_ip(SimTime(1_000_000_007), &ip);
        let r = &c.bytes[24..];
        assert_eq!(u32::from_le_bytes([r[4], r[5], r[6], r[7]]), 7);
        assert_eq!(u32::from_le_bytes([r[8], r[9], r[10], r[11]]), 256);
        assert_eq!(u32::from_le_bytes([r[12], r[13], r[14], r[15]]), 1514);
        assert_eq!(&r[16..22], &[2, 0, 0, 0, 0, 1]); // destination MAC: node 0
        assert_eq!(&r[22..28], &[2, 0, 0, 0, 0, 2]);
        assert_eq!(r[16 + 14], 0x45);
        assert_eq!(c.packets, 1);
    }

    #[test]
    fn addresses_and_ports_map_back_to_nodes_and_connections() {
        for n in [0, 1, 254, 255, 70_000] {
            assert_eq!(ip_node(&node_ip(n)), Some(n));
        }
        assert_eq!(ip_node(&[10, 0, 0, 0]), None);
        assert_eq!(ip_node(&[192, 168, 0, 1]), None);
        assert_eq!(sender_conn(sender_port(7), 8), Some(7));
        assert_eq!(sender_conn(sender_port(8), 8), None);
        assert_eq!(sender_conn(RECEIVER_PORT, 8), None);
    }
}
