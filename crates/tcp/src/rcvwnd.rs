//! Linux 6.x's receive window (`buffer_accounting = "linux"`): the receive
//! buffer autotuned from `tcp_rmem[1]` up to `tcp_rmem[2]`, the window taken
//! from the free buffer and `rcv_ssthresh`, and whether an ACK may leave at
//! once.
//!
//! Followed (net/ipv4/tcp_input.c, tcp_output.c, include/net/tcp.h, Linux
//! 6.18; the pieces checked against `ss -tmi` of a real receiver, docs/tcp.md):
//! - `tcp_win_from_space` / `tcp_space_from_win`: window = space x
//!   `scaling_ratio` / 256, the ratio measured on the first full segment as
//!   its length over its skb's truesize (`tcp_measure_rcv_mss`), 128 before;
//! - `tcp_select_initial_window`: the SYN-ACK offers the full space of the
//!   initial buffer rounded down to whole segments; `rcv_ssthresh` starts
//!   there, `tcp_init_buffer_space` clamps the window to the full space less
//!   one segment and sets `rcvq_space` to at most 10 segments;
//! - `tcp_grow_window`: on each data segment of 128 bytes or more, if
//!   min(`window_clamp`, free space) exceeds `rcv_ssthresh`, it grows by
//!   that room, at most max(2 x advmss, 2 x len) (the kernel's further test
//!   on a short segment's truesize, `__tcp_grow_window`, is not made: every
//!   segment passes it as a full one does), and grants one quick ACK
//!   (`icsk_ack.quick |= 1`). An in-order segment is charged before
//!   (`tcp_queue_rcv`, then `tcp_event_data_recv`); an out-of-order one
//!   after (`tcp_data_queue_ofo`: the grow comes before `skb_set_owner_r`);
//! - `__tcp_select_window`: min(free space, `rcv_ssthresh`) rounded up to the
//!   window scale's unit (below half the full space: rounded down, 0 under
//!   1/16 of it or one segment); `tcp_select_window`: never less than what
//!   is left of the window last offered (`rcv_wup + rcv_wnd - rcv_nxt`),
//!   then `rcv_wnd`, `rcv_wup = rcv_nxt`;
//! - `__tcp_ack_snd_check`: a second full segment is ACKed at once only if
//!   `__tcp_select_window() >= rcv_wnd`, the window would not shrink; else
//!   `tcp_recvmsg` -> `tcp_cleanup_rbuf` ACKs when the application has read
//!   (or, with the window left at most half the clamp, when the read doubles
//!   it). With the segment charged in the softirq and nothing at the read,
//!   the two differ by a segment's buffer: which one sent the last ACK
//!   decides the next (docs/tcp.md);
//! - `tcp_rcv_space_adjust` (in `tcp_recvmsg`, before `tcp_cleanup_rbuf`):
//!   once per receiver RTT (`rcv_rtt_est`, 0: never), the bytes read since
//!   the last measure less those still queued; more than `rcvq_space` grows
//!   the buffer (`tcp_rcvbuf_grow`: window 2 x copied, plus twice that times
//!   the relative growth, plus the out-of-order span; the buffer its space,
//!   at most `tcp_rmem[2]`, never smaller) and `window_clamp` follows it;
//! - `tcp_data_queue_ofo` (6.18) grows the buffer too, for twice the last
//!   measure plus the out-of-order span (`tcp_rcvbuf_grow(sk,
//!   rcvq_space.space)`: a real receiver's `ss` shows such steps with
//!   `rcvq_space` unchanged).
//!
//! Each segment is charged `len + SKB_OVERHEAD` (`truesize`): the measured
//! full segment's skb, scaled by length. Without window scaling the kernel
//! rounds the window down to whole segments and keeps `rcv_wnd` within one
//! segment of the free space; that branch is not modelled (the window is
//! the free space). Not modelled either: memory pressure and pruning
//! (`tcp_clamp_window`,
//! `tcp_prune_queue`: the buffers here stay far below `rcvbuf`), skb
//! coalescing (every segment costs one skb's truesize), the backlog, and the
//! low-RTT damping of `tcp_rcvbuf_grow` (`tcp_rcvbuf_low_rtt`, RTTs under
//! 1 ms).

