//! The data receiver of one connection: answers the handshake, delivers data in
//! order, keeps out-of-order data within the receive buffer, and acknowledges
//! with delayed ACKs (every second full segment or on a timer; at once for
//! out-of-order data, for a segment that fills a hole and for duplicates,
//! RFC 5681 4.2), SACK blocks (RFC 2018: the block of the latest segment first,
//! then the most recently reported ones) and timestamps (RFC 7323 TS.Recent).
//!
//! With `adaptive_delack` (the `linux` profile) the delays follow Linux's
//! quick-ACK mode and adaptive delayed-ACK timeout instead (delack.rs); with
//! `dsack` a duplicate is reported in a D-SACK block first (RFC 2883); with
//! `sack_compression` out-of-order data is ACKed as Linux compresses SACKs
//! (net/ipv4/tcp_input.c `__tcp_ack_snd_check`, `tcp_sack_new_ofo_skb`,
//! `tcp_sack_compress_send_ack`; tcp_timer.c `tcp_compressed_ack_kick`;
//! tcp_output.c `tcp_event_ack_sent`, Linux 6.x): the first three ACKs at a
//! given `rcv_nxt` go at once (`dup_ack_counter`), later ones wait on a timer
//! of min(1 ms, RTT / 20) plus the hrtimer's 100 us slack, up to 44 of them
//! (`tcp_comp_sack_nr`); any ACK sent cancels the timer, and a held ACK is
//! sent first when a segment lands in a third or later SACK block. The
//! timer's RTT is the smaller of the receiver's SRTT (the handshake's) and
//! its `rcv_rtt_est`, measured from timestamps (`tcp_rcv_rtt_measure_ts`,
//! `tcp_rcv_rtt_update`; 0 until measured, which makes the delay 0 as in
//! Linux). Without timestamps Linux measures `rcv_rtt_est` once per window
//! (`tcp_rcv_rtt_measure`, 0 until a window has been measured); that is not
//! modelled, the SRTT stands for it. Quick-ACK mode, which sends a held-back
//! ACK at once, is modelled with `adaptive_delack` only.
//!
//! The advertised window is the receive buffer (`plain`), half the free
//! buffer (`linux22`) or Linux 6.x's autotuned window (`linux`,
//! crate::rcvwnd, which also decides whether a second segment's ACK waits
//! for the application's read); data beyond rcv_nxt + buffer is discarded.
//!
//! A host whose `handshake` makes it an ns-2 one-way agent receives as ns-2's
//! `TCPSink` (ns-2 2.28 tcp/tcp-sink.cc): nothing is negotiated (SACK and
//! timestamps as configured), the first packet (the 40-byte `syn_` packet or
//! data) opens the connection and is acknowledged like any other, at most
//! `maxSackBlocks_` = 3 SACK blocks, remembering only those sent (`SackStack`),
//! ns-2's ACK size (40 bytes + 8 per block).
//! With `delack = 0` it is `TCPSink` (one ACK per packet); with a timeout it
//! is `DelAckSink`: every second in-order packet or `interval_`, at once out of
//! order and when filling a gap (`RFC2581_immediate_ack_`).
//!
//! ECN (RFC 3168 6.1.1, 6.1.3, as Linux net/ipv4/tcp_input.c): the SYN-ACK
//! carries ECE when this host enables ECN and the SYN had ECE and CWR. After a
//! data segment arrives marked CE, every ACK carries ECE until a data segment
//! with CWR arrives (`TCP_ECN_DEMAND_CWR`); CWR is read before CE, so a segment
//! with both keeps ECE on. The first CE after a CWR puts the receiver in
//! quick-ACK mode for two ACKs (`__tcp_ecn_check_ce`: `tcp_enter_quickack_mode(sk,
//! 2)`), so the echo is not held back by delayed ACKs, and a data segment with
//! CWR is acknowledged at once (`tcp_ecn_accept_cwr`). Simplified: Linux's
//! quick-ACK on a Not-ECT segment after ECT ones (a likely retransmission) is
//! not modelled: with `sack_compression` the out-of-order ACK after it may be
//! held where Linux sends it at once.

use crate::header::{TcpHeader, ACK, CWR, ECE, FIN, MAX_SACK_BLOCKS, PSH, SYN};
use crate::profile::{BufferAccounting, TcpConfig};
use crate::sender::wscale_for;
use tcplab_engine::SimTime;
use tcplab_net::Ecn;

/// Linux `net.ipv4.tcp_comp_sack_delay_ns` default: 1 ms.
const COMP_SACK_DELAY: SimTime = SimTime(1_000_000);
/// Linux `net.ipv4.tcp_comp_sack_slack_ns` default: 100 us.
const COMP_SACK_SLACK: SimTime = SimTime(100_000);
/// Linux `net.ipv4.tcp_comp_sack_nr` default: at most 44 ACKs held.
const COMP_SACK_NR: u32 = 44;
/// `TCP_FASTRETRANS_THRESH`: duplicates ACKed at once before compressing.
const FASTRETRANS_THRESH: u32 = 3;
/// `TCP_SACK_BLOCKS_EXPECTED`: a segment in a block beyond the first two
/// sends the held ACK first.
const SACK_BLOCKS_EXPECTED: usize = 2;

/// FreeBSD 9.2 `net.inet.tcp.recvbuf_inc`: 16 KiB a step.
const AUTORCVBUF_INC: u64 = 16 << 10;
/// FreeBSD 9.2 `net.inet.tcp.recvbuf_max`: 2 MiB.
const AUTORCVBUF_MAX: u64 = 2 << 20;

/// FreeBSD's `tcp_ts_getticks()` from a timestamp of the simulator's clock
/// (ns): ms.
fn ts_ticks(ts: u64) -> u64 {
    ts / 1_000_000
}

/// Counters of one receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Application bytes delivered in order.
    pub delivered: u64,
    /// ACK segments sent (SYN-ACK included).
    pub acks_sent: u64,
    /// Data segments received.
    pub segs_received: u64,
    /// Data segments received entirely below rcv_nxt (duplicates).
    pub dup_segs: u64,
    /// Data segments received marked CE.
    pub ce_segs: u64,
    /// Times the out-of-order queue was dropped whole for want of memory.
    pub ooo_prunes: u64,
    /// Bytes of out-of-order data so dropped.
    pub pruned_bytes: u64,
    /// Retransmissions sent by a timeout that brought data the receiver
    /// already had (the timeout was spurious).
    pub spurious_rto: u64,
}

/// The receiver.
pub struct Receiver {
    cfg: TcpConfig,
    established: bool,
    /// Next sequence number expected.
    pub rcv_nxt: u64,
    ooo: Vec<(u64, u64)>,
    /// Bytes held out of order.
    ooo_bytes: u64,
    /// Buffer one held segment costs (see `BufferAccounting`).
    seg_truesize: u64,
    /// Right edge of the window last advertised (Linux never shrinks it).
    right_edge: u64,
    recent: [(u64, u64); MAX_SACK_BLOCKS],
    nrecent: usize,
    sack_ok: bool,
    ts_ok: bool,
    rcv_wscale: u8,
    ts_recent: u64,
    /// The receive buffer now (`rcvbuf`, grown by FreeBSD's autosizing).
    hiwat: u64,
    /// FreeBSD's autosizing: when the measurement started (ms ticks of our
    /// timestamp clock) and the in-order bytes counted since.
    rfbuf_ts: Option<u64>,
    rfbuf_cnt: u64,
    last_ack_sent: u64,
    pending: u32,
    delack_deadline: Option<SimTime>,
    /// When the delayed-ACK timer fires: `delack_deadline`, or with
    /// `timer_wheel` the end of its timer-wheel bucket.
    delack_fire: Option<SimTime>,
    mss: u32,
    fin: Option<u64>,
    /// ECN negotiated.
    ecn_ok: bool,
    /// Echo ECE until a CWR arrives (Linux `TCP_ECN_DEMAND_CWR`).
    demand_cwr: bool,
    /// ACKs still to send at once (Linux quick-ACK mode, `icsk_ack.quick`).
    quick: u32,
    /// The next ACK goes out at once (Linux `ICSK_ACK_NOW`).
    ack_now: bool,
    /// A duplicate to report first in the next ACK (`dsack`, RFC 2883).
    dsack: Option<(u64, u64)>,
    /// Linux's adaptive delayed-ACK state (`adaptive_delack`).
    lack: crate::delack::LinuxAck,
    /// `sack_compression`: ACKs held (`tp->compressed_ack`), the
    /// `rcv_nxt` the duplicates are counted at (`compressed_ack_rcv_nxt`),
    /// the ACKs sent at once there (`dup_ack_counter`), and when the
    /// held ones go (`compressed_ack_timer`).
    comp_held: u32,
    comp_rcv_nxt: u64,
    comp_dups: u32,
    comp_fire: Option<SimTime>,
    /// `read_latency`: when the application reads next (it was woken by
    /// the first unread segment), and whether a segment it will read
    /// carried PSH (`push`: `ICSK_ACK_PUSHED`).
    read_fire: Option<SimTime>,
    read_pushed: bool,
    /// `read_jitter`'s and `sack_timer_jitter`'s random streams (set by
    /// `seed_timing`).
    read_rng: Option<tcplab_engine::RngStream>,
    comp_rng: Option<tcplab_engine::RngStream>,
    /// `buffer_accounting = "linux"`: the receive window's state, and the
    /// in-order bytes the application has read (`copied_seq`).
    lw: Option<crate::rcvwnd::LinuxRcvWnd>,
    copied: u64,
    /// Linux `rcv_rtt_est.rtt_us` (8 x us) and the `tsecr` last sampled,
    /// in ms ticks (`rcv_rtt_last_tsecr`).
    rcv_rtt8: u64,
    rcv_rtt_tsecr: u64,
    /// When the SYN-ACK left (the handshake's RTT sample).
    synack_at: SimTime,
    /// Counters.
    pub stats: ReceiverStats,
    /// When the last byte (the FIN) arrived in order.
    pub fin_at: Option<SimTime>,
    /// When the last in-order data byte was delivered.
    pub last_delivery: Option<SimTime>,
}