use tcplab_engine::SimTime;

/// `TCP_RMEM_TO_WIN_SCALE`.
const WIN_SCALE: u32 = 8;
/// `TCP_DEFAULT_SCALING_RATIO`: half the buffer, until measured.
const DEFAULT_RATIO: u64 = 1 << (WIN_SCALE - 1);
/// `tcp_rmem[1]`: the buffer a connection starts with.
pub const RMEM_DEFAULT: u64 = 131_072;
/// `tcp_rmem[2]`'s default (6 MiB): the most the buffer grows to.
pub const RMEM_MAX: u64 = 6 << 20;
/// The buffer a full segment's skb takes (`skb->truesize`), measured on
/// the reference machine (Linux 6.18, received through a TUN device):
/// `rcv_ssthresh` sat 1440 bytes, win(2304) at ratio 160, below the full
/// space, and the ratio (1448 x 256 / 2304 = 160) gives the buffer sizes
/// `ss` reported.
pub const SEG_TRUESIZE: u64 = 2304;
/// What a received skb costs beyond its payload, from `SEG_TRUESIZE`:
/// a segment of `len` bytes is charged `len + SKB_OVERHEAD` (an
/// approximation away from 1448 bytes: the kernel's cost goes by
/// allocation sizes).
pub const SKB_OVERHEAD: u64 = SEG_TRUESIZE - 1448;

/// The buffer a received segment of `len` payload bytes is charged.
pub fn truesize(len: u64) -> u64 {
    len + SKB_OVERHEAD
}
/// `TCP_INIT_CWND`: `rcvq_space` starts at most this many segments.
const INIT_CWND: u64 = 10;

/// One receiver's window state.
#[derive(Clone, Debug)]
pub struct LinuxRcvWnd {
    rmem_max: u64,
    /// `sk_rcvbuf`.
    pub rcvbuf: u64,
    /// `scaling_ratio` (x 256).
    pub ratio: u64,
    /// `window_clamp`.
    pub clamp: u64,
    /// `rcv_ssthresh`.
    pub ssthresh: u64,
    /// `rcv_wnd` (bytes) and `rcv_wup`: the window last offered and the
    /// `rcv_nxt` it was offered at.
    pub wnd: u64,
    wup: u64,
    /// The window scale's unit (1 << `rcv_wscale`).
    unit: u64,
    advmss: u64,
    ratio_measured: bool,
    /// `rcvq_space`: the bytes read in the last measured RTT, where and when
    /// the measure started.
    pub space: u64,
    space_seq: u64,
    space_time: SimTime,
}

/// Round `x` up to a multiple of `unit` (`ALIGN`).
fn align_up(x: u64, unit: u64) -> u64 {
    x.div_ceil(unit) * unit
}

impl LinuxRcvWnd {
    /// The state a SYN-ACK starts (`tcp_select_initial_window`,
    /// `tcp_init_buffer_space`): buffer `tcp_rmem[1]`, at most `rmem_max`
    /// (`tcp_rmem[2]`), window scale `wscale`, `advmss` the receiver's
    /// segment payload.
    pub fn new(rmem_max: u64, wscale: u8, advmss: u32) -> Self {
        let advmss = advmss.max(1) as u64;
        // The sysctls are ints (at most 2^31 - 1 bytes).
        let rmem_max = rmem_max.min(i32::MAX as u64);
        let rcvbuf = RMEM_DEFAULT.min(rmem_max);
        let ratio = DEFAULT_RATIO;
        let full = (rcvbuf * ratio) >> WIN_SCALE;
        // tcp_select_initial_window: the full space in whole segments
        // (when it holds more than one).
        let whole = if full > advmss {
            full / advmss * advmss
        } else {
            full
        };
        let wnd = whole.min(65_535 << wscale);
        // tcp_init_buffer_space: clamp = full space less one segment.
        let mut clamp = full;
        if clamp > 2 * advmss && clamp + advmss > full {
            clamp = (2 * advmss).max(full - advmss);
        }
        let ssthresh = wnd.min(clamp);
        LinuxRcvWnd {
            rmem_max,
            rcvbuf,
            ratio,
            clamp,
            ssthresh,
            wnd,
            wup: 0,
            unit: 1 << wscale,
            advmss,
            ratio_measured: false,
            space: ssthresh.min(wnd).min(INIT_CWND * advmss),
            space_seq: 0,
            space_time: SimTime::ZERO,
        }
    }

    /// The connection opens at `rcv_nxt` (the first data byte) at `now`.
    pub fn open(&mut self, rcv_nxt: u64, now: SimTime) {
        self.wup = rcv_nxt;
        self.space_seq = rcv_nxt;
        self.space_time = now;
    }

    fn win(&self, space: u64) -> u64 {
        (space * self.ratio) >> WIN_SCALE
    }

    fn space_from_win(&self, win: u64) -> u64 {
        (((win as u128) << WIN_SCALE) / self.ratio.max(1) as u128).min(u64::MAX as u128) as u64
    }

    /// `tcp_full_space`.
    pub fn full_space(&self) -> u64 {
        self.win(self.rcvbuf)
    }

    /// `tcp_space` with `charged` bytes of skbs held.
    fn free(&self, charged: u64) -> u64 {
        self.win(self.rcvbuf.saturating_sub(charged))
    }

    /// `tcp_measure_rcv_mss` on a segment of `len` bytes: the first full one
    /// measures the ratio, and the clamp follows the buffer
    /// (`tcp_set_window_clamp`).
    fn measure(&mut self, len: u64) {
        if self.ratio_measured || len < self.advmss {
            return;
        }
        self.ratio_measured = true;
        // `scaling_ratio` is a u8.
        let ratio = ((len << WIN_SCALE) / truesize(len)).clamp(1, 255);
        if ratio == self.ratio {
            return;
        }
        self.ratio = ratio;
        let new = self.full_space();
        self.ssthresh = if new < self.clamp {
            self.ssthresh.min(new)
        } else {
            self.ssthresh.max(self.wnd.min(new))
        };
        self.clamp = new;
        self.space = self.space.min(self.clamp);
    }

    /// A data segment of `len` bytes arrived with `charged` bytes of skbs
    /// held (the segment's own skb included for in-order data, not for
    /// out-of-order data): `tcp_measure_rcv_mss` and `tcp_grow_window`.
    /// Returns whether the window grew (a quick ACK is granted).
    pub fn on_data(&mut self, len: u64, charged: u64) -> bool {
        self.measure(len);
        if len < 128 {
            return false;
        }
        let room = self
            .clamp
            .min(self.free(charged))
            .saturating_sub(self.ssthresh);
        if room == 0 {
            return false;
        }
        // Check #2: win(truesize) <= len gives 2 x advmss (a full segment's
        // skb always does once the ratio is measured from it).
        let incr = (2 * self.advmss).max(2 * len);
        self.ssthresh += room.min(incr);
        true
    }

    /// `__tcp_select_window` with `charged` bytes held.
    pub fn select(&self, charged: u64) -> u64 {
        let full_space = self.full_space();
        let full = self.clamp.min(full_space);
        let mut free = self.free(charged);
        if free < full / 2 {
            free -= free % self.unit;
            if free < full_space / 16 || free < self.advmss {
                return 0;
            }
        }
        align_up(free.min(self.ssthresh), self.unit)
    }

    /// `__tcp_ack_snd_check`'s window test for the ACK of a second full
    /// segment: the window now would be at least the one last offered.
    pub fn ack_at_once(&self, charged: u64) -> bool {
        self.select(charged) >= self.wnd
    }

    /// `tcp_cleanup_rbuf`'s window update after a read that leaves
    /// `charged` bytes held, at `rcv_nxt`: with what is left of the offered
    /// window at most half the clamp, an ACK if the window now is at least
    /// twice that.
    pub fn update_after_read(&self, rcv_nxt: u64, charged: u64) -> bool {
        let left = self.left(rcv_nxt);
        if 2 * left > self.clamp {
            return false;
        }
        let new = self.select(charged);
        new > 0 && new >= 2 * left
    }

    fn left(&self, rcv_nxt: u64) -> u64 {
        (self.wup + self.wnd).saturating_sub(rcv_nxt)
    }