impl Receiver {
    /// A listening receiver.
    pub fn new(cfg: TcpConfig) -> Self {
        let hiwat = cfg.rcvbuf;
        Receiver {
            lack: crate::delack::LinuxAck::new(cfg.delack_timeout),
            comp_held: 0,
            comp_rcv_nxt: 0,
            comp_dups: 0,
            comp_fire: None,
            read_fire: None,
            read_pushed: false,
            read_rng: None,
            comp_rng: None,
            rcv_rtt8: 0,
            rcv_rtt_tsecr: 0,
            lw: None,
            copied: 0,
            mss: cfg.mss,
            cfg,
            established: false,
            rcv_nxt: 0,
            ooo: Vec::with_capacity(4),
            ooo_bytes: 0,
            seg_truesize: 0,
            right_edge: 0,
            recent: [(0, 0); MAX_SACK_BLOCKS],
            nrecent: 0,
            sack_ok: false,
            ts_ok: false,
            rcv_wscale: 0,
            ts_recent: 0,
            hiwat,
            rfbuf_ts: None,
            rfbuf_cnt: 0,
            last_ack_sent: 0,
            pending: 0,
            delack_deadline: None,
            delack_fire: None,
            fin: None,
            ecn_ok: false,
            demand_cwr: false,
            quick: 0,
            ack_now: false,
            dsack: None,
            synack_at: SimTime::ZERO,
            stats: ReceiverStats::default(),
            fin_at: None,
            last_delivery: None,
        }
    }
    /// Earliest pending timer.
    pub fn next_deadline(&self) -> Option<SimTime> {
        // Branch-free: no deadline is SimTime::MAX (never a real one).
        let t = |d: Option<SimTime>| d.unwrap_or(SimTime::MAX);
        let m = t(self.delack_fire)
            .min(t(self.comp_fire))
            .min(t(self.read_fire));
        (m != SimTime::MAX).then_some(m)
    }
    /// The random streams `read_jitter` (and `read_tail`) and
    /// `sack_timer_jitter` draw from (each kept only when its jitter is on).
    pub fn seed_timing(&mut self, read: tcplab_engine::RngStream, sack: tcplab_engine::RngStream) {
        if self.cfg.read_jitter > SimTime::ZERO || self.cfg.read_tail > 0 {
            self.read_rng = Some(read);
        }
        if self.cfg.sack_timer_jitter > SimTime::ZERO {
            self.comp_rng = Some(sack);
        }
    }
    /// Whether SACK was negotiated.
    pub fn sack_ok(&self) -> bool {
        self.sack_ok
    }
    /// Whether ECN was negotiated.
    pub fn ecn_ok(&self) -> bool {
        self.ecn_ok
    }
    /// Out-of-order ranges held.
    pub fn ooo(&self) -> &[(u64, u64)] {
        &self.ooo
    }
    fn max_blocks(&self) -> usize {
        // ns-2 TCPSink maxSackBlocks_ = 3 (ns-default.tcl).
        if self.ts_ok || self.cfg.handshake.one_way() {
            3
        } else {
            MAX_SACK_BLOCKS
        }
    }

    /// Buffer the out-of-order data holds, as the host's accounting charges it.
    fn rmem(&self) -> u64 {
        match self.cfg.buffer_accounting {
            BufferAccounting::Plain => self.ooo_bytes,
            BufferAccounting::Linux22 | BufferAccounting::Linux => {
                self.ooo_bytes.div_ceil(self.mss.max(1) as u64) * self.seg_truesize
            }
        }
    }
    /// `buffer_accounting = "linux"`: the skbs held, in-order data not yet
    /// read and out-of-order data (`sk_rmem_alloc`), counted as full
    /// segments (runs of short segments are undercharged); a FIN's sequence
    /// number holds no data.
    fn charged(&self) -> u64 {
        let mss = self.mss.max(1) as u64;
        let data_end = match self.fin_at {
            Some(_) => self.rcv_nxt.saturating_sub(1),
            None => self.rcv_nxt,
        };
        let unread = data_end.saturating_sub(self.copied);
        unread.div_ceil(mss) * self.seg_truesize + self.rmem()
    }
    /// The window last offered: Linux's `rcv_wnd` where modelled, else the
    /// receive buffer (what `tcp_incr_quickack` divides and the SYN-ACK
    /// offers).
    fn rcv_wnd(&self) -> u64 {
        self.lw.as_ref().map_or(self.cfg.rcvbuf, |w| w.wnd)
    }
    /// The end of the out-of-order data held (0: none).
    fn ooo_end(&self) -> u64 {
        self.ooo.last().map_or(0, |r| r.1)
    }
    /// `tcp_grow_window` for a segment of `len` bytes
    /// (`buffer_accounting = "linux"`), with the skbs held now: a growth
    /// grants a quick ACK (`icsk_ack.quick |= 1`).
    fn grow_window(&mut self, len: u64) {
        if self.lw.is_none() {
            return;
        }
        let charged = self.charged();
        if self.lw.as_mut().is_some_and(|lw| lw.on_data(len, charged)) {
            self.quick |= 1;
        }
    }
    /// The receiver's RTT estimate (`rcv_rtt_est`), zero until measured.
    fn rcv_rtt(&self) -> SimTime {
        SimTime((self.rcv_rtt8 >> 3) * 1000)
    }
    /// The application has read all in-order data at `now`
    /// (`tcp_recvmsg`: `tcp_rcv_space_adjust`).
    /// Returns the bytes read.
    fn read_all(&mut self, now: SimTime) -> u64 {
        let read = self.rcv_nxt - self.copied;
        self.copied = self.rcv_nxt;
        let ooo_end = self.ooo_end();
        let rtt = self.rcv_rtt();
        if let Some(lw) = self.lw.as_mut() {
            lw.on_read(now, self.copied, self.rcv_nxt, ooo_end, rtt);
        }
        read
    }
    /// What the held data may cost before the out-of-order queue is
    /// dropped: the receive buffer (Linux 2.2 charges every segment to it and
    /// prunes past it) and the host's memory limit.
    fn mem_cap(&self) -> u64 {
        let mut cap = u64::MAX;
        if self.cfg.buffer_accounting == BufferAccounting::Linux22 {
            cap = self.cfg.rcvbuf;
        }
        if self.cfg.mem_limit > 0 {
            cap = cap.min(self.cfg.mem_limit);
        }
        cap
    }
    /// Linux 2.2 `prune_queue`: a segment arriving when the buffers held
    /// would pass the cap frees the whole out-of-order queue (and the SACK
    /// blocks describing it); the arriving segment is then accepted.
    fn prune_if_full(&mut self) {
        if self.ooo.is_empty() || self.rmem() + self.seg_truesize <= self.mem_cap() {
            return;
        }
        self.stats.ooo_prunes += 1;
        self.stats.pruned_bytes += self.ooo_bytes;
        self.ooo.clear();
        self.ooo_bytes = 0;
        self.nrecent = 0;
    }
    /// The window to advertise, bytes from rcv_nxt.
    fn window(&mut self) -> u64 {
        match self.cfg.buffer_accounting {
            BufferAccounting::Plain | BufferAccounting::Linux => self.hiwat,
            BufferAccounting::Linux22 => {
                // __tcp_select_window: free = (rcvbuf - rmem_alloc) / 2, at most
                // window_clamp, in whole segments; tcp_select_window never
                // moves the right edge left.
                let mss = self.mss.max(1) as u64;
                let clamp = 65535u64 << self.rcv_wscale;
                let free = (self.cfg.rcvbuf.saturating_sub(self.rmem()) / 2).min(clamp);
                let right = (self.rcv_nxt + free / mss * mss).max(self.right_edge);
                self.right_edge = right;
                right - self.rcv_nxt
            }
        }
    }

    /// The window an ACK sent now offers (`buffer_accounting = "linux"`:
    /// `tcp_select_window`, with the skbs held now).
    fn offer(&mut self) -> u64 {
        if self.lw.is_none() {
            return self.window();
        }
        let (rcv_nxt, charged) = (self.rcv_nxt, self.charged());
        self.lw
            .as_mut()
            .map_or(0, |lw| lw.on_ack_sent(rcv_nxt, charged))
    }

    /// FreeBSD 9.2's receive-buffer autosizing (tcp_input.c, the header
    /// prediction path for in-order data, `tcp_do_autorcvbuf`): on a data
    /// segment at `rcv_nxt` with nothing out of order, carrying a timestamp
    /// echo, either the echo comes after the measurement started and within
    /// a second of it, ending a round trip (grow the buffer by 16 KiB, up to
    /// 2 MiB, if more than 7/8 of it arrived in that round trip; start over),
    /// or the bytes are counted. Any other segment ends the measurement
    /// ("not in bulk receive mode").
    fn autosize(&mut self, h: &TcpHeader, start: u64, end: u64) {
        let fast = start == self.rcv_nxt && self.ooo.is_empty() && !h.has(FIN);
        if !fast {
            self.rfbuf_ts = None;
            self.rfbuf_cnt = 0;
            return;
        }
        if !(self.ts_ok && h.has_ts && h.tsecr != 0) {
            return;
        }
        // No measurement running (FreeBSD's rfbuf_ts 0, against a clock far
        // past its first second): the bytes are counted.
        let tsecr = ts_ticks(h.tsecr);
        let ended = self.rfbuf_ts.is_some_and(|t| tsecr > t && tsecr - t < 1000);
        if ended {
            if self.rfbuf_cnt > self.hiwat / 8 * 7 && self.hiwat < AUTORCVBUF_MAX {
                self.hiwat = (self.hiwat + AUTORCVBUF_INC).min(AUTORCVBUF_MAX);
            }
            self.rfbuf_ts = None;
            self.rfbuf_cnt = 0;
        } else {
            self.rfbuf_cnt += end - start;
        }
    }