    /// `tcp_select_window`: the window an ACK sent now at `rcv_nxt` with
    /// `charged` bytes held offers (bytes), never less than what is left of
    /// the last one.
    pub fn on_ack_sent(&mut self, rcv_nxt: u64, charged: u64) -> u64 {
        let cur = self.left(rcv_nxt);
        let mut new = self.select(charged);
        if new < cur {
            new = align_up(cur, self.unit);
        }
        self.wnd = new;
        self.wup = rcv_nxt;
        new
    }

    /// `tcp_rcv_space_adjust` after a read at `now` that brought
    /// `copied_seq` (the bytes read) with `rcv_nxt` received, `ooo_end` the
    /// end of the out-of-order data held (0: none) and `rcv_rtt` the
    /// receiver's RTT estimate (`rcv_rtt_est`, zero: not measured).
    pub fn on_read(
        &mut self,
        now: SimTime,
        copied_seq: u64,
        rcv_nxt: u64,
        ooo_end: u64,
        rcv_rtt: SimTime,
    ) {
        if rcv_rtt == SimTime::ZERO || now.saturating_sub(self.space_time) < rcv_rtt {
            return;
        }
        let copied = (copied_seq - self.space_seq).saturating_sub(rcv_nxt - copied_seq);
        if copied > self.space {
            self.grow_rcvbuf(copied, ooo_end.saturating_sub(rcv_nxt));
        }
        self.space_seq = copied_seq;
        self.space_time = now;
    }

    /// `tcp_data_queue_ofo` ends in `tcp_rcvbuf_grow(sk,
    /// rcvq_space.space)` (Linux 6.18): with no growth term, the buffer
    /// for twice the last measure plus the out-of-order span (`rcv_nxt` to
    /// `ooo_end`), if that is more than it has.
    pub fn on_ofo_queued(&mut self, rcv_nxt: u64, ooo_end: u64) {
        self.grow_rcvbuf(self.space, ooo_end.saturating_sub(rcv_nxt));
    }