    /// Process a segment from the sender.
    pub fn on_segment(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        if self.cfg.handshake.one_way() {
            if !self.established {
                // An ns-2 sink takes the first packet as it comes.
                self.established = true;
                self.rcv_nxt = 1;
                self.sack_ok = self.cfg.sack;
                self.ts_ok = self.cfg.timestamps;
                self.ts_recent = h.tsval;
                self.set_truesize();
            }
            if h.has(SYN) {
                // ns-2 acknowledges packet 0 like any packet: a plain 40-byte ACK.
                self.send_ack(now, out);
                return;
            }
        } else if h.has(SYN) {
            self.on_syn(now, h, out);
            return;
        }
        if !self.established {
            if !h.has(ACK) || self.rcv_nxt == 0 {
                return;
            }
            self.established = true;
            if let Some(lw) = self.lw.as_mut() {
                lw.open(self.rcv_nxt, now);
            }
            self.copied = self.rcv_nxt;
            // tcp_synack_rtt_meas: the passive side's first RTT sample.
            self.lack
                .on_handshake_rtt(now.saturating_sub(self.synack_at), self.cfg.min_rto);
        }
        // RFC 7323 4.3: TS.Recent from segments at or left of the last ACK sent.
        if self.ts_ok && h.has_ts && h.tsval >= self.ts_recent && h.seq <= self.last_ack_sent {
            self.ts_recent = h.tsval;
        }
        let len = h.seq_len();
        if len == 0 {
            return; // a pure ACK (of our FIN)
        }
        if (self.cfg.sack_compression || self.lw.is_some()) && self.ts_ok {
            self.rcv_rtt_measure_ts(now, h);
        }
        self.stats.segs_received += 1;
        if self.ecn_ok {
            self.ecn_check(h);
        }
        let (start, end) = (h.seq, h.seq + len);
        if h.rto_retx
            && (end <= self.rcv_nxt || self.ooo.iter().any(|&(l, r)| l <= start && end <= r))
        {
            self.stats.spurious_rto += 1;
        }
        if end <= self.rcv_nxt {
            self.stats.dup_segs += 1;
            // Linux tcp_data_queue -> tcp_dsack_set, tcp_send_dupack (quick
            // ACKs: the sender may be retransmitting spuriously).
            self.note_dsack(start, end);
            if self.cfg.adaptive_delack {
                let q = crate::delack::MAX_QUICKACKS;
                let wnd = self.rcv_wnd();
                self.lack.enter_quickack(&mut self.quick, wnd, self.mss, q);
            }
            self.send_ack(now, out);
            return;
        }
        if start >= self.rcv_nxt + self.hiwat {
            self.send_ack(now, out); // beyond the window
            return;
        }
        if h.has(FIN) {
            self.fin = Some(end - 1);
        }
        self.prune_if_full();
        if start < self.rcv_nxt {
            // Partly old (Linux tcp_data_queue: "partial packet").
            self.note_dsack(start, self.rcv_nxt);
        }
        if self.cfg.rcvbuf_auto {
            self.autosize(h, start, end);
        }
        // `read_latency`: the application reads later, and the ACKs its read
        // sends wait for it.
        let reads_later =
            self.cfg.read_latency + self.cfg.read_jitter > SimTime::ZERO || self.cfg.read_tail > 0;
        if start <= self.rcv_nxt {
            let had_holes = !self.ooo.is_empty();
            self.advance(now, end);
            // tcp_data_queue calls tcp_event_data_recv for all in-order data,
            // a repair of a hole too: after a hole held longer than the RTO
            // it grants the quick ACKs (and `lrcvtime` moves on).
            if self.cfg.adaptive_delack {
                let wnd = self.rcv_wnd();
                self.lack.on_data(now, &mut self.quick, wnd, self.mss);
            }
            // tcp_event_data_recv ends in tcp_grow_window, the segment
            // charged (`buffer_accounting = "linux"`).
            self.grow_window(h.payload as u64);
            if self.lw.is_some() && had_holes && reads_later {
                // The application is woken for the repaired data too.
                self.schedule_read(now, h);
            }
            if had_holes && self.fin_at.is_none() && !self.ooo.is_empty() && self.compressing() {
                // Holes remain (no ICSK_ACK_NOW): __tcp_ack_snd_check's
                // compression path, which sends at once, the repair (of one
                // segment or several) counting as the first duplicate at the
                // new rcv_nxt.
                self.compressed_ack(now, out);
            } else if had_holes || self.fin_at.is_some() {
                self.send_ack(now, out);
            } else {
                self.pending += 1;
                let full = h.payload >= self.mss;
                if reads_later {
                    self.schedule_read(now, h);
                }
                // `buffer_accounting = "linux"`: __tcp_ack_snd_check sends
                // the ACK of a second segment at once only if the window
                // would not shrink; else tcp_cleanup_rbuf sends it at the
                // read (at once too without `read_latency`, with nothing
                // charged: the read comes first).
                let window_ok = match self.lw.as_ref() {
                    Some(lw) => lw.ack_at_once(self.charged()),
                    None => !reads_later,
                };
                if self.lw.is_some()
                    && !reads_later
                    && !window_ok
                    && self.pending >= self.cfg.delack_segments
                    && self.quick == 0
                    && !self.ack_now
                {
                    self.read_all(now);
                }
                // `push`: the application reads the segment (at once
                // without `read_latency`), and a PSH makes
                // tcp_cleanup_rbuf ACK it (ICSK_ACK_PUSHED).
                if self.cfg.delack_timeout == SimTime::ZERO
                    || self.cfg.push && h.has(PSH) && !reads_later
                    || self.quick > 0
                    || self.ack_now
                    || self.pending >= self.cfg.delack_segments && (window_ok || !reads_later)
                    || !full && h.payload > 0 && self.pending >= 1 && self.cfg.delack_segments <= 1
                {
                    self.send_ack(now, out);
                } else if self.cfg.adaptive_delack {
                    let tick = self.cfg.timer_wheel.then_some(self.cfg.clock_granularity);
                    match self.lack.delay(now, self.delack_deadline, tick) {
                        crate::delack::AckNow::Now => self.send_ack(now, out),
                        crate::delack::AckNow::At(t) => self.arm_delack(now, t),
                    }
                } else if self.delack_deadline.is_none() {
                    self.arm_delack(now, now + self.cfg.delack_timeout);
                }
            }
            if self.lw.is_some() && !reads_later {
                // The application reads at once, after the softirq's ACK.
                let read = self.read_all(now);
                self.window_update(now, read, out);
            }
        } else {
            // Out of order: hold it, ACK at once with SACK blocks (a D-SACK
            // first when all of it was held already, tcp_data_queue_ofo).
            let held = self.ooo.iter().any(|&(l, r)| l <= start && end <= r);
            if held {
                self.note_dsack(start, end);
            }
            // tcp_data_queue_ofo grows the window (SACK only) before it
            // charges the segment (`buffer_accounting = "linux"`).
            if self.sack_ok && !held {
                self.grow_window(h.payload as u64);
            }
            let compress = self.compressing();
            if compress && self.comp_held > 0 && self.sack_slot(start, end) >= SACK_BLOCKS_EXPECTED
            {
                // tcp_sack_new_ofo_skb -> tcp_sack_compress_send_ack: the
                // held ACK goes first, without this segment.
                self.send_ack(now, out);
            }
            let r = self.insert_ooo(start, end);
            self.note_recent(r);
            if !held {
                let (rcv_nxt, ooo_end) = (self.rcv_nxt, self.ooo_end());
                if let Some(lw) = self.lw.as_mut() {
                    lw.on_ofo_queued(rcv_nxt, ooo_end);
                }
            }
            if compress {
                self.compressed_ack(now, out);
            } else {
                self.send_ack(now, out);
            }
        }
    }

    /// The application will read: woken by the first unread segment, it
    /// reads `read_latency` (plus `read_jitter`) later; whether a segment
    /// it will read carried PSH (`push`: `ICSK_ACK_PUSHED`).
    fn schedule_read(&mut self, now: SimTime, h: &TcpHeader) {
        self.read_pushed |= self.cfg.push && h.has(PSH);
        if self.read_fire.is_none() {
            let (tail, span) = (self.cfg.read_tail as u64, self.cfg.read_tail_span.0);
            let body = self.cfg.read_jitter;
            let jitter = match self.read_rng.as_mut() {
                // `read_tail` reads in a million come after the body.
                Some(r) => {
                    if tail > 0 && r.below(1_000_000) < tail {
                        body + SimTime(r.below(span))
                    } else {
                        SimTime(r.below(body.0))
                    }
                }
                None => SimTime::ZERO,
            };
            self.read_fire = Some(now + self.cfg.read_latency + jitter);
        }
    }

    /// `tcp_cleanup_rbuf`'s window update after a read of `copied` bytes
    /// (`buffer_accounting = "linux"`): not once the peer's FIN arrived
    /// (`RCV_SHUTDOWN`), nor after a read of nothing.
    fn window_update(&mut self, now: SimTime, copied: u64, out: &mut Vec<TcpHeader>) {
        if copied == 0 || self.fin_at.is_some() {
            return;
        }
        let charged = self.charged();
        if self
            .lw
            .as_ref()
            .is_some_and(|lw| lw.update_after_read(self.rcv_nxt, charged))
        {
            self.send_ack(now, out);
        }
    }

    /// Whether out-of-order data is ACKed as Linux compresses SACKs.
    fn compressing(&self) -> bool {
        self.cfg.sack_compression && self.sack_ok
    }

    /// The SACK block (0 = the most recent) that `[start, end)` extends, or
    /// the number of blocks when it starts a new one (`tcp_sack_new_ofo_skb`'s
    /// `this_sack`, `tcp_sack_extend`: touching or overlapping).
    fn sack_slot(&self, start: u64, end: u64) -> usize {
        self.recent[..self.nrecent]
            .iter()
            .position(|&(l, r)| start <= r && l <= end)
            .unwrap_or(self.nrecent)
    }

    /// Linux `tcp_rcv_rtt_measure_ts` and `tcp_rcv_rtt_update` (win_dep 0,
    /// the application reads at once): a segment of a full MSS echoing a
    /// new timestamp samples the RTT in the timestamp clock's ms (at least
    /// 1); a lower sample is taken at once, a higher one by 1/8.
    fn rcv_rtt_measure_ts(&mut self, now: SimTime, h: &TcpHeader) {
        // The timestamp clock ticks in ms: echoes within one tick are one.
        if !h.has_ts || ts_ticks(h.tsecr) == self.rcv_rtt_tsecr {
            return;
        }
        self.rcv_rtt_tsecr = ts_ticks(h.tsecr);
        if h.payload < self.mss {
            return;
        }
        let Some(ms) = ts_ticks(now.0).checked_sub(ts_ticks(h.tsecr)) else {
            return;
        };
        let sample = ms.max(1) * 1000;
        let old = self.rcv_rtt8;
        self.rcv_rtt8 = if old == 0 || sample << 3 < old {
            sample << 3
        } else {
            old - (old >> 3) + sample
        };
    }

    /// Linux `__tcp_ack_snd_check` for out-of-order data, SACK on
    /// (`sack_compression`).
    fn compressed_ack(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        // Quick-ACK mode or an ACK owed at once: sent now, as without
        // compression. __tcp_ack_snd_check's first rule, more than one
        // full segment in order since the last ACK, also asks that the
        // window now advertised be at least the last one
        // (`__tcp_select_window(sk) >= tp->rcv_wnd`); with out-of-order
        // data held (always, here) the held data has taken buffer space
        // since, so the rule does not apply and a repair of several
        // segments takes the compression path as the first duplicate at
        // its new rcv_nxt. The model applies the rule whatever the buffer
        // (with `buffer_accounting = "linux"` too): this follows the
        // kernel's captured receivers, which count 94-98 % of such repairs
        // so (docs/reproduce.md, fair BBR).
        if self.quick > 0 || self.ack_now || self.comp_held >= COMP_SACK_NR {
            self.send_ack(now, out);
            return;
        }
        if self.comp_rcv_nxt != self.rcv_nxt {
            self.comp_rcv_nxt = self.rcv_nxt;
            self.comp_dups = 0;
        }
        if self.comp_dups < FASTRETRANS_THRESH {
            self.comp_dups += 1;
            self.send_ack(now, out);
            return;
        }
        self.comp_held += 1;
        if self.comp_fire.is_none() {
            // 5 % of the RTT (8 x us, `rtt * (NSEC_PER_USEC >> 3) / 20` ns),
            // at most tcp_comp_sack_delay_ns; the hrtimer fires by its hard
            // expiry, tcp_comp_sack_slack_ns later.
            let srtt8 = self.lack.srtt().map_or(0, |s| s.0 / 1000 * 8);
            let mut rtt8 = if self.ts_ok { self.rcv_rtt8 } else { srtt8 };
            if srtt8 > 0 && srtt8 < rtt8 {
                rtt8 = srtt8;
            }
            let delay = COMP_SACK_DELAY.min(SimTime(rtt8 * 125 / 20));
            let late = match self.comp_rng.as_mut() {
                Some(r) => {
                    self.cfg.sack_timer_latency + SimTime(r.below(self.cfg.sack_timer_jitter.0))
                }
                None => self.cfg.sack_timer_latency,
            };
            self.comp_fire = Some(now + delay + COMP_SACK_SLACK + late);
        }
    }