    /// `tcp_rcvbuf_grow(newval)`.
    fn grow_rcvbuf(&mut self, newval: u64, ooo_span: u64) {
        let old = self.space.max(1);
        self.space = newval;
        let mut rcvwin = newval << 1;
        // Slow start: let the sender double its rate.
        let grow = (rcvwin as u128 * (newval - old.min(newval)) as u128 / old as u128) as u64;
        rcvwin = rcvwin.saturating_add(grow.saturating_mul(2));
        rcvwin += ooo_span;
        let rcvbuf = self.space_from_win(rcvwin).min(self.rmem_max);
        if rcvbuf > self.rcvbuf {
            self.rcvbuf = rcvbuf;
            self.clamp = self.win(rcvbuf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A receiver whose scaling ratio was measured on full 1448-byte
    /// segments (160) and whose buffer is `rcvbuf`, tcp_rmem[2]
    /// `rmem_max`, window scale `wscale`.
    fn measured(rmem_max: u64, wscale: u8, rcvbuf: u64) -> LinuxRcvWnd {
        let mut w = LinuxRcvWnd::new(rmem_max, wscale, 1448);
        w.ratio = 160;
        w.ratio_measured = true;
        w.rcvbuf = rcvbuf;
        w
    }

    /// The buffer sizes and `rcv_ssthresh` levels a real receiver went
    /// through (`ss -tmi` in its namespace, Linux 6.18, 1448-byte segments,
    /// tcp_rmem 4096 131072 33554432, window scale 10), worked by hand from
    /// the functions cited in the header.
    #[test]
    fn the_start_follows_the_kernels_numbers() {
        let mut w = LinuxRcvWnd::new(33_554_432, 10, 1448);
        // Full space at the default ratio: 131072 / 2 = 65536; the SYN-ACK
        // offers it in whole segments, 45 x 1448 = 65160 (captured).
        assert_eq!(w.wnd, 65_160);
        // tcp_init_buffer_space: clamp 65536 - 1448 = 64088, rcv_ssthresh
        // min(65160, 64088), rcvq_space min(.., 10 x 1448).
        assert_eq!(w.clamp, 64_088);
        assert_eq!(w.ssthresh, 64_088);
        assert_eq!(w.space, 14_480);
        w.open(1, SimTime::ZERO);
        // The first full segment: ratio 1448 x 256 / 2304 = 160, full space
        // 131072 x 160 / 256 = 81920, the clamp follows and rcv_ssthresh
        // takes min(rcv_wnd, clamp) = 65160.
        let grew = w.on_data(1448, SEG_TRUESIZE);
        assert_eq!(w.ratio, 160);
        assert_eq!(w.clamp, 81_920);
        // Then it grows by the room, at most 2 x 1448: 65160 + 2896.
        assert!(grew);
        assert_eq!(w.ssthresh, 65_160 + 2_896);
        // With one skb charged the free space is 81920 - win(2304) = 80480:
        // where rcv_ssthresh stops (ss: rcv_ssthresh 80480 at rcvbuf 131072).
        for _ in 0..10 {
            w.on_data(1448, SEG_TRUESIZE);
        }
        assert_eq!(w.ssthresh, 80_480);
        assert!(!w.on_data(1448, SEG_TRUESIZE));
    }

    /// `tcp_rcvbuf_grow` from rcvq_space 209960 to 406888 at ratio 160:
    /// window 2 x 406888 = 813776, plus twice 813776 x 196928 / 209960 =
    /// 763265 (integer division), 2340306; the buffer 2340306 x 256 / 160 =
    /// 3744489, what `ss` reported for the real receiver. (Its next step,
    /// 406888 to 905000, gives 9986560 by the same rule where `ss` reported
    /// 10063014: the out-of-order span the kernel adds, 47784 bytes, 33
    /// segments held during the start-up's recovery.)
    #[test]
    fn the_buffer_grows_as_tcp_rcvbuf_grow() {
        let mut w = measured(33_554_432, 10, 1_763_664);
        w.space = 209_960;
        w.grow_rcvbuf(406_888, 0);
        assert_eq!(w.rcvbuf, 3_744_489);
        assert_eq!(w.clamp, 3_744_489 * 160 / 256);
        assert_eq!(w.space, 406_888);
        // Never beyond tcp_rmem[2], never smaller.
        w.grow_rcvbuf(30_000_000, 0);
        assert_eq!(w.rcvbuf, 33_554_432);
        w.grow_rcvbuf(30_000_001, 0);
        assert_eq!(w.rcvbuf, 33_554_432);
    }

    /// The two ACK regimes of a bulk receiver whose buffer has stopped
    /// growing (the captured receiver: window 6141 x 1024 while every
    /// second segment was ACKed at once, 6142 x 1024 once they waited for
    /// the read): rcv_ssthresh one skb below the full space, the ACK sent
    /// from the softirq with one skb charged offers ALIGN(full - 1440); the
    /// next second segment finds the same window and goes at once. The
    /// first out-of-order segment (charged after the grow) lifts
    /// rcv_ssthresh to the full space; an ACK sent at the read (nothing
    /// charged) offers ALIGN(full), and the softirq test fails from then on.
    #[test]
    fn the_window_test_is_bistable_after_an_out_of_order_segment() {
        let mut w = measured(33_554_432, 10, 10_063_014);
        w.clamp = w.full_space();
        assert_eq!(w.clamp, 6_289_383); // ss: rcv_ssthresh after the loss
        w.ssthresh = 0;
        w.open(1, SimTime::ZERO);
        // Grow to the plateau with one skb charged: 6289383 - 1440.
        let mut nxt = 1u64;
        for _ in 0..5000 {
            nxt += 1448;
            w.on_data(1448, SEG_TRUESIZE);
        }
        assert_eq!(w.ssthresh, 6_287_943); // ss: rcv_ssthresh before the loss
                                           // Phase A: the ACK leaves at once and offers 6141 units.
        assert!(w.ack_at_once(SEG_TRUESIZE));
        assert_eq!(w.on_ack_sent(nxt, SEG_TRUESIZE), 6141 * 1024);
        nxt += 2 * 1448;
        assert!(w.ack_at_once(SEG_TRUESIZE));
        w.on_ack_sent(nxt, SEG_TRUESIZE);
        // An out-of-order segment with nothing else held: no skb charged
        // at the grow, rcv_ssthresh reaches the full space.
        w.on_data(1448, 0);
        assert_eq!(w.ssthresh, 6_289_383);
        // The ACK of the next pair still goes at once (rcv_wnd 6141 units)
        // ... but one sent at the read offers 6142 units,
        nxt += 2 * 1448;
        assert!(w.ack_at_once(SEG_TRUESIZE));
        assert_eq!(w.on_ack_sent(nxt, 0), 6142 * 1024);
        // and from then on the softirq test fails: 6141 < 6142 units.
        nxt += 2 * 1448;
        assert!(!w.ack_at_once(SEG_TRUESIZE));
        assert_eq!(w.on_ack_sent(nxt, 0), 6142 * 1024);
        assert!(!w.ack_at_once(SEG_TRUESIZE));
    }

    /// `__tcp_select_window` below half the full space: rounded down to the
    /// unit, 0 under 1/16 of the full space; `tcp_select_window` keeps what
    /// is left of the last window.
    #[test]
    fn a_nearly_full_buffer_offers_what_is_left() {
        let mut w = measured(6_291_456, 7, 1_000_000);
        w.clamp = w.full_space(); // 625000
        w.ssthresh = w.clamp;
        w.open(1, SimTime::ZERO);
        // Free 625000 - win(700000) = 625000 - 437500 = 187500 < 312500:
        // rounded down to 128, 187392.
        assert_eq!(w.select(700_000), 187_392);
        // 1/16 of the full space is 39062: less is a zero window.
        assert_eq!(w.select(950_000), 0);
        // An ACK offering less than what is left of the last window keeps
        // the right edge: 625000 rounded up was offered at 1; at 1 + 100000
        // 525056 is left, rounded up to 525056.
        assert_eq!(w.on_ack_sent(1, 0), 625_024);
        assert_eq!(w.on_ack_sent(100_001, 950_000), 525_056);
    }

    /// A buffer smaller than two segments: the SYN-ACK offers its whole
    /// space (no rounding to segments when it holds one or less), not 0.
    #[test]
    fn a_tiny_buffer_still_offers_its_space() {
        let w = LinuxRcvWnd::new(2800, 0, 1448);
        // 2800 x 128 / 256 = 1400, less than one segment.
        assert_eq!(w.wnd, 1400);
        assert_eq!(w.select(0), 1400);
    }

    /// Jumbo segments: each skb costs its payload plus 856 bytes, so
    /// `scaling_ratio` (a u8 in the kernel) stays below 256: 8948 x 256 /
    /// 9804 = 233.
    #[test]
    fn the_scaling_ratio_stays_a_byte() {
        let mut w = LinuxRcvWnd::new(6 << 20, 7, 8948);
        w.on_data(8948, truesize(8948));
        assert_eq!(w.ratio, 233);
        // However long the segment, its skb costs more than its payload:
        // 65000 x 256 / 65856 = 252.
        let mut big = LinuxRcvWnd::new(6 << 20, 7, 65_000);
        big.on_data(65_000, truesize(65_000));
        assert_eq!(big.ratio, 252);
    }

    /// An out-of-order segment grows the buffer without a new measure
    /// (6.18's `tcp_data_queue_ofo`): rcvq_space 28960 and 72400 bytes
    /// held beyond rcv_nxt give the window 2 x 28960 + 72400 = 130320,
    /// the buffer 130320 x 256 / 160 = 208512 (what `ss` showed a real
    /// receiver reach from 189555 with rcvq_space at 28960); a smaller
    /// span leaves it.
    #[test]
    fn an_out_of_order_segment_grows_the_buffer() {
        let mut w = measured(33_554_432, 10, 189_555);
        w.space = 28_960;
        w.on_ofo_queued(1_000, 1_000 + 72_400);
        assert_eq!(w.rcvbuf, 208_512);
        assert_eq!(w.clamp, 208_512 * 160 / 256);
        assert_eq!(w.space, 28_960);
        w.on_ofo_queued(1_000, 1_000 + 1_448);
        assert_eq!(w.rcvbuf, 208_512);
    }
}