    /// RFC 3168 6.1.3 for a data segment: CWR ends the echo, CE starts it
    /// (Linux `tcp_ecn_accept_cwr`, then `__tcp_ecn_check_ce`).
    fn ecn_check(&mut self, h: &TcpHeader) {
        if h.has(CWR) {
            self.demand_cwr = false;
            self.ack_now = true;
        }
        if h.ip_ecn == Ecn::Ce {
            self.stats.ce_segs += 1;
            if !self.demand_cwr {
                self.quick = self.quick.max(2);
                self.demand_cwr = true;
            }
        }
    }

    fn on_syn(&mut self, now: SimTime, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        if self.rcv_nxt == 0 {
            self.rcv_nxt = h.seq + 1;
            // RFC 3168 6.1.1: an ECN-setup SYN has ECE and CWR (Linux tcp_ecn_create_request).
            self.ecn_ok = self.cfg.ecn && h.has(ECE) && h.has(CWR);
            self.sack_ok = self.cfg.sack && h.sack_perm;
            self.ts_ok = (self.cfg.timestamps || self.cfg.answer_timestamps) && h.has_ts;
            let ws = self.cfg.window_scaling && h.wscale.is_some();
            // Linux 2.2 tcp_select_initial_window scales from rcvbuf / 2.
            // FreeBSD scales for the largest buffer autosizing may reach
            // (tcp_syncache: sb_max).
            let space = match self.cfg.buffer_accounting {
                BufferAccounting::Plain if self.cfg.rcvbuf_auto => {
                    self.cfg.rcvbuf.max(AUTORCVBUF_MAX)
                }
                BufferAccounting::Plain | BufferAccounting::Linux => self.cfg.rcvbuf,
                BufferAccounting::Linux22 => self.cfg.rcvbuf / 2,
            };
            self.rcv_wscale = if ws { wscale_for(space) } else { 0 };
            let peer_mss = if h.mss == 0 { 536 } else { h.mss as u32 };
            self.mss = self.cfg.mss.min(peer_mss) - if self.ts_ok { 12 } else { 0 };
            self.set_truesize();
            if self.cfg.buffer_accounting == BufferAccounting::Linux {
                self.lw = Some(crate::rcvwnd::LinuxRcvWnd::new(
                    self.cfg.rcvbuf,
                    self.rcv_wscale,
                    self.mss,
                ));
            }
            self.ts_recent = h.tsval;
        }
        let ws = self.cfg.window_scaling && h.wscale.is_some();
        out.push(TcpHeader {
            flags: SYN | ACK | if self.ecn_ok { ECE } else { 0 },
            seq: 0,
            ack: self.rcv_nxt,
            wnd: self.rcv_wnd().min(65535) as u32,
            mss: self.cfg.mss as u16,
            wscale: ws.then_some(self.rcv_wscale),
            sack_perm: self.sack_ok,
            has_ts: self.ts_ok,
            tsval: now.0,
            tsecr: self.ts_recent,
            ..Default::default()
        });
        self.last_ack_sent = self.rcv_nxt;
        self.synack_at = now;
        self.stats.acks_sent += 1;
    }

    /// In-order data up to `end` arrived: deliver it and whatever it joins.
    fn set_truesize(&mut self) {
        let ip = self.mss + 40 + if self.ts_ok { 12 } else { 0 };
        self.seg_truesize = self.cfg.buffer_accounting.rcv_truesize(ip, self.mss);
    }

    fn advance(&mut self, now: SimTime, end: u64) {
        let mut new_nxt = end.max(self.rcv_nxt);
        while let Some(&(l, r)) = self.ooo.first() {
            if l > new_nxt {
                break;
            }
            new_nxt = new_nxt.max(r);
            self.ooo_bytes -= r - l;
            self.ooo.remove(0);
        }
        let data_end = match self.fin {
            Some(f) if new_nxt > f => f,
            _ => new_nxt,
        };
        if data_end > self.rcv_nxt.min(data_end) {
            self.stats.delivered += data_end - self.rcv_nxt.min(data_end);
            self.last_delivery = Some(now);
        }
        self.rcv_nxt = new_nxt;
        if self.fin.is_some_and(|f| self.rcv_nxt > f) && self.fin_at.is_none() {
            self.fin_at = Some(now);
        }
        // Drop SACK blocks now covered.
        let mut k = 0;
        for i in 0..self.nrecent {
            if self.recent[i].1 > self.rcv_nxt {
                self.recent[k] = self.recent[i];
                k += 1;
            }
        }
        self.nrecent = k;
    }

    /// Insert `[start, end)` into the out-of-order set; returns the merged range holding it.
    fn insert_ooo(&mut self, start: u64, end: u64) -> (u64, u64) {
        let mut l = start;
        let mut r = end;
        let mut i = 0;
        while i < self.ooo.len() {
            let (a, b) = self.ooo[i];
            if b < l {
                i += 1;
            } else if a > r {
                break;
            } else {
                l = l.min(a);
                r = r.max(b);
                self.ooo_bytes -= b - a;
                self.ooo.remove(i);
            }
        }
        self.ooo_bytes += r - l;
        self.ooo.insert(i, (l, r));
        (l, r)
    }

    /// RFC 2018: the block holding the latest segment first, then earlier blocks.
    ///
    /// Up to `MAX_SACK_BLOCKS` are remembered (Linux's `selective_acks`),
    /// sent or not. ns-2's `TCPSink/Sack1` remembers only the blocks it sent:
    /// its `SackStack` (tcp-sink.cc) holds `maxSackBlocks_` entries; in
    /// `Sacker::append_ack` the new block is reported first, then the stack's
    /// entries it does not cover (those it covers are popped) up to
    /// `maxSackBlocks_` in all, and it is pushed, the oldest entry falling
    /// off a full stack. A block sent earlier but pushed out is not reported
    /// again when the blocks above it merge.
    fn note_recent(&mut self, first: (u64, u64)) {
        let keep = if self.cfg.handshake.one_way() {
            self.max_blocks()
        } else {
            MAX_SACK_BLOCKS
        };
        let mut blocks = [(0u64, 0u64); MAX_SACK_BLOCKS];
        blocks[0] = first;
        let mut n = 1;
        for i in 0..self.nrecent {
            if n >= keep {
                break;
            }
            let (l, _) = self.recent[i];
            // The range now holding the old block's left edge.
            if let Some(&cur) = self.ooo.iter().find(|&&(a, b)| a <= l && l < b) {
                if !blocks[..n].contains(&cur) {
                    blocks[n] = cur;
                    n += 1;
                }
            }
        }
        self.recent = blocks;
        self.nrecent = n;
    }

    /// Remember a duplicate `[start, end)` for the next ACK's D-SACK block
    /// (`dsack` on a SACK connection).
    fn note_dsack(&mut self, start: u64, end: u64) {
        if self.cfg.dsack && self.sack_ok {
            self.dsack = Some((start, end));
        }
    }

    fn send_ack(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        // FreeBSD tcp_output: a segment with a timestamp starts the
        // autosizing measurement if none runs.
        if self.cfg.rcvbuf_auto && self.ts_ok && self.rfbuf_ts.is_none() {
            self.rfbuf_ts = Some(ts_ticks(now.0));
        }
        // Built where it goes: the header is not copied into `out` after.
        out.push(TcpHeader {
            flags: ACK,
            seq: 1,
            ack: self.rcv_nxt,
            wnd: ((self.offer() >> self.rcv_wscale).min(65535)) as u32,
            has_ts: self.ts_ok,
            tsval: now.0,
            tsecr: self.ts_recent,
            ns2_sizes: self.cfg.handshake.one_way(),
            ..Default::default()
        });
        let h = out.last_mut().expect("just pushed");
        if self.fin_at.is_some() {
            h.flags |= FIN; // passive close: our FIN rides on every ACK after theirs
        }
        if self.demand_cwr {
            h.flags |= ECE;
        }
        if self.cfg.adaptive_delack {
            self.lack.on_ack_sent(&mut self.quick);
        } else {
            self.quick = self.quick.saturating_sub(1);
        }
        self.ack_now = false;
        if self.sack_ok {
            let max = self.max_blocks();
            let d = self.dsack.take().filter(|_| max > 0);
            let first = d.is_some() as usize;
            let n = self.nrecent.min(max - first);
            if let Some(b) = d {
                // RFC 2883: the D-SACK block first, then the usual ones.
                h.set_sack(0, b);
            }
            for (i, &b) in self.recent[..n].iter().enumerate() {
                h.set_sack(first + i, b);
            }
            h.nsack = (first + n) as u8;
        }
        self.last_ack_sent = self.rcv_nxt;
        self.pending = 0;
        self.delack_deadline = None;
        self.delack_fire = None;
        // tcp_event_ack_sent: whatever ACK goes, the held ones went with it.
        self.comp_held = 0;
        self.comp_fire = None;
        self.stats.acks_sent += 1;
    }

    /// (Re)arm the delayed-ACK timer for `t` (`sk_reset_timer` in
    /// `tcp_send_delayed_ack`). With `timer_wheel` the expiry is a tick,
    /// `jiffies + ato` (or the pending timer's tick, kept), and the timer
    /// fires at the end of its wheel bucket.
    fn arm_delack(&mut self, now: SimTime, t: SimTime) {
        let jiffy = self.cfg.clock_granularity;
        if !self.cfg.timer_wheel || jiffy == SimTime::ZERO {
            self.delack_deadline = Some(t);
            self.delack_fire = Some(t);
            return;
        }
        if self.delack_deadline == Some(t) {
            // The pending timer's tick kept: mod_timer with an unchanged
            // expiry returns at once (__mod_timer), the bucket stays.
            return;
        }
        let (expires, fire) = crate::wheel::arm(now, t.saturating_sub(now), jiffy);
        self.delack_deadline = Some(SimTime(expires * jiffy.0));
        self.delack_fire = Some(fire);
    }

    /// Fire the delayed-ACK timer if due.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<TcpHeader>) {
        if self.read_fire.is_some_and(|d| d <= now) {
            // The application reads all in-order data: tcp_recvmsg ->
            // tcp_cleanup_rbuf ACKs if more than one segment is unACKed
            // (`rcv_nxt - rcv_wup > rcv_mss`) or a read segment carried PSH.
            self.read_fire = None;
            let pushed = std::mem::take(&mut self.read_pushed);
            // tcp_recvmsg: tcp_rcv_space_adjust, then tcp_cleanup_rbuf.
            let read = if self.lw.is_some() {
                self.read_all(now)
            } else {
                0
            };
            if self.pending > 0 && (self.pending >= self.cfg.delack_segments || pushed) {
                self.send_ack(now, out);
                return;
            }
            if self.lw.is_some() {
                let sent = self.stats.acks_sent;
                self.window_update(now, read, out);
                if self.stats.acks_sent != sent {
                    return;
                }
            }
        }
        if self.comp_fire.is_some_and(|d| d <= now) {
            // tcp_compressed_ack_kick: the held ACKs go as one.
            self.send_ack(now, out);
            return;
        }
        if self.delack_fire.is_some_and(|d| d <= now) {
            if self.cfg.adaptive_delack {
                self.lack.on_timer();
            }
            self.send_ack(now, out);
        }
    }
}
