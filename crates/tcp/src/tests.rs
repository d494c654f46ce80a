//! Segment-level tests of the sender and receiver (smoltcp/packetdrill style):
//! each drives the endpoints with explicit segments at explicit times and checks
//! what comes out against the RFCs' rules worked by hand.

use crate::cc::{self, CaState, CcParams, CwndEvent};
use crate::header::{TcpHeader, ACK, CWR, ECE, FIN, SYN};
use crate::profile::{profile, Handshake, NewRenoRto, Recovery, TcpConfig};
use crate::receiver::Receiver;
use crate::scoreboard::{LOST, RETRANS, SACKED};
use crate::sender::{Sender, SenderState};
use tcplab_engine::SimTime;
use tcplab_net::Ecn;

const MSS: u64 = 1448;

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

fn cfg() -> TcpConfig {
    let mut c = profile("rfc").unwrap().config;
    c.initial_window = 2;
    c
}

fn sender(c: &TcpConfig, ccname: &str) -> Sender {
    Sender::new(c.clone(), cc::make(ccname, &CcParams::new()).unwrap(), None)
}

/// Handshake through a real receiver with a 100 ms RTT; returns the sender, the
/// receiver and the data segments the sender sent on establishment (at t = 100 ms).
fn established(c: &TcpConfig, ccname: &str) -> (Sender, Receiver, Vec<TcpHeader>) {
    established_with(c, cc::make(ccname, &CcParams::new()).unwrap())
}

/// `established` with a controller of the test's own.
fn established_with(
    c: &TcpConfig,
    ctl: Box<dyn cc::CongestionControl>,
) -> (Sender, Receiver, Vec<TcpHeader>) {
    established_transfer(c, ctl, None)
}

/// `established_with` for an application of `bytes` (None: bulk).
fn established_transfer(
    c: &TcpConfig,
    ctl: Box<dyn cc::CongestionControl>,
    bytes: Option<u64>,
) -> (Sender, Receiver, Vec<TcpHeader>) {
    let mut s = Sender::new(c.clone(), ctl, bytes);
    let mut r = Receiver::new(c.clone());
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    let syn = out.pop().unwrap();
    let mut back = vec![];
    r.on_segment(ms(50), &syn, &mut back);
    s.on_segment(ms(100), &back[0], &mut out);
    (s, r, out)
}

/// An ACK from the receiver as the sender sees it.
fn ack(ackno: u64, sacks: &[(u64, u64)], ts: bool, tsecr: u64) -> TcpHeader {
    let mut h = TcpHeader {
        flags: ACK,
        seq: 1,
        ack: ackno,
        wnd: 65535,
        has_ts: ts,
        tsecr,
        ..Default::default()
    };
    h.wnd = (4u64 << 20 >> 7) as u32; // the rfc profile's 4 MiB buffer with shift 7
    for (i, &b) in sacks.iter().enumerate() {
        h.set_sack(i, b);
    }
    h.nsack = sacks.len() as u8;
    h
}

fn seg_start(i: u64) -> u64 {
    1 + i * MSS
}

fn data_seqs(out: &[TcpHeader]) -> Vec<u64> {
    out.iter()
        .filter(|h| h.payload > 0)
        .map(|h| (h.seq - 1) / MSS)
        .collect()
}

#[test]
fn handshake_negotiates_mss_sack_timestamps_and_window_scale() {
    let c = cfg();
    let mut s = sender(&c, "newreno");
    let mut r = Receiver::new(c.clone());
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    let syn = out[0];
    assert!(syn.has(SYN) && !syn.has(ACK));
    assert_eq!(
        (syn.seq, syn.mss, syn.sack_perm, syn.has_ts),
        (0, 1460, true, true)
    );
    // 4 MiB buffer: 4194304 >> 6 = 65536 > 65535, >> 7 = 32768: shift 7.
    assert_eq!(syn.wscale, Some(7));
    let mut back = vec![];
    r.on_segment(ms(50), &syn, &mut back);
    let sa = back[0];
    assert!(sa.has(SYN) && sa.has(ACK));
    assert_eq!(
        (sa.ack, sa.wscale, sa.sack_perm, sa.has_ts, sa.tsecr),
        (1, Some(7), true, true, 0)
    );
    out.clear();
    s.on_segment(ms(100), &sa, &mut out);
    assert_eq!(s.state(), SenderState::Established);
    assert!(s.sack_ok() && s.ts_ok());
    // MSS 1460 minus 12 bytes of timestamp option.
    assert_eq!(s.mss(), 1448);
    // A full segment: 20 (IP) + 20 (TCP) + 12 (timestamps) + 1448 = 1500 bytes.
    assert_eq!(s.full_segment_bytes(), 1500);
    // Handshake RTT is the first sample: 100 ms.
    assert_eq!(s.rtt().srtt(), Some(ms(100)));
    // IW 2 data segments leave at once, each a 1500-byte packet.
    assert_eq!(data_seqs(&out), vec![0, 1]);
    assert!(out.iter().all(|h| h.wire_size() == 1500 && h.has(ACK)));
}

#[test]
fn options_are_off_when_the_peer_does_not_offer_them() {
    let mut c = cfg();
    let mut peer = cfg();
    peer.sack = false;
    peer.timestamps = false;
    peer.window_scaling = false;
    c.rcvbuf = 1 << 20;
    let mut s = sender(&c, "newreno");
    let mut r = Receiver::new(peer);
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    let mut back = vec![];
    r.on_segment(ms(1), &out[0], &mut back);
    assert_eq!(
        (back[0].sack_perm, back[0].has_ts, back[0].wscale),
        (false, false, None)
    );
    out.clear();
    s.on_segment(ms(2), &back[0], &mut out);
    assert!(!s.sack_ok() && !s.ts_ok());
    assert_eq!(s.mss(), 1460);
    assert_eq!(s.rwnd(), 65535);
    assert_eq!(s.recovery(), Recovery::Sack); // asked for, but falls back to NewReno rules
}

/// Windows 7 (p0f 3's fingerprints): its own SYN offers no timestamps, but
/// its SYN+ACK answers a SYN that offers them. A FreeBSD sender opening to a
/// Windows receiver gets timestamps (1448-byte segments, echoes on the
/// ACKs); a Windows sender opening to a FreeBSD receiver gets none (1460).
#[test]
fn windows_answers_timestamps_it_does_not_offer() {
    let win = profile("windows").unwrap().config;
    let bsd = profile("freebsd").unwrap().config;
    assert!(!win.timestamps && win.answer_timestamps);
    for (snd, rcv, ts) in [(&bsd, &win, true), (&win, &bsd, false), (&win, &win, false)] {
        let mut s = sender(snd, "newreno");
        let mut r = Receiver::new(rcv.clone());
        let mut out = vec![];
        s.start(SimTime::ZERO, &mut out);
        assert_eq!(out[0].has_ts, snd.timestamps, "the opener's SYN");
        let mut back = vec![];
        r.on_segment(ms(1), &out[0], &mut back);
        assert_eq!(back[0].has_ts, ts, "the SYN+ACK");
        out.clear();
        s.on_segment(ms(2), &back[0], &mut out);
        assert_eq!(s.ts_ok(), ts);
        assert_eq!(s.mss(), if ts { 1448 } else { 1460 });
        // The first data segment, and the receiver's ACK of it, carry the option iff agreed.
        let data = *out.iter().find(|h| h.payload > 0).expect("data");
        assert_eq!(data.has_ts, ts);
        let mut acks = vec![];
        r.on_segment(ms(3), &data, &mut acks);
        r.on_timer(ms(1000), &mut acks);
        assert!(!acks.is_empty() && acks.iter().all(|a| a.has_ts == ts));
    }
}

#[test]
fn linux_answers_the_syn_ack_with_a_pure_ack_then_its_initial_window() {
    // tcp_rcv_synsent_state_process: tcp_send_ack(sk), then the queued data
    // goes out under IW 10 (a capture of this kernel shows the same: SYN,
    // pure ACK, ten segments). The freebsd profile's first segment carries
    // the ACK instead.
    for (name, first_is_pure) in [("linux", true), ("freebsd", false)] {
        let c = profile(name).unwrap().config;
        assert_eq!(c.ack_before_data, first_is_pure);
        let mut s = sender(&c, "newreno");
        let mut r = Receiver::new(c.clone());
        let mut out = vec![];
        s.start(SimTime::ZERO, &mut out);
        let mut back = vec![];
        r.on_segment(ms(1), &out[0], &mut back);
        out.clear();
        s.on_segment(ms(2), &back[0], &mut out);
        assert_eq!(out[0].payload == 0, first_is_pure, "{name}");
        assert!(out[0].has(ACK));
        let data: Vec<_> = out.iter().filter(|h| h.payload > 0).collect();
        assert_eq!(data.len() as u32, c.initial_window, "{name}");
        assert_eq!(out.len(), data.len() + usize::from(first_is_pure), "{name}");
        assert_eq!(data[0].seq, 1);
    }
}

#[test]
fn slow_start_with_an_ack_per_segment_adds_one_segment_per_ack() {
    // IW 2; 7 segments acknowledged one ACK each: cwnd = 2 + 7 = 9.
    let c = cfg();
    let (mut s, _, _) = established(&c, "newreno");
    let mut out = vec![];
    let mut acked = 0;
    let mut t = 200;
    while acked < 7 {
        acked += 1;
        s.on_segment(ms(t), &ack(seg_start(acked), &[], false, 0), &mut out);
        t += 1;
    }
    assert_eq!(s.tp.cwnd, 9);
    // Each ACK of one segment released two: 2 + 7 * 2 = 16 segments sent in all.
    assert_eq!(s.snd_max, seg_start(16));
}

#[test]
fn slow_start_doubles_per_rtt_with_and_without_delayed_acks() {
    // Linux's counting (every acknowledged segment, ss_ack_limit 0) doubles
    // cwnd per round whether one ACK covers one segment or two. RFC 5681's one
    // segment per ACK (limit 1) doubles it only with an ACK per segment: with
    // one ACK per two segments a round of w segments adds ceil(w/2):
    // 2 -> 3 -> 5 -> 8 -> 12.
    for (limit, delack, expect) in [
        (0, false, [2, 4, 8, 16, 32]),
        (0, true, [2, 4, 8, 16, 32]),
        (1, false, [2, 4, 8, 16, 32]),
        (1, true, [2, 3, 5, 8, 12]),
    ] {
        let mut c = cfg();
        c.initial_window = 2;
        c.ss_ack_limit = limit;
        let (mut s, _, first) = established(&c, "newreno");
        let mut outstanding = data_seqs(&first).len() as u64;
        let mut next_ack = 0;
        let mut t = 200;
        let mut cwnds = vec![s.tp.cwnd];
        for _round in 0..4 {
            // The receiver acknowledges the whole flight, one ACK per segment or per two.
            let step = if delack { 2 } else { 1 };
            let mut out = vec![];
            let end = next_ack + outstanding;
            while next_ack < end {
                next_ack = (next_ack + step).min(end);
                s.on_segment(ms(t), &ack(seg_start(next_ack), &[], false, 0), &mut out);
            }
            outstanding = data_seqs(&out).len() as u64;
            t += 100;
            cwnds.push(s.tp.cwnd);
        }
        assert_eq!(cwnds, expect, "limit {limit}, delayed ACKs: {delack}");
    }
}

#[test]
fn congestion_avoidance_adds_one_segment_per_rtt() {
    let c = cfg();
    let (mut s, _, _) = established(&c, "newreno");
    s.tp.ssthresh = 2; // straight into congestion avoidance at cwnd 2
    let mut next = 0u64;
    let mut t = 200;
    let mut cwnds = vec![];
    for _rtt in 0..5 {
        let w = s.tp.cwnd as u64;
        let mut out = vec![];
        for _ in 0..w {
            next += 1;
            s.on_segment(ms(t), &ack(seg_start(next), &[], false, 0), &mut out);
        }
        t += 100;
        cwnds.push(s.tp.cwnd);
    }
    assert_eq!(cwnds, vec![3, 4, 5, 6, 7]);
}

fn no_sack_cfg() -> TcpConfig {
    let mut c = cfg();
    c.sack = false;
    c
}

#[test]
fn three_duplicate_acks_trigger_exactly_one_fast_retransmit() {
    // Segments 2..12 outstanding (cwnd 10), segment 2 lost: dupacks for 2 arrive.
    let c = no_sack_cfg();
    let (mut s, _, _) = established(&c, "newreno");
    let mut out = vec![];
    s.on_segment(ms(200), &ack(seg_start(2), &[], false, 0), &mut out);
    s.on_segment(ms(201), &ack(seg_start(2), &[], false, 0), &mut out);
    assert_eq!(s.dupacks(), 1);
    out.clear();
    s.on_segment(ms(202), &ack(seg_start(2), &[], false, 0), &mut out);
    s.on_segment(ms(203), &ack(seg_start(2), &[], false, 0), &mut out);
    assert_eq!(s.stats.fast_retransmits, 1);
    let rexmit: Vec<_> = out.iter().filter(|h| h.seq == seg_start(2)).collect();
    assert_eq!(rexmit.len(), 1, "one retransmission of the head");
    assert_eq!(s.ca_state(), CaState::Recovery);
    // More duplicates: no further retransmission of segment 2.
    out.clear();
    for k in 0..5 {
        s.on_segment(ms(204 + k), &ack(seg_start(2), &[], false, 0), &mut out);
    }
    assert!(out.iter().all(|h| h.seq != seg_start(2)));
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.stats.segs_retrans, 1);
}

#[test]
fn without_sack_a_new_recovery_waits_for_an_ack_above_recover() {
    // Linux tcp_try_undo_recovery ("hold old state until something *above*
    // high_seq is ACKed ... to prevent false fast retransmits") and ns-2's
    // bugfix_ (highest_ack_ > recover_): duplicate ACKs whose cumulative ACK is
    // still `recover` (the highest byte sent at the last entry, plus one) may be
    // for the recovery's own spurious retransmissions, and start nothing.
    let c = no_sack_cfg();
    let (mut s, _, _) = established(&c, "newreno");
    let mut out = vec![];
    for k in 0..3 {
        s.on_segment(ms(200 + k), &ack(seg_start(2), &[], false, 0), &mut out);
    }
    // recover = snd_max when the third duplicate ACK arrives (RFC 6582 (1)).
    let recover = s.snd_max;
    s.on_segment(ms(203), &ack(seg_start(2), &[], false, 0), &mut out);
    assert_eq!(s.stats.fast_retransmits, 1);
    // Full ACK of everything outstanding at entry: Open, new data goes out beyond it.
    out.clear();
    s.on_segment(ms(300), &ack(recover, &[], false, 0), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert!(s.snd_max > recover);
    // Three (and more) duplicates of ACK = recover: no new fast retransmit.
    for k in 0..5 {
        s.on_segment(ms(301 + k), &ack(recover, &[], false, 0), &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    // One segment above recover acknowledged, then three duplicates of it: a new recovery.
    let above = recover + MSS;
    s.on_segment(ms(400), &ack(above, &[], false, 0), &mut out);
    for k in 0..3 {
        s.on_segment(ms(401 + k), &ack(above, &[], false, 0), &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 2);
}

/// A NewReno sender established at 100 ms with cwnd = ssthresh = 10.
fn newreno_at_cwnd_10(c: &TcpConfig) -> Sender {
    let (mut s, _, _) = established(c, "newreno");
    s.tp.cwnd = 10;
    s.tp.ssthresh = 10;
    s
}

#[test]
fn newreno_recovery_follows_rfc6582() {
    // Window of 10 segments 0..9 sent, segments 3 and 6 lost.
    let mut s = newreno_at_cwnd_10(&no_sack_cfg());
    let mut out = vec![];
    // Release the whole window with an ACK of segment 0 -> segments 2..10 go out; cwnd 10 -> 10 + 1/10.
    s.on_segment(ms(200), &ack(seg_start(1), &[], false, 0), &mut out);
    assert_eq!(s.snd_max, seg_start(11)); // segments 0..10 sent, 1..10 outstanding
                                          // Segments 3 and 6 lost. 1 and 2 arrive: ACK 3. The window (cwnd 10, in congestion
                                          // avoidance) slides by two: 11 and 12 go out, 3..12 are outstanding.
    out.clear();
    s.on_segment(ms(201), &ack(seg_start(3), &[], false, 0), &mut out);
    assert_eq!(data_seqs(&out), vec![11, 12]);
    assert_eq!((s.snd_max - s.snd_una) / MSS, 10);
    // 4 and 5 arrive: two dupacks; 7 arrives: the third.
    out.clear();
    for k in 0..3 {
        s.on_segment(ms(202 + k), &ack(seg_start(3), &[], false, 0), &mut out);
    }
    // (1) ssthresh = max(FlightSize/2, 2) = 10/2 = 5; cwnd = ssthresh + 3 = 8; retransmit 3.
    assert_eq!(s.tp.ssthresh, 5);
    assert_eq!(s.tp.cwnd, 8);
    assert_eq!(data_seqs(&out), vec![3]);
    // (2) 8, 9 arrive: each dupack inflates by one (cwnd 10 = flight, nothing sent);
    // 10 arrives: cwnd 11 > flight 10, new segment 13 goes out.
    out.clear();
    s.on_segment(ms(205), &ack(seg_start(3), &[], false, 0), &mut out);
    s.on_segment(ms(206), &ack(seg_start(3), &[], false, 0), &mut out);
    assert_eq!(s.tp.cwnd, 10);
    assert!(data_seqs(&out).is_empty());
    s.on_segment(ms(207), &ack(seg_start(3), &[], false, 0), &mut out);
    assert_eq!(s.tp.cwnd, 11);
    assert_eq!(data_seqs(&out), vec![13]);
    // (4) partial ACK: the retransmitted 3 arrives, the receiver ACKs up to 6 (the next hole).
    // Retransmit 6 at once; deflate by the 3 segments acknowledged, add one: 11 - 3 + 1 = 9.
    out.clear();
    s.on_segment(ms(300), &ack(seg_start(6), &[], false, 0), &mut out);
    assert_eq!(data_seqs(&out)[0], 6);
    assert_eq!(s.tp.cwnd, 9);
    assert_eq!(s.ca_state(), CaState::Recovery);
    // (3) full ACK (covering recover = 13, the highest sent at entry): cwnd = ssthresh.
    out.clear();
    s.on_segment(ms(400), &ack(s.snd_max, &[], false, 0), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.tp.cwnd, 5);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.stats.segs_retrans, 2);
    // One loss episode: from the third duplicate ACK (204 ms, cwnd 10) to the
    // full ACK (400 ms, cwnd 5 = ssthresh), two retransmissions, no timeout.
    assert_eq!(
        s.episodes,
        vec![crate::sender::LossEpisode {
            start: ms(204),
            end: Some(ms(400)),
            timeout: false,
            tlp: false,
            cwnd: 10,
            ssthresh: 5,
            timeouts: 0,
            retrans: 2,
            cwnd_after: 5,
        }]
    );
}

#[test]
fn linux22_partial_acks_keep_the_inflated_window() {
    // The window of newreno_recovery_follows_rfc6582 on Linux 2.2's rule:
    // at the partial ACK cwnd stays 11 (ssthresh 5 + 3, +3 duplicate ACKs),
    // and the retransmission timer restarts (slow-but-steady).
    let mut c = no_sack_cfg();
    c.partial_keep = true;
    c.newreno_rto = NewRenoRto::SlowButSteady;
    let mut s = newreno_at_cwnd_10(&c);
    let mut out = vec![];
    s.on_segment(ms(200), &ack(seg_start(1), &[], false, 0), &mut out);
    s.on_segment(ms(201), &ack(seg_start(3), &[], false, 0), &mut out);
    for k in 0..6 {
        s.on_segment(ms(202 + k), &ack(seg_start(3), &[], false, 0), &mut out);
    }
    assert_eq!(s.tp.cwnd, 11);
    out.clear();
    s.on_segment(ms(300), &ack(seg_start(6), &[], false, 0), &mut out);
    assert_eq!(data_seqs(&out)[0], 6);
    assert_eq!(s.tp.cwnd, 11);
    assert_eq!(s.rto_deadline(), Some(ms(300) + s.rtt().rto()));
}

/// Linux 2.2.16's `__u8 dup_acks` (tcp_input.c `tcp_fast_retrans`,
/// `clear_fast_retransmit`), on the recovery of
/// `linux22_partial_acks_keep_the_inflated_window`: 256 duplicate ACKs in
/// all bring the counter back to 0, so the partial ACK resends nothing (the
/// Hoe branch needs dup_acks >= 3) and the timer runs from the head's
/// transmission (`tcp_ack_packets_out`); the ACK ending the recovery finds
/// the counter at 3 or less and keeps the inflated window.
#[test]
fn linux22_duplicate_ack_counter_wraps_at_256() {
    let run = |wrap: u32| {
        let mut c = no_sack_cfg();
        c.partial_keep = true;
        c.newreno_rto = NewRenoRto::SlowButSteady;
        c.dupack_wrap = wrap;
        c.rto_from_head = true;
        let mut s = newreno_at_cwnd_10(&c);
        let mut out = vec![];
        s.on_segment(ms(200), &ack(seg_start(1), &[], false, 0), &mut out);
        s.on_segment(ms(201), &ack(seg_start(3), &[], false, 0), &mut out);
        let sent6 = ms(200); // 2..12 left with the window the ACK of 0 opened
        for k in 0..256 {
            s.on_segment(
                ms(202) + SimTime::from_micros(k),
                &ack(seg_start(3), &[], false, 0),
                &mut out,
            );
        }
        out.clear();
        let now = ms(300);
        s.on_segment(now, &ack(seg_start(6), &[], false, 0), &mut out);
        (s, out, sent6, now)
    };
    // Entry at the 3rd duplicate: cwnd = ssthresh 5 + 3 = 8; the 4th to the
    // 255th add one each (252); the 256th wraps the counter to 0 and adds
    // nothing.
    let (mut s, out, sent6, now) = run(256);
    assert_eq!(s.dupacks(), 0);
    assert_eq!(s.tp.cwnd, 8 + 252);
    assert!(!data_seqs(&out).contains(&6), "6 not resent");
    assert_eq!(s.rto_deadline(), Some(sent6 + s.rtt().rto()));
    assert!(s.rto_deadline().unwrap() < now + s.rtt().rto());
    // The end of the recovery (everything sent before it, to 12, acknowledged):
    // the counter is 0, not above 3: cwnd stays inflated.
    let mut more = vec![];
    s.on_segment(ms(400), &ack(seg_start(13), &[], false, 0), &mut more);
    assert_eq!(s.ca_state(), CaState::Open);
    assert!(s.tp.cwnd >= 8 + 252, "{}", s.tp.cwnd);
    // Without the wrap every duplicate past the third inflates (253), 6 is
    // resent, and the end of the recovery deflates to ssthresh.
    let (mut s, out, _, now) = run(0);
    assert_eq!(s.tp.cwnd, 8 + 253);
    assert_eq!(data_seqs(&out)[0], 6);
    assert_eq!(s.rto_deadline(), Some(now + s.rtt().rto()));
    let mut more = vec![];
    s.on_segment(ms(400), &ack(seg_start(13), &[], false, 0), &mut more);
    assert_eq!(s.tp.cwnd, 5);
}

/// With `dupack_wrap` on and a counter that has not wrapped (10 duplicate
/// ACKs), the ACK ending the recovery deflates cwnd to ssthresh as
/// `clear_fast_retransmit` does when dup_acks > 3.
#[test]
fn linux22_recovery_end_deflates_when_the_counter_is_above_3() {
    for wrap in [0, 256] {
        let mut c = no_sack_cfg();
        c.partial_keep = true;
        c.newreno_rto = NewRenoRto::SlowButSteady;
        c.dupack_wrap = wrap;
        let mut s = newreno_at_cwnd_10(&c);
        let mut out = vec![];
        s.on_segment(ms(200), &ack(seg_start(1), &[], false, 0), &mut out);
        s.on_segment(ms(201), &ack(seg_start(3), &[], false, 0), &mut out);
        for k in 0..10 {
            s.on_segment(ms(202 + k), &ack(seg_start(3), &[], false, 0), &mut out);
        }
        // ssthresh 5 + 3 at the third, +1 for each of the 7 after it.
        assert_eq!(s.tp.cwnd, 15, "wrap {wrap}");
        s.on_segment(ms(300), &ack(seg_start(13), &[], false, 0), &mut out);
        assert_eq!(s.ca_state(), CaState::Open);
        assert_eq!(s.tp.cwnd, 5, "wrap {wrap}");
    }
}

/// Linux 2.2.16 `tcp_snd_test` (`tp->retransmits == 0`): after a timeout no
/// new data leaves until everything outstanding at the timeout is
/// acknowledged; the go-back-N resends the old window first.
#[test]
fn linux22_sends_nothing_new_until_the_timeout_window_is_acknowledged() {
    let run = |hold: bool| {
        let mut c = no_sack_cfg();
        c.rto_holds_new_data = hold;
        let mut s = newreno_at_cwnd_10(&c);
        let mut out = vec![];
        s.on_segment(ms(150), &ack(1, &[], false, 0), &mut out); // 0..9 out
        assert_eq!(s.snd_max, seg_start(10));
        let t = s.next_deadline().unwrap();
        out.clear();
        s.on_timer(t, &mut out); // 0 resent, cwnd 1
        assert_eq!(data_seqs(&out), vec![0]);
        // Everything to 8 arrives (the receiver held 1..8): cwnd 2, 9 resent,
        // and the second segment the window allows is new data, or nothing.
        out.clear();
        s.on_segment(t + ms(50), &ack(seg_start(9), &[], false, 0), &mut out);
        assert_eq!(s.ca_state(), CaState::Loss);
        data_seqs(&out)
    };
    assert_eq!(run(false), vec![9, 10]);
    assert_eq!(run(true), vec![9]);
}

#[test]
fn newreno_slow_but_steady_and_without_partial_deflation() {
    // The recovery of newreno_recovery_follows_rfc6582 (3 and 6 lost of 0..12,
    // ssthresh 5, cwnd 8 + 3 duplicate ACKs = 11, 13 sent) with ns-2's
    // WestwoodNR settings: newreno_changes1_ 0 (RFC 6582 section 4's
    // Slow-but-Steady: the timer restarts on every partial ACK) and
    // partial_window_deflation_ 0 (a partial ACK drops dupwnd_: the window is
    // back to cwnd_ = ssthresh 5). Against the Impatient variant, where only the
    // first partial ACK restarts the timer.
    let run = |rto: NewRenoRto, deflation: bool| {
        let mut c = no_sack_cfg();
        c.newreno_rto = rto;
        c.partial_deflation = deflation;
        let mut s = sender(&c, "newreno");
        let mut r = Receiver::new(c.clone());
        let mut out = vec![];
        s.start(SimTime::ZERO, &mut out);
        let mut back = vec![];
        r.on_segment(ms(50), &out[0], &mut back);
        s.on_segment(ms(100), &back[0], &mut out);
        s.tp.cwnd = 10;
        s.tp.ssthresh = 10;
        s.on_segment(ms(200), &ack(seg_start(1), &[], false, 0), &mut out);
        s.on_segment(ms(201), &ack(seg_start(3), &[], false, 0), &mut out);
        for k in 0..6 {
            s.on_segment(ms(202 + k), &ack(seg_start(3), &[], false, 0), &mut out);
        }
        assert_eq!((s.tp.ssthresh, s.tp.cwnd), (5, 11));
        // First partial ACK (up to 6) at 300 ms: the timer restarts in both.
        s.on_segment(ms(300), &ack(seg_start(6), &[], false, 0), &mut out);
        let first = (s.tp.cwnd, s.rto_deadline().unwrap());
        // A duplicate ACK inflates by one; a second partial ACK (up to 7, which
        // covers only the retransmitted 6: no RTT sample, the RTO is unchanged).
        s.on_segment(ms(301), &ack(seg_start(6), &[], false, 0), &mut out);
        let inflated = s.tp.cwnd;
        s.on_segment(ms(310), &ack(seg_start(7), &[], false, 0), &mut out);
        (first, inflated, s.tp.cwnd, s.rto_deadline().unwrap())
    };
    // RFC 6582: 11 - 3 + 1 = 9 at the first partial ACK, 10 after the duplicate,
    // 10 - 1 + 1 = 10 at the second; the timer stays where the first put it.
    let ((cwnd1, t1), inflated, cwnd2, t2) = run(NewRenoRto::Impatient, true);
    assert_eq!((cwnd1, inflated, cwnd2), (9, 10, 10));
    assert_eq!(t2, t1);
    // ns-2's WestwoodNR settings: back to 5 at each partial ACK, 6 in between;
    // the timer moves with the second partial ACK, 10 ms later.
    let ((cwnd1, t1), inflated, cwnd2, t2) = run(NewRenoRto::SlowButSteady, false);
    assert_eq!((cwnd1, inflated, cwnd2), (5, 6, 5));
    assert_eq!(t2, t1 + ms(10));
}

#[test]
fn reno_leaves_recovery_at_the_first_new_ack() {
    let c = no_sack_cfg();
    let (mut s, _, _) = established(&c, "reno");
    s.tp.cwnd = 10;
    s.tp.ssthresh = 10;
    let mut out = vec![];
    s.on_segment(ms(200), &ack(seg_start(1), &[], false, 0), &mut out);
    for k in 0..3 {
        s.on_segment(ms(201 + k), &ack(seg_start(1), &[], false, 0), &mut out);
    }
    assert_eq!(s.ca_state(), CaState::Recovery);
    let ssthresh = s.tp.ssthresh;
    out.clear();
    // A partial ACK: Reno deflates to ssthresh and leaves recovery without retransmitting.
    s.on_segment(ms(300), &ack(seg_start(4), &[], false, 0), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert!(out
        .iter()
        .all(|h| h.seq >= s.snd_una && h.seq >= seg_start(11)));
    assert!(s.tp.cwnd >= ssthresh && s.tp.cwnd <= ssthresh + 1);
}

#[test]
fn tahoe_fast_retransmit_restarts_from_one_segment() {
    let c = no_sack_cfg();
    let (mut s, _, _) = established(&c, "tahoe");
    s.tp.cwnd = 10;
    s.tp.ssthresh = 10;
    let mut out = vec![];
    s.on_segment(ms(200), &ack(seg_start(1), &[], false, 0), &mut out);
    let outstanding = s.scoreboard().len() as u32;
    out.clear();
    for k in 0..3 {
        s.on_segment(ms(201 + k), &ack(seg_start(1), &[], false, 0), &mut out);
    }
    assert_eq!(data_seqs(&out), vec![1]);
    assert_eq!(s.tp.cwnd, 1);
    assert_eq!(s.tp.ssthresh, outstanding / 2);
    assert_eq!(s.stats.fast_retransmits, 1);
}

#[test]
fn ns2_tahoe_goes_back_n_and_fast_retransmits_once_per_window() {
    // ns-2 Agent/TCP with bugfix_: after 3 dupacks for segment 1, cwnd = 1 and the
    // sender goes back to segment 1; each ACK then opens the window by one
    // segment (slow start) and the resend continues from the segment after the
    // last one acknowledged: ACK of 2 -> cwnd 2 -> segments 2, 3. Dupacks
    // (e.g. for segments the receiver already had) start no new fast
    // retransmit until the data outstanding at the loss is acknowledged.
    let mut c = no_sack_cfg();
    c.recovery = crate::Recovery::TahoeNs2;
    let (mut s, _, _) = established(&c, "tahoe");
    assert_eq!(s.recovery(), crate::Recovery::TahoeNs2);
    s.tp.cwnd = 10;
    s.tp.ssthresh = 10;
    let mut out = vec![];
    s.on_segment(ms(200), &ack(seg_start(1), &[], false, 0), &mut out);
    let high = s.snd_max;
    let outstanding = s.scoreboard().len() as u32;
    out.clear();
    for k in 0..3 {
        s.on_segment(ms(201 + k), &ack(seg_start(1), &[], false, 0), &mut out);
    }
    assert_eq!(data_seqs(&out), vec![1]);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (1, outstanding / 2));
    // The retransmission of 1 is acknowledged with 2 still missing (a second loss).
    out.clear();
    s.on_segment(ms(300), &ack(seg_start(2), &[], false, 0), &mut out);
    assert_eq!(s.tp.cwnd, 2);
    assert_eq!(data_seqs(&out), vec![2, 3]);
    // Dupacks for 2: no new fast retransmit, since 2 < recover = the old snd_max.
    out.clear();
    for k in 0..5 {
        s.on_segment(ms(301 + k), &ack(seg_start(2), &[], false, 0), &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    assert!(out.iter().all(|h| h.seq != seg_start(2)));
    // Everything up to the old maximum acknowledged: still none (ns-2 needs
    // highest_ack_ > recover_); the window then sends new data only.
    out.clear();
    s.on_segment(ms(400), &ack(high, &[], false, 0), &mut out);
    for k in 0..3 {
        s.on_segment(ms(401 + k), &ack(high, &[], false, 0), &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    assert!(out.iter().filter(|h| h.payload > 0).all(|h| h.seq >= high));
}

#[test]
fn sack_recovery_retransmits_every_hole_once() {
    sack_recovery_of_four_holes(&cfg(), "newreno");
}

#[test]
fn without_cc_recovery_reno_is_only_a_window_rule_and_sack_recovery_applies() {
    // Linux: `reno` is tcp_reno_ssthresh/cong_avoid; loss recovery is the
    // stack's (SACK). The same four holes are each retransmitted once in one
    // recovery, where RFC 5681 Reno would leave recovery at the first new ACK.
    let mut c = cfg();
    c.cc_recovery = false;
    sack_recovery_of_four_holes(&c, "reno");
    c.cc_recovery = true;
    let (s, _, _) = established(&c, "reno");
    assert_eq!(s.recovery(), Recovery::Reno);
}

/// FreeBSD 9.2's SACK recovery (tcp_input.c, tcp_output.c, tcp_sack.c),
/// worked by hand on the `freebsd` profile: cwnd 20, segments 0..19 out,
/// holes at 2, 5, 6 and 11; the duplicate ACKs report them, then SACK the
/// rest one segment at a time.
#[test]
fn freebsd_sack_recovery_starts_from_one_segment_and_grows_with_the_flight() {
    let c = profile("freebsd").unwrap().config;
    assert!(c.freebsd_sack && c.sack && c.timestamps);
    let (mut s, _, _) = established(&c, "newreno");
    s.tp.cwnd = 20;
    let mut out = vec![];
    // A window update (not a duplicate: the window changes) releases 0..19.
    s.on_segment(ms(150), &ack(1, &[], true, 1), &mut out);
    assert_eq!((s.snd_max, s.dupacks()), (seg_start(20), 0));
    out.clear();
    let b = |a: u64, z: u64| (seg_start(a), seg_start(z));
    let mut t = 200;
    let mut feed = |s: &mut Sender, blocks: &[(u64, u64)], out: &mut Vec<TcpHeader>| {
        out.clear();
        s.on_segment(ms(t), &ack(seg_start(2), blocks, true, 100_000_000), out);
        t += 1;
        data_seqs(out)
    };
    // 0, 1 acknowledged: slow start (ABC, 2 segments) makes cwnd 22 and
    // 2..19 are out: 20..23 go.
    assert_eq!(feed(&mut s, &[], &mut out), vec![20, 21, 22, 23]);
    assert_eq!(s.tp.cwnd, 22);
    // Duplicate ACKs 1 and 2 (3, then 4 SACKed): one new segment each
    // (limited transmit).
    assert_eq!(feed(&mut s, &[b(3, 4)], &mut out), vec![24]);
    assert_eq!(feed(&mut s, &[b(3, 5)], &mut out), vec![25]);
    // The third: ssthresh = cwnd / 2 = 11, cwnd = 1, sack_newdata = snd_max
    // (26); the holes below the highest SACK (8) are 2, 5 and 6; one segment
    // of retransmission: 2.
    assert_eq!(feed(&mut s, &[b(7, 8), b(3, 5)], &mut out), vec![2]);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!((s.tp.ssthresh, s.tp.cwnd), (11, 1));
    // In flight, (snd_nxt - snd_fack) + sack_bytes_rexmit, in segments:
    // (26 - fack) + 1. It stays at or above ssthresh up to fack = 16, so cwnd
    // stays 1 and nothing is sent (11 becomes a hole once 12 is SACKed).
    for z in 9..=11 {
        assert_eq!(
            feed(&mut s, &[b(7, z), b(3, 5)], &mut out),
            Vec::<u64>::new()
        );
    }
    for z in 13..=16 {
        assert_eq!(
            feed(&mut s, &[b(12, z), b(7, 11), b(3, 5)], &mut out),
            Vec::<u64>::new()
        );
    }
    assert_eq!(s.tp.cwnd, 1);
    // fack 17: 9 + 1 = 10 < 11: cwnd 2, one more retransmission (5); then
    // fack 18: 8 + 2 = 10: cwnd 3, 6; fack 19: 7 + 3: cwnd 4, 11.
    assert_eq!(
        feed(&mut s, &[b(12, 17), b(7, 11), b(3, 5)], &mut out),
        vec![5]
    );
    assert_eq!(
        feed(&mut s, &[b(12, 18), b(7, 11), b(3, 5)], &mut out),
        vec![6]
    );
    assert_eq!(
        feed(&mut s, &[b(12, 19), b(7, 11), b(3, 5)], &mut out),
        vec![11]
    );
    assert_eq!(s.tp.cwnd, 4);
    // fack 20: 6 + 4 = 10: cwnd 5; no hole left: new data while the recovery's
    // new data plus its 4 retransmissions fit in cwnd: 0 + 4 + 1 <= 5: 26.
    assert_eq!(
        feed(&mut s, &[b(12, 20), b(7, 11), b(3, 5)], &mut out),
        vec![26]
    );
    // fack 21: (27 - 21) + 4 = 10: cwnd 6: 1 + 4 + 1 <= 6: 27.
    assert_eq!(
        feed(&mut s, &[b(12, 21), b(7, 11), b(3, 5)], &mut out),
        vec![27]
    );
    assert_eq!(s.tp.cwnd, 6);
    // A partial ACK up to 5 (2, 3, 4 arrive): the retransmissions outstanding
    // (5, 6, 11: 3) + the recovery's new data (26, 27: 2) + two segments, as
    // it covers three: cwnd 7 (below ssthresh), which sends 28 and 29
    // (2 + 3 + 1 <= 7, 3 + 3 + 1 <= 7).
    out.clear();
    s.on_segment(
        ms(300),
        &ack(seg_start(5), &[b(12, 21), b(7, 11)], true, 1),
        &mut out,
    );
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.tp.cwnd, 3 + 2 + 2);
    assert_eq!(data_seqs(&out), vec![28, 29]);
    // The full ACK (to 26, the recovery point; 26..29 outstanding, 4
    // segments, 26 lost and 27..29 SACKed): below ssthresh, so cwnd =
    // flight + 1 = 5 (newreno_post_recovery), with no growth on this ACK
    // (cc_ack_received runs before EXIT_RECOVERY, and newreno grows nothing
    // in recovery). Out of recovery the hole 26 waits (holes are resent in
    // fast recovery only) and everything outstanding, SACKed or not, counts
    // against cwnd: one new segment, 30.
    out.clear();
    s.on_segment(
        ms(310),
        &ack(seg_start(26), &[b(27, 30)], true, 1),
        &mut out,
    );
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.tp.cwnd, 5);
    assert_eq!(data_seqs(&out), vec![30]);
    assert_eq!(s.stats.fast_retransmits, 1);
    s.check_invariants();
}

/// FreeBSD 9.2 `newreno_ack_received`: while a timeout's go-back-N is still
/// resending (`snd_nxt != snd_max`) slow start credits one segment per ACK,
/// not ABC's two ("must not use abc_l_var > 1 if slow starting after an
/// RTO").
#[test]
fn freebsd_slow_start_after_a_timeout_credits_one_segment_per_ack() {
    let run = |limit_rto: u32, ccname: &str| {
        let mut c = profile("freebsd").unwrap().config;
        c.ss_ack_limit_rto = limit_rto;
        let (mut s, _, _) = established(&c, ccname);
        s.tp.cwnd = 10;
        let mut out = vec![];
        s.on_segment(ms(150), &ack(1, &[], true, 1), &mut out);
        let t = s.next_deadline().unwrap();
        s.on_timer(t, &mut out); // 0..9 all to resend, cwnd 1
        assert_eq!(s.tp.cwnd, 1);
        // 0 resent and acknowledged with 1 and 2 (held by the receiver):
        // three segments, while 3..9 still wait to be resent.
        out.clear();
        s.on_segment(t + ms(100), &ack(seg_start(3), &[], true, 1), &mut out);
        (s.tp.cwnd, data_seqs(&out))
    };
    // cc_cubic's slow start is newreno's: the same.
    for ccname in ["newreno", "cubic-freebsd"] {
        assert_eq!(run(1, ccname), (2, vec![3, 4]), "{ccname}");
        assert_eq!(run(0, ccname), (3, vec![3, 4, 5]), "{ccname}");
    }
}

/// FreeBSD 9.2 after a timeout (tcp_input.c: the SACK branch of the third
/// duplicate ACK tests no snd_recover): duplicate ACKs that the go-back-N
/// draws from the receiver start a fast recovery, which halves the small
/// post-timeout window again: ssthresh max(cwnd / 2, 2) = 2, cwnd 1.
#[test]
fn freebsd_duplicate_acks_after_a_timeout_start_a_fast_recovery() {
    let c = profile("freebsd").unwrap().config;
    let (mut s, _, _) = established(&c, "newreno");
    s.tp.cwnd = 10;
    let mut out = vec![];
    s.on_segment(ms(150), &ack(1, &[], true, 1), &mut out);
    assert_eq!(s.snd_max, seg_start(10));
    // No ACK: the timeout. ssthresh = max(10 / 2, 2) = 5, cwnd 1, 0 resent.
    out.clear();
    let t = s.next_deadline().unwrap();
    s.on_timer(t, &mut out);
    assert_eq!(s.ca_state(), CaState::Loss);
    assert_eq!((s.tp.ssthresh, s.tp.cwnd), (5, 1));
    assert_eq!(data_seqs(&out), vec![0]);
    // 0 arrives (1 and 2 lost, 3..9 held): ACK 1, SACK 3..9. Slow start
    // credits what the cumulative ACK covers, one segment (BYTES_THIS_ACK:
    // cum_ack_growth; the seven SACKed count when acknowledged), so cwnd 2,
    // which resends 1 and 2.
    let b = |a: u64, z: u64| (seg_start(a), seg_start(z));
    out.clear();
    s.on_segment(
        t + ms(100),
        &ack(seg_start(1), &[b(3, 10)], true, 1),
        &mut out,
    );
    assert_eq!(s.ca_state(), CaState::Loss);
    assert_eq!(s.tp.cwnd, 2);
    assert_eq!(data_seqs(&out), vec![1, 2]);
    // Three duplicate ACKs (1 lost again; 2 arrives, then two duplicates the
    // receiver answers at once): the third starts a fast recovery.
    for k in 0..2 {
        s.on_segment(
            t + ms(200 + k),
            &ack(seg_start(1), &[b(2, 10)], true, 1),
            &mut out,
        );
        assert_eq!(s.ca_state(), CaState::Loss);
    }
    out.clear();
    s.on_segment(
        t + ms(202),
        &ack(seg_start(1), &[b(2, 10)], true, 1),
        &mut out,
    );
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!((s.tp.ssthresh, s.tp.cwnd), (2, 1));
    assert_eq!(s.stats.fast_retransmits, 1);
    s.check_invariants();
}

/// Twenty segments out (0..19), holes at 2, 5, 6 and 11: a window update
/// releases them, then the duplicate ACKs that report the holes arrive (with
/// timestamps or without), one per ms from 200 to 214 ms, the state checked on
/// the way. Returns the segments retransmitted, by number.
fn ack_four_holes(s: &mut Sender, ts: bool) -> Vec<u64> {
    s.tp.cwnd = 20;
    let mut out = vec![];
    s.on_segment(ms(150), &ack(1, &[], ts, ts as u64), &mut out); // window update: release 20
    assert_eq!(s.snd_max, seg_start(20));
    out.clear();
    let b = |a: u64, z: u64| (seg_start(a), seg_start(z));
    let tsecr = if ts { 100_000_000 } else { 0 };
    let mut t = 200;
    let mut feed = |s: &mut Sender, blocks: &[(u64, u64)], out: &mut Vec<TcpHeader>| {
        s.on_segment(ms(t), &ack(seg_start(2), blocks, ts, tsecr), out);
        t += 1;
    };
    feed(s, &[], &mut out); // 0, 1 arrive
    feed(s, &[b(3, 4)], &mut out);
    feed(s, &[b(3, 5)], &mut out);
    assert_eq!(s.ca_state(), CaState::Disorder);
    feed(s, &[b(7, 8), b(3, 5)], &mut out);
    // Three SACKed segments above 2, or three duplicate ACKs: recovery
    // starts, 2 is retransmitted.
    assert_eq!(s.ca_state(), CaState::Recovery);
    for z in 9..=11 {
        feed(s, &[b(7, z), b(3, 5)], &mut out);
    }
    for z in 13..=20 {
        feed(s, &[b(12, z), b(7, 11), b(3, 5)], &mut out);
    }
    let mut rexmits: Vec<u64> = out
        .iter()
        .filter(|h| h.seq < seg_start(20) && h.payload > 0)
        .map(|h| (h.seq - 1) / MSS)
        .collect();
    rexmits.sort();
    assert_eq!(s.stats.fast_retransmits, 1);
    rexmits
}

fn sack_recovery_of_four_holes(c: &TcpConfig, ccname: &str) {
    let (mut s, _, _) = established(c, ccname);
    let rexmits = ack_four_holes(&mut s, true);
    assert_eq!(rexmits, vec![2, 5, 6, 11], "each hole retransmitted once");
    // The holes arrive: ACK everything, recovery ends with cwnd = ssthresh.
    let ssthresh = s.tp.ssthresh;
    let all = (s.snd_max - 1) / MSS;
    let mut out = vec![];
    s.on_segment(
        ms(215),
        &ack(seg_start(all), &[], true, 100_000_000),
        &mut out,
    );
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.tp.cwnd, ssthresh);
    s.check_invariants();
}

/// Linux 2.2.16's `tcp_fast_parse_options` parses no option at all when the
/// connection has no timestamps (`tcp_header_len` = 20 bytes), so SACK blocks
/// never reach `tcp_sacktag_write_queue`: with `sack_needs_timestamps` the
/// four holes of `ack_four_holes`, reported by ACKs without timestamps, get
/// NewReno's recovery (the first hole only, until a partial ACK), where a
/// sender reading the blocks resends all four.
#[test]
fn sack_blocks_are_ignored_without_timestamps_when_the_profile_says_so() {
    let run = |needs: bool| {
        let mut c = cfg();
        c.timestamps = false;
        c.mss = MSS as u32; // 1448-byte segments without the option
        c.sack_needs_timestamps = needs;
        let (mut s, _, _) = established(&c, "newreno");
        assert!(s.sack_ok(), "SACK is negotiated either way");
        ack_four_holes(&mut s, false)
    };
    assert_eq!(run(false), vec![2, 5, 6, 11]);
    assert_eq!(run(true), vec![2]);
}

#[test]
fn prr_brings_cwnd_down_over_the_recovery_round_trip_as_linux() {
    // Linux's worked case (docs/dev/linux-tcp/prr-frto-undo.md 2.2): 20
    // segments out (0..19), segment 0 lost, each ACK SACKs the next one; Reno
    // halves 20 to ssthresh 10; there is always new data. Expected per ACK
    // (cwnd after it, what it sends): two in Disorder sending new data
    // (limited transmit), recovery on the third SACKed segment with the fast
    // retransmit, then one new segment every other ACK while more than
    // ssthresh is in flight, one per ACK once it is down to ssthresh.
    let mut c = cfg();
    c.prr = true;
    // Linux's tcp_reno_ssthresh halves cwnd (20), not the flight (22 by then).
    c.ssthresh_from_cwnd = true;
    let (mut s, _, _) = established(&c, "newreno");
    s.tp.cwnd = 20;
    let mut out = vec![];
    s.on_segment(ms(150), &ack(1, &[], true, 1), &mut out);
    assert_eq!(s.snd_max, seg_start(20));
    let expected: [(u32, &[u64]); 21] = [
        (20, &[20]),
        (20, &[21]),
        (19, &[0]),
        (18, &[]),
        (18, &[22]),
        (17, &[]),
        (17, &[23]),
        (16, &[]),
        (16, &[24]),
        (15, &[]),
        (15, &[25]),
        (14, &[]),
        (14, &[26]),
        (13, &[]),
        (13, &[27]),
        (12, &[]),
        (12, &[28]),
        (11, &[]),
        (10, &[]),
        (10, &[29]),
        (10, &[30]),
    ];
    for (k, (cwnd, sent)) in expected.iter().enumerate() {
        out.clear();
        let top = seg_start(k as u64 + 2);
        s.on_segment(
            ms(200 + k as u64),
            &ack(1, &[(seg_start(1), top)], true, 1),
            &mut out,
        );
        assert_eq!(
            (s.tp.cwnd, data_seqs(&out)),
            (*cwnd, sent.to_vec()),
            "ACK {}",
            k + 1
        );
        s.check_invariants();
    }
    assert_eq!(s.tp.ssthresh, 10);
    // The retransmission arrives: everything to 22 is acknowledged, recovery
    // ends at cwnd = ssthresh (tcp_end_cwnd_reduction).
    out.clear();
    s.on_segment(ms(300), &ack(seg_start(23), &[], true, 1), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.tp.cwnd, 10);
}

#[test]
fn sack_pipe_counts_lost_and_retransmitted_segments_per_rfc6675() {
    let c = cfg();
    let (mut s, _, _) = established(&c, "newreno");
    s.tp.cwnd = 10;
    let mut out = vec![];
    s.on_segment(ms(150), &ack(1, &[], true, 1), &mut out);
    // 0..9 outstanding; 0 lost, 1..3 SACKed: 0 is lost (3 SACKed above).
    out.clear();
    s.on_segment(
        ms(200),
        &ack(1, &[(seg_start(1), seg_start(4))], true, 1),
        &mut out,
    );
    assert_eq!(s.ca_state(), CaState::Recovery);
    // ssthresh = FlightSize/2 = 10/2 = 5 = cwnd. pipe: 10 outstanding - 3 SACKed - 1 lost
    // + 1 retransmitted = 7 >= cwnd 5: only the retransmission goes out.
    assert_eq!(s.tp.ssthresh, 5);
    assert_eq!(s.tp.cwnd, 5);
    assert_eq!(s.scoreboard().in_flight(), 7);
    // The trace's in-flight bytes are that pipe, as TCP_INFO's
    // unacked - sacked - lost + retrans, not the 10 segments outstanding.
    assert_eq!(s.in_flight_bytes(), 7 * s.mss() as u64);
    assert_eq!(s.outstanding_bytes(), 10 * s.mss() as u64);
    assert_eq!(data_seqs(&out), vec![0]);
    assert_eq!(s.seg_flags(0) & (LOST | RETRANS), LOST | RETRANS);
    assert_eq!(s.seg_flags(1) & SACKED, SACKED);
}

fn no_ts_cfg() -> TcpConfig {
    let mut c = cfg();
    c.timestamps = false;
    c
}

#[test]
fn rto_fires_after_one_second_then_backs_off_by_doubling() {
    let mut c = no_ts_cfg();
    c.min_rto = ms(1000);
    let (mut s, _, _) = established(&c, "newreno");
    // Handshake sample 100 ms: RTO = max(1 s, 100 + 4*50) = 1 s, armed at 100 ms.
    assert_eq!(s.rto_deadline(), Some(ms(1100)));
    let mut out = vec![];
    s.on_timer(ms(1100), &mut out);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(data_seqs(&out), vec![0]);
    assert_eq!(s.tp.cwnd, 1);
    assert_eq!(s.ca_state(), CaState::Loss);
    assert_eq!(s.rto_deadline(), Some(ms(3100))); // 2 s
    out.clear();
    s.on_timer(ms(3100), &mut out);
    assert_eq!(s.rto_deadline(), Some(ms(7100))); // 4 s
                                                  // ssthresh was set once (IW 2 in flight -> 2) and held on the second timeout.
    assert_eq!(s.tp.ssthresh, 2);
}

#[test]
fn karns_rule_takes_no_sample_from_a_retransmitted_segment() {
    // Without timestamps or SACK. IW 2: segments 0 and 1 sent at 100 ms; the RTO
    // fires at 1.1 s and retransmits 0 (go-back-N).
    let mut c = no_ts_cfg();
    c.sack = false;
    let (mut s, _, _) = established(&c, "newreno");
    let mss = s.mss() as u64;
    let seg = |i: u64| 1 + i * mss;
    let mut out = vec![];
    s.on_timer(ms(1100), &mut out);
    let srtt = s.rtt().srtt();
    let rto = s.rtt().rto();
    s.take_rtt_sample();
    // ACK of the retransmitted 0: no sample, the backed-off RTO stays (RFC 6298 5.7, Karn).
    out.clear();
    s.on_segment(ms(1150), &ack(seg(1), &[], false, 0), &mut out);
    assert_eq!(s.take_rtt_sample(), None);
    assert_eq!(s.rtt().srtt(), srtt);
    assert_eq!(s.rtt().rto(), rto);
    // cwnd 2 after the ACK: go-back-N resends 1 and sends 2 for the first time.
    assert_eq!(
        out.iter().map(|h| (h.seq - 1) / mss).collect::<Vec<_>>(),
        vec![1, 2]
    );
    assert_eq!(s.stats.segs_retrans, 2);
    // An ACK covering 1 (retransmitted) and 2 (not): still no sample (Linux's rule too).
    out.clear();
    s.on_segment(ms(1250), &ack(seg(3), &[], false, 0), &mut out);
    assert_eq!(s.take_rtt_sample(), None);
    // Segments sent at 1250 ms and never retransmitted give a sample: 100 ms.
    let first_new = (out[0].seq - 1) / mss;
    s.on_segment(ms(1350), &ack(seg(first_new + 1), &[], false, 0), &mut out);
    assert_eq!(s.take_rtt_sample(), Some(ms(100)));
}

#[test]
fn timestamps_give_a_sample_even_for_retransmitted_data() {
    let c = cfg();
    let (mut s, _, _) = established(&c, "newreno");
    let mut out = vec![];
    s.on_timer(ms(1100), &mut out);
    let ts = out.iter().find(|h| h.payload > 0).unwrap().tsval;
    s.take_rtt_sample();
    s.on_segment(ms(1180), &ack(seg_start(1), &[], true, ts), &mut out);
    assert_eq!(s.take_rtt_sample(), Some(ms(80)));
}

#[test]
fn syn_loss_backs_off_and_starts_with_one_segment_and_three_second_rto() {
    let c = no_ts_cfg();
    let mut s = sender(&c, "newreno");
    let mut r = Receiver::new(c.clone());
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    out.clear();
    s.on_timer(ms(1000), &mut out); // the SYN was lost
    assert!(out[0].has(SYN));
    let mut back = vec![];
    r.on_segment(ms(1050), &out[0], &mut back);
    out.clear();
    s.on_segment(ms(1100), &back[0], &mut out);
    assert_eq!(s.tp.cwnd, 1);
    assert_eq!(data_seqs(&out), vec![0]);
    assert_eq!(s.rto_deadline(), Some(ms(4100)));
}

#[test]
fn receiver_delays_acks_to_every_second_segment_or_the_timer() {
    let c = cfg();
    let (_, mut r, data) = established(&c, "newreno");
    let mut out = vec![];
    r.on_segment(ms(150), &data[0], &mut out);
    assert!(out.is_empty());
    assert_eq!(r.next_deadline(), Some(ms(350))); // 200 ms timer
    r.on_segment(ms(151), &data[1], &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg_start(2));
    assert_eq!(r.next_deadline(), None);
    // A lone segment is acknowledged when the timer fires.
    let third = TcpHeader {
        seq: seg_start(2),
        ..data[0]
    };
    out.clear();
    r.on_segment(ms(200), &third, &mut out);
    assert!(out.is_empty());
    r.on_timer(ms(399), &mut out);
    assert!(out.is_empty());
    r.on_timer(ms(400), &mut out);
    assert_eq!(out[0].ack, seg_start(3));
}

#[test]
fn read_latency_sends_the_second_segments_ack_when_the_application_reads() {
    // read_latency 80 us, the rfc profile's ACK every 2 segments or 200 ms:
    // the application is woken by the first unread segment and reads 80 us
    // later; the ACK owed for the second full segment goes at that read
    // (Linux tcp_cleanup_rbuf: rcv_nxt - rcv_wup > rcv_mss), never before;
    // a read that finds one unACKed segment sends nothing; out-of-order
    // data is ACKed at once (softirq, __tcp_ack_snd_check's ofo path).
    let us = |x: u64| SimTime::from_micros(x);
    let mut c = cfg();
    c.read_latency = us(80);
    let (_, mut r, data) = established(&c, "newreno");
    let seg = |i: u64| TcpHeader {
        seq: seg_start(i),
        ..data[0]
    };
    let mut out = vec![];
    r.on_segment(ms(150), &seg(0), &mut out);
    assert!(out.is_empty());
    assert_eq!(r.next_deadline(), Some(ms(150) + us(80)));
    r.on_timer(ms(150) + us(80), &mut out);
    assert!(out.is_empty(), "one segment read: no ACK");
    assert_eq!(r.next_deadline(), Some(ms(350)), "the 200 ms timer stays");
    r.on_segment(ms(151), &seg(1), &mut out);
    assert!(
        out.is_empty(),
        "the second segment's ACK waits for the read"
    );
    assert_eq!(r.next_deadline(), Some(ms(151) + us(80)));
    r.on_timer(ms(151) + us(79), &mut out);
    assert!(out.is_empty());
    r.on_timer(ms(151) + us(80), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg_start(2));
    assert_eq!(r.next_deadline(), None);
    // Two segments 10 us apart: one wakeup, one read, one ACK 80 us after
    // the first.
    out.clear();
    r.on_segment(ms(200), &seg(2), &mut out);
    r.on_segment(ms(200) + us(10), &seg(3), &mut out);
    assert!(out.is_empty());
    r.on_timer(ms(200) + us(80), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg_start(4));
    // Out of order (segment 4 missing): at once.
    out.clear();
    r.on_segment(ms(210), &seg(5), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg_start(4));
    // With `push`, a segment carrying PSH is ACKed when it is read, alone.
    let mut c = cfg();
    c.read_latency = us(80);
    c.push = true;
    let (_, mut r, data) = established(&c, "newreno");
    let pushed = TcpHeader {
        flags: data[0].flags | crate::header::PSH,
        ..data[0]
    };
    out.clear();
    r.on_segment(ms(150), &pushed, &mut out);
    assert!(out.is_empty());
    r.on_timer(ms(150) + us(80), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg_start(1));
}

#[test]
fn read_tail_puts_that_share_of_reads_after_the_body_spread_over_its_span() {
    // read_latency 80 us + U[0, 40 us), and read_tail 0.2 (200,000 in a
    // million) over a span of 1 ms: a read comes 80 + U[0, 40) us after the
    // first unread segment, or, one time in five, 80 + 40 + U[0, 1000) us.
    // Over 2000 receivers (one stream each): every wakeup lies in its law's
    // range, the late share is 0.2 within four standard errors
    // (sqrt(0.2 x 0.8 / 2000) = 0.0089), the late ones' mean is the span's
    // middle (500 us, standard error 1000 / sqrt(12 x 400) = 14.4 us) and
    // the body's the jitter's (20 us, 40 / sqrt(12 x 1600) = 0.29 us).
    let us = |x: u64| SimTime::from_micros(x);
    let mut c = cfg();
    c.read_latency = us(80);
    c.read_jitter = us(40);
    c.read_tail = 200_000;
    c.read_tail_span = us(1000);
    let (mut late, mut body) = (Vec::new(), Vec::new());
    for k in 0..2000 {
        let (_, mut r, data) = established(&c, "newreno");
        r.seed_timing(
            tcplab_engine::RngStream::new(11, 5000 + k),
            tcplab_engine::RngStream::new(11, k),
        );
        let mut out = vec![];
        r.on_segment(ms(150), &data[0], &mut out);
        let after = r.next_deadline().unwrap().0 - ms(150).0 - us(80).0;
        if after >= us(40).0 {
            assert!(after < us(40 + 1000).0, "{after}");
            late.push((after - us(40).0) as f64);
        } else {
            body.push(after as f64);
        }
    }
    let share = late.len() as f64 / 2000.0;
    assert!((share - 0.2).abs() < 4.0 * 0.0089, "{share}");
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(
        (mean(&late) - 500_000.0).abs() < 4.0 * 14_400.0,
        "{}",
        mean(&late)
    );
    assert!(
        (mean(&body) - 20_000.0).abs() < 4.0 * 290.0,
        "{}",
        mean(&body)
    );
    // A tail alone (no latency, no jitter): the application reads at once
    // but for that share, which it reads up to the span later.
    let mut alone = cfg();
    alone.read_tail = 500_000;
    alone.read_tail_span = us(1000);
    let mut late_reads = 0;
    for k in 0..200 {
        let (_, mut r, data) = established(&alone, "newreno");
        r.seed_timing(
            tcplab_engine::RngStream::new(12, k),
            tcplab_engine::RngStream::new(13, k),
        );
        let mut out = vec![];
        r.on_segment(ms(150), &data[0], &mut out);
        let read = r.next_deadline().expect("a read is scheduled");
        assert!(read >= ms(150) && read < ms(150) + us(1000), "{read:?}");
        late_reads += (read > ms(150)) as u32;
    }
    // Half late: 100 of 200 within four standard errors (sqrt(50) = 7.1).
    assert!(late_reads.abs_diff(100) < 29, "{late_reads}");
    // Without a tail the draws are the body's alone, as before the field.
    c.read_tail = 0;
    let (_, mut r, data) = established(&c, "newreno");
    r.seed_timing(
        tcplab_engine::RngStream::new(11, 5000),
        tcplab_engine::RngStream::new(11, 0),
    );
    let mut out = vec![];
    r.on_segment(ms(150), &data[0], &mut out);
    let mut alone = tcplab_engine::RngStream::new(11, 5000);
    assert_eq!(
        r.next_deadline(),
        Some(ms(150) + us(80) + SimTime(alone.below(40_000)))
    );
}

#[test]
fn freebsd_receive_buffer_grows_by_16_kib_after_a_round_trip_of_more_than_7_8_of_it() {
    // FreeBSD 9.2 autosizing from 64 KiB (tcp_input.c, recvbuf_auto): the
    // first ACK the receiver sends with a timestamp (at 151 ms, the 2nd
    // segment) starts the measurement; in-order segments are counted until
    // one echoes a timestamp later than that (a round trip), and if more than
    // 7/8 of 65536 = 57344 bytes came meanwhile the buffer grows by 16384.
    // 40 segments of 1448 bytes echoing the SYN-ACK's 50 ms and one echoing
    // 151 ms (not later: counted) make 59368; the next, echoing 152 ms, ends
    // the round trip: the window offered goes from 65536 to 81920 bytes.
    for timestamps in [true, false] {
        let mut c = cfg();
        c.rcvbuf = 64 << 10;
        c.rcvbuf_auto = true;
        c.timestamps = timestamps;
        let (_, mut r, data) = established(&c, "newreno");
        let mut out = vec![];
        let mut seq = seg_start(0);
        let mut feed = |r: &mut Receiver, at: u64, tsecr_ms: u64, out: &mut Vec<TcpHeader>| {
            let h = TcpHeader {
                seq,
                tsecr: tsecr_ms * 1_000_000,
                ..data[0]
            };
            seq += h.payload as u64;
            r.on_segment(ms(at), &h, out);
        };
        for k in 0..40 {
            feed(&mut r, 150 + k, 50, &mut out);
        }
        // The ACK of segment 40 offers the 64 KiB (65536 >> 6 with the scale
        // chosen for 2 MiB).
        let before = out.last().unwrap().wnd;
        assert_eq!(before, 65536 >> 6);
        feed(&mut r, 190, 151, &mut out);
        out.clear();
        feed(&mut r, 191, 152, &mut out); // the 2nd segment since that ACK: an ACK
        let after = out.last().unwrap().wnd;
        if timestamps {
            assert_eq!(after, 81920 >> 6);
        } else {
            // Without timestamps FreeBSD never grows the buffer.
            assert_eq!(after, before);
        }
    }
}

#[test]
fn receiver_acks_out_of_order_data_at_once_with_rfc2018_sack_blocks() {
    let c = cfg();
    let (_, mut r, data) = established(&c, "newreno");
    let seg = |i: u64| TcpHeader {
        seq: seg_start(i),
        ..data[0]
    };
    let mut out = vec![];
    r.on_segment(ms(150), &seg(0), &mut out);
    r.on_segment(ms(151), &seg(2), &mut out); // hole at 1
    let a = out.last().unwrap();
    assert_eq!(
        (a.ack, &a.sack_blocks()[..]),
        (seg_start(1), &[(seg_start(2), seg_start(3))][..])
    );
    r.on_segment(ms(152), &seg(5), &mut out); // hole at 3, 4
    let a = out.last().unwrap();
    // Most recent block first, then the earlier one.
    assert_eq!(
        a.sack_blocks(),
        &[(seg_start(5), seg_start(6)), (seg_start(2), seg_start(3))][..]
    );
    r.on_segment(ms(153), &seg(3), &mut out);
    let a = out.last().unwrap();
    assert_eq!(
        a.sack_blocks(),
        &[(seg_start(2), seg_start(4)), (seg_start(5), seg_start(6))][..]
    );
    // Filling the first hole: immediate ACK up to 4 with the remaining block.
    let n = out.len();
    r.on_segment(ms(154), &seg(1), &mut out);
    assert_eq!(out.len(), n + 1);
    let a = out.last().unwrap();
    assert_eq!(
        (a.ack, &a.sack_blocks()[..]),
        (seg_start(4), &[(seg_start(5), seg_start(6))][..])
    );
    // ACK with timestamps and 3 SACK blocks max: 80 bytes.
    assert!(out.iter().all(|h| h.wire_size() <= 80));
}

#[test]
fn finite_transfer_closes_with_fin_and_reports_completion() {
    // 5000 bytes: segments of 1448, 1448, 1448, 656, then FIN; lossless exchange.
    let c = cfg();
    let mut s = Sender::new(
        c.clone(),
        cc::make("newreno", &CcParams::new()).unwrap(),
        Some(5000),
    );
    let mut r = Receiver::new(c.clone());
    let mut to_r = vec![];
    let mut to_s = vec![];
    s.start(SimTime::ZERO, &mut to_r);
    let mut t = 0;
    for _ in 0..50 {
        t += 10;
        for h in std::mem::take(&mut to_r) {
            r.on_segment(ms(t), &h, &mut to_s);
        }
        r.on_timer(ms(t + 300), &mut to_s);
        for h in std::mem::take(&mut to_s) {
            s.on_segment(ms(t + 5), &h, &mut to_r);
        }
    }
    assert_eq!(r.stats.delivered, 5000);
    assert!(r.fin_at.is_some());
    assert_eq!(s.state(), SenderState::Done);
    assert_eq!(s.stats.bytes_sent, 5000);
    assert_eq!(s.stats.segs_retrans, 0);
    let _ = FIN;
}

/// A controller that keeps cwnd fixed and records every rate sample.
struct Recorder(std::rc::Rc<std::cell::RefCell<Vec<crate::cc::RateSample>>>);

impl crate::cc::CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn ssthresh(&mut self, tp: &crate::cc::CcState) -> u32 {
        tp.cwnd
    }
    fn cong_avoid(&mut self, _tp: &mut crate::cc::CcState, _acked: u32) {}
    fn has_cong_control(&self) -> bool {
        true
    }
    fn cong_control(&mut self, _tp: &mut crate::cc::CcState, rs: &crate::cc::RateSample) {
        self.0.borrow_mut().push(*rs);
    }
}

#[test]
fn rate_samples_follow_linux_tcp_rate_on_a_steady_ack_clock() {
    // cwnd fixed at 10, RTT 100 ms, one ACK per segment 1 ms apart. Round 1 is
    // sent at 100 ms; its ACKs at 200+k ms each release one segment. By round 3,
    // send and ACK intervals are both 100 ms: each sample is 10 segments over
    // 100 ms, cwnd/RTT.
    let mut c = cfg();
    c.initial_window = 10;
    let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let mut s = Sender::new(c.clone(), Box::new(Recorder(log.clone())), None);
    let mut r = Receiver::new(c);
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    let mut back = vec![];
    r.on_segment(ms(50), &out[0], &mut back);
    out.clear();
    s.on_segment(ms(100), &back[0], &mut out);
    assert_eq!(data_seqs(&out).len(), 10);
    let mut acked = 0;
    for round in 0..3u64 {
        for k in 1..=10u64 {
            acked += 1;
            let t = 200 + round * 100 + k;
            s.on_segment(ms(t), &ack(seg_start(acked), &[], false, 0), &mut out);
        }
    }
    let log = log.borrow();
    assert_eq!(log.len(), 30);
    for rs in &log[20..] {
        assert_eq!(rs.delivered, Some(10));
        assert_eq!(rs.interval, Some(ms(100)));
        assert_eq!(rs.acked_sacked, 1);
        assert!(!rs.is_app_limited);
    }
    // Round 2: the ACK interval is 100 ms but the send interval still reaches back
    // to the first flight (sent at 100 ms): interval = (200 + k) - 100 ms.
    for (k, rs) in log[10..20].iter().enumerate() {
        assert_eq!(rs.delivered, Some(10));
        assert_eq!(rs.interval, Some(ms(101 + k as u64)));
    }
}

#[test]
fn a_spurious_timeout_is_undone_when_the_profile_allows_it() {
    // Window of 10 in flight, sent at 100 ms with TSval 100 ms. The ACKs are only
    // delayed: the RTO fires at 1.1 s (cwnd 1, ssthresh 5), the retransmission
    // leaves at 1.1 s, then the ACK of the *original* segment 0 arrives echoing
    // TSval 100 ms < 1.1 s (RFC 3522): the timeout was spurious.
    for (undo, expect_undo) in [
        (crate::profile::Undo::Rto, true),
        (crate::profile::Undo::None, false),
    ] {
        let mut c = cfg();
        c.initial_window = 10;
        c.undo = undo;
        let (mut s, _, first) = established(&c, "newreno");
        let ts0 = first[0].tsval;
        let mut out = vec![];
        s.on_timer(ms(1100), &mut out);
        assert_eq!((s.tp.cwnd, s.tp.ssthresh), (1, 5));
        s.on_segment(ms(1150), &ack(seg_start(1), &[], true, ts0), &mut out);
        if expect_undo {
            // Restored: cwnd = max(cwnd, prior_cwnd) = 10, ssthresh back to infinity;
            // then this ACK's one delivered segment grows it in slow start: 11.
            assert_eq!(s.stats.undos, 1);
            assert_eq!(s.tp.cwnd, 11);
            assert_eq!(s.tp.ssthresh, u32::MAX);
            assert_eq!(s.ca_state(), CaState::Open);
        } else {
            assert_eq!(s.stats.undos, 0);
            assert_eq!(s.tp.ssthresh, 5);
            assert_eq!(s.ca_state(), CaState::Loss);
        }
        s.check_invariants();
    }
}

#[test]
fn freebsd_undoes_a_first_timeout_whose_first_new_ack_comes_within_half_an_srtt() {
    // FreeBSD's bad-retransmit window (tcp_timer_rexmt: t_badrxtwin = ticks +
    // srtt/2 on the first timeout; tcp_input: CC_RTO_ERR on the next ACK of new
    // data before it). The SYN's RTT is 100 ms (srtt 100 ms); 10 segments leave
    // at 100 ms; the RTO fires at 1.1 s (cwnd 1, ssthresh 5); the window closes
    // at 1.1 s + 50 ms. No timestamp echo is looked at.
    for (at, expect_undo) in [(1149, true), (1150, false)] {
        let mut c = cfg();
        c.initial_window = 10;
        c.undo = crate::profile::Undo::BadRxtWin;
        let (mut s, _, _) = established(&c, "newreno");
        assert_eq!(s.tp.srtt, ms(100));
        let mut out = vec![];
        s.on_timer(ms(1100), &mut out);
        assert_eq!((s.tp.cwnd, s.tp.ssthresh), (1, 5));
        s.on_segment(ms(at), &ack(seg_start(1), &[], false, 0), &mut out);
        if expect_undo {
            // cwnd = max(cwnd, prior_cwnd) = 10, ssthresh back; this ACK's
            // segment then grows it in slow start: 11.
            assert_eq!(s.stats.undos, 1);
            assert_eq!((s.tp.cwnd, s.tp.ssthresh), (11, u32::MAX));
            assert_eq!(s.ca_state(), CaState::Open);
        } else {
            assert_eq!(s.stats.undos, 0);
            assert_eq!(s.tp.ssthresh, 5);
            assert_eq!(s.ca_state(), CaState::Loss);
        }
        // Only the first new ACK is tested: a later one never undoes.
        s.on_segment(ms(at + 1), &ack(seg_start(2), &[], false, 0), &mut out);
        assert_eq!(s.stats.undos, expect_undo as u64);
        s.check_invariants();
    }
}

#[test]
fn freebsd_sets_ssthresh_from_cwnd_at_every_timeout() {
    // tcp_input.c cc_cong_signal(CC_RTO): ssthresh = max(2, cwnd/2) segments
    // at every timeout. 10 segments in flight, cwnd 10: the first timeout
    // gives 5 (cwnd 1); the second, with cwnd still 1, gives max(0, 2) = 2.
    // RFC 5681 holds 5 on the later backoff.
    for (every, expect) in [(true, 2), (false, 5)] {
        let mut c = cfg();
        c.initial_window = 10;
        c.ssthresh_from_cwnd = true;
        c.ssthresh_every_rto = every;
        let (mut s, _, _) = established(&c, "newreno");
        let mut out = vec![];
        s.on_timer(ms(1100), &mut out);
        assert_eq!((s.tp.cwnd, s.tp.ssthresh), (1, 5));
        let second = s.rto_deadline().expect("the timer runs again");
        s.on_timer(second, &mut out);
        assert_eq!((s.tp.cwnd, s.tp.ssthresh), (1, expect));
        s.check_invariants();
    }
}

#[test]
fn a_spurious_fast_recovery_is_undone_only_with_undo_all() {
    // Reordering, not loss: SACKs for 1..3 make 0 look lost; the retransmission of
    // 0 leaves at 200 ms; the original 0 then arrives, and the full ACK echoes its
    // TSval (100 ms) older than the retransmission.
    for (undo, expect) in [
        (crate::profile::Undo::All, true),
        (crate::profile::Undo::Rto, false),
    ] {
        let mut c = cfg();
        c.initial_window = 10;
        c.undo = undo;
        c.ss_ack_limit = 0; // Linux's slow start, as its undo
        let (mut s, _, first) = established(&c, "newreno");
        let ts0 = first[0].tsval;
        let mut out = vec![];
        s.on_segment(
            ms(200),
            &ack(1, &[(seg_start(1), seg_start(4))], true, ts0),
            &mut out,
        );
        assert_eq!(s.ca_state(), CaState::Recovery);
        assert_eq!(s.tp.ssthresh, 5);
        s.on_segment(ms(250), &ack(s.snd_max, &[], true, ts0), &mut out);
        assert_eq!(s.ca_state(), CaState::Open);
        if expect {
            // Restored to 10 and infinite ssthresh, then slow start on the 7 segments
            // this ACK newly delivers (10 less the 3 SACKed before): 17.
            assert_eq!((s.stats.undos, s.tp.cwnd, s.tp.ssthresh), (1, 17, u32::MAX));
        } else {
            assert_eq!((s.stats.undos, s.tp.cwnd, s.tp.ssthresh), (0, 5, 5));
        }
    }
}

#[test]
fn a_recovery_that_ignores_sack_ignores_sack_blocks() {
    // Regression: Reno recovery on a SACK-capable connection used to mark SACKed
    // segments, which go-back-N after a timeout then retransmitted, leaving a
    // segment both SACKed and in retransmission (scoreboard invariant).
    let c = cfg(); // SACK negotiated
    let (mut s, _, _) = established(&c, "reno");
    s.tp.cwnd = 10;
    let mut out = vec![];
    s.on_segment(ms(150), &ack(1, &[], true, 1), &mut out);
    s.on_segment(
        ms(200),
        &ack(1, &[(seg_start(2), seg_start(6))], true, 1),
        &mut out,
    );
    assert_eq!(s.scoreboard().sacked, 0);
    s.on_timer(ms(5000), &mut out);
    s.on_segment(
        ms(5100),
        &ack(seg_start(1), &[(seg_start(2), seg_start(6))], true, 1),
        &mut out,
    );
    s.check_invariants();
    assert_eq!(s.scoreboard().sacked, 0);
}

// ------------------------------------------------------------------ ECN (RFC 3168)

fn ecn_cfg(ecn: bool) -> TcpConfig {
    let mut c = no_sack_cfg();
    c.ecn = ecn;
    c
}

/// `established` with ECN settings per side; returns the SYN, SYN-ACK and the
/// first data segments as well.
fn ecn_handshake(snd: bool, rcv: bool) -> (Sender, Receiver, [TcpHeader; 2], Vec<TcpHeader>) {
    let mut s = sender(&ecn_cfg(snd), "newreno");
    let mut r = Receiver::new(ecn_cfg(rcv));
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    let syn = out.pop().unwrap();
    let mut back = vec![];
    r.on_segment(ms(50), &syn, &mut back);
    s.on_segment(ms(100), &back[0], &mut out);
    (s, r, [syn, back[0]], out)
}

/// An ACK with the ECE flag.
fn ece_ack(ackno: u64) -> TcpHeader {
    let mut h = ack(ackno, &[], false, 0);
    h.flags |= ECE;
    h
}

#[test]
fn ecn_is_used_only_when_both_hosts_enable_it() {
    // RFC 3168 6.1.1: the SYN of an ECN host has ECE and CWR; the SYN-ACK has ECE
    // (not CWR) only when the responder enables ECN too. Then, and only then, data
    // goes out ECT(0). SYN and SYN-ACK are never ECT.
    for (snd, rcv) in [(true, true), (true, false), (false, true), (false, false)] {
        let (s, r, [syn, synack], data) = ecn_handshake(snd, rcv);
        let both = snd && rcv;
        assert_eq!((syn.has(ECE), syn.has(CWR)), (snd, snd), "{snd} {rcv}");
        assert_eq!((synack.has(ECE), synack.has(CWR)), (both, false));
        assert_eq!((s.ecn_ok(), r.ecn_ok()), (both, both));
        assert_eq!((syn.ip_ecn, synack.ip_ecn), (Ecn::NotEct, Ecn::NotEct));
        let want = if both { Ecn::Ect0 } else { Ecn::NotEct };
        assert_eq!(data.len(), 2);
        assert!(data.iter().all(|h| h.ip_ecn == want && !h.has(CWR)));
    }
    // A SYN with ECE alone is not an ECN-setup SYN; a SYN-ACK with ECE and CWR
    // is not an ECN-setup SYN-ACK (Linux tcp_ecn_rcv_synack).
    let (_, _, [syn, synack], _) = ecn_handshake(true, true);
    let mut r = Receiver::new(ecn_cfg(true));
    let mut back = vec![];
    let half = TcpHeader {
        flags: SYN | ECE,
        ..syn
    };
    r.on_segment(ms(50), &half, &mut back);
    assert!(!r.ecn_ok() && !back[0].has(ECE));
    let mut s = sender(&ecn_cfg(true), "newreno");
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    let both_flags = TcpHeader {
        flags: synack.flags | CWR,
        ..synack
    };
    s.on_segment(ms(100), &both_flags, &mut out);
    assert!(!s.ecn_ok());
    // Without ECN negotiated an ECE flag means nothing: no reduction.
    let (mut s, _, _, _) = ecn_handshake(true, false);
    let cwnd = s.tp.cwnd;
    s.on_segment(ms(200), &ece_ack(seg_start(1)), &mut out);
    assert_eq!((s.stats.ecn_reductions, s.ca_state()), (0, CaState::Open));
    assert!(s.tp.cwnd > cwnd);
}

#[test]
fn a_retransmitted_syn_is_not_an_ecn_setup_syn() {
    // Linux tcp_ecn_clear_syn (tcp_ecn_fallback = 1, RFC 3168 6.1.1.1): the SYN
    // is resent without ECE and CWR, so the connection goes on without ECN.
    let c = ecn_cfg(true);
    let mut s = sender(&c, "newreno");
    let mut r = Receiver::new(c.clone());
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    out.clear();
    s.on_timer(ms(1000), &mut out);
    let syn = out[0];
    assert!(syn.has(SYN) && !syn.has(ECE) && !syn.has(CWR));
    let mut back = vec![];
    r.on_segment(ms(1050), &syn, &mut back);
    out.clear();
    s.on_segment(ms(1100), &back[0], &mut out);
    assert!(!r.ecn_ok() && !s.ecn_ok());
    assert!(out.iter().all(|h| h.ip_ecn == Ecn::NotEct));
}

#[test]
fn the_receiver_echoes_ece_from_the_ce_segment_until_cwr_arrives() {
    // RFC 3168 6.1.3 with Linux's ACK timing (rfc profile: ACK every second
    // segment, 200 ms timer). Segment k arrives at 150 + k ms.
    //   0 CE: ECE starts, quick-ACK mode for two ACKs: ACKed at once, with ECE
    //     (without the mark it would wait, see receiver_delays_acks...).
    //   1: the second quick ACK, ECE.     2: delayed, no ACK.
    //   3: second segment: ACK, ECE.      4 CE: already echoing, no quick ACK.
    //   5 CWR: the echo stops and the CWR segment is ACKed at once: no ECE.
    //   6: delayed.                       7: ACK, no ECE.
    //   8 CWR and CE: CWR is read first, then CE: ACK at once with ECE.
    let (_, mut r, _, data) = ecn_handshake(true, true);
    let seg = |i: u64, ce: bool, cwr: bool| TcpHeader {
        seq: seg_start(i),
        ip_ecn: if ce { Ecn::Ce } else { Ecn::Ect0 },
        flags: data[0].flags | if cwr { CWR } else { 0 },
        ..data[0]
    };
    let arrivals = [
        (false, false),
        (false, false),
        (false, false),
        (false, false),
        (true, false),
        (false, true),
        (false, false),
        (false, false),
        (true, true),
    ];
    let mut acks = vec![];
    for (k, &(ce, cwr)) in arrivals.iter().enumerate() {
        let k = k as u64;
        let mut out = vec![];
        r.on_segment(ms(150 + k), &seg(k, k == 0 || ce, cwr), &mut out);
        for a in out {
            assert_eq!(a.ip_ecn, Ecn::NotEct, "pure ACKs are not ECT");
            acks.push(((a.ack - 1) / MSS, a.has(ECE)));
        }
    }
    // (segments acknowledged, ECE)
    assert_eq!(
        acks,
        vec![
            (1, true),
            (2, true),
            (4, true),
            (6, false),
            (8, false),
            (9, true)
        ]
    );
    assert_eq!(r.stats.ce_segs, 3);
}

/// A NewReno sender without SACK in congestion avoidance at cwnd = ssthresh =
/// 20 with ECN: segments 1..=20 outstanding (snd_max = segment 21).
fn ecn_sender_at_cwnd_20() -> Sender {
    let (mut s, _, _, _) = ecn_handshake(true, true);
    s.tp.cwnd = 20;
    s.tp.ssthresh = 20;
    let mut out = vec![];
    s.on_segment(ms(200), &ack(seg_start(1), &[], false, 0), &mut out);
    assert_eq!(data_seqs(&out), (2..=20).collect::<Vec<_>>());
    assert_eq!((s.tp.cwnd, s.snd_max), (20, seg_start(21)));
    s
}

#[test]
fn an_ece_halves_the_window_once_and_the_next_new_segment_carries_cwr() {
    // RFC 3168 6.1.2; "ACK k" acknowledges up to segment k (the next expected).
    // The first ECE, on ACK 2, finds 20 segments in flight: ssthresh =
    // max(20/2, 2) = 10 and cwnd = 10; the CWR state lasts until snd_una passes
    // 21 (snd_max then). ECE on ACKs 3..=11 changes nothing (once per window)
    // and the window does not grow; after ACK 12, 9 segments (12..=20) are in
    // flight and segment 21 goes out: ECT(0) with CWR. Segment 22, after ACK 13,
    // has no CWR.
    let mut s = ecn_sender_at_cwnd_20();
    let mut out = vec![];
    s.on_segment(ms(300), &ece_ack(seg_start(2)), &mut out);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (10, 10));
    assert_eq!((s.ca_state(), s.stats.ecn_reductions), (CaState::Cwr, 1));
    assert!(out.is_empty());
    for k in 3..=11 {
        s.on_segment(ms(300 + k), &ece_ack(seg_start(k)), &mut out);
        assert!(out.is_empty(), "segment {k}");
    }
    s.on_segment(ms(312), &ece_ack(seg_start(12)), &mut out);
    assert_eq!(data_seqs(&out), vec![21]);
    assert!(out[0].has(CWR) && out[0].ip_ecn == Ecn::Ect0);
    out.clear();
    s.on_segment(ms(313), &ack(seg_start(13), &[], false, 0), &mut out);
    assert_eq!(data_seqs(&out), vec![22]);
    assert!(!out[0].has(CWR) && out[0].ip_ecn == Ecn::Ect0);
    assert_eq!(
        (s.tp.cwnd, s.tp.ssthresh, s.stats.ecn_reductions),
        (10, 10, 1)
    );
    // Each ACK k releases segment k + 9. Up to ACK 21 (snd_una = 21 = high_seq,
    // not past it) the sender stays in CWR.
    for k in 14..=21 {
        s.on_segment(ms(300 + k), &ack(seg_start(k), &[], false, 0), &mut out);
    }
    assert_eq!(
        (s.ca_state(), s.tp.cwnd, s.snd_max),
        (CaState::Cwr, 10, seg_start(31))
    );
    // ACK 22 passes it: cwnd = ssthresh = 10 and Open (congestion avoidance
    // resumes on this ACK, as Linux: cwnd_cnt 1 of 10); segment 31 goes out.
    out.clear();
    s.on_segment(ms(322), &ack(seg_start(22), &[], false, 0), &mut out);
    assert_eq!(
        (s.ca_state(), s.tp.cwnd, s.tp.cwnd_cnt),
        (CaState::Open, 10, 1)
    );
    assert_eq!(data_seqs(&out), vec![31]);
    // A new ECE, from the next window, reduces again: 10 segments (22..=31) in
    // flight before ACK 23, ssthresh = cwnd = 5.
    s.on_segment(ms(323), &ece_ack(seg_start(23)), &mut out);
    assert_eq!(
        (s.tp.cwnd, s.tp.ssthresh, s.stats.ecn_reductions),
        (5, 5, 2)
    );
}

#[test]
fn with_prr_an_ece_brings_the_window_down_over_the_round_trip_as_linux() {
    // Linux tcp_enter_cwr -> tcp_init_cwnd_reduction, then tcp_cwnd_reduction
    // on each ACK (RFC 6937): a SACK connection with ECN at cwnd 20, segments
    // 1..=20 outstanding. The ECE on ACK 2 sets ssthresh = 20/2 = 10 and
    // prior_cwnd 20. With d segments delivered and s new ones sent before
    // this ACK, in flight is 20 - d + s. While that exceeds ssthresh, PRR's
    // proportional part lets out ceil(10 d / 20) = ceil(d / 2) in all, so
    // cwnd = 20 - d + ceil(d / 2): one new segment every other ACK instead of
    // none until half the window is acknowledged (the cut without PRR, the
    // previous test). At d = 19 in flight is 20 - 19 + 9 = 10 = ssthresh:
    // the other branch, min(ssthresh - in flight = 0, ...), sends nothing
    // (cwnd 10); at d = 20 in flight is 9, it sends one (cwnd 10). ACK 22,
    // past high_seq (21), ends CWR at ssthresh.
    let mut c = cfg();
    c.ecn = true;
    c.prr = true;
    let (mut s, _, _) = established(&c, "newreno");
    assert!(s.ecn_ok() && s.sack_ok());
    s.tp.cwnd = 20;
    s.tp.ssthresh = 20;
    let mut out = vec![];
    s.on_segment(ms(200), &ack(seg_start(1), &[], false, 0), &mut out);
    assert_eq!((s.tp.cwnd, s.snd_max), (20, seg_start(21)));
    let mut sent = 0u64;
    for k in 2..=21u64 {
        out.clear();
        let h = if k == 2 {
            ece_ack(seg_start(k))
        } else {
            ack(seg_start(k), &[], false, 0)
        };
        s.on_segment(ms(300 + k), &h, &mut out);
        let d = k - 1;
        let (total, cwnd) = match d {
            19 => (9, 10),
            20 => (10, 10),
            _ => (d.div_ceil(2), 20 - d + d.div_ceil(2)),
        };
        let new: Vec<u64> = (21 + sent..21 + total).collect();
        assert_eq!(data_seqs(&out), new, "ACK {k}");
        sent = total;
        assert_eq!(s.tp.cwnd as u64, cwnd, "ACK {k}");
        assert_eq!((s.ca_state(), s.tp.ssthresh), (CaState::Cwr, 10), "ACK {k}");
    }
    assert_eq!(s.stats.ecn_reductions, 1);
    s.on_segment(ms(322), &ack(seg_start(22), &[], false, 0), &mut out);
    assert_eq!((s.ca_state(), s.tp.cwnd), (CaState::Open, 10));
}

#[test]
fn retransmissions_are_not_ect_and_a_loss_reduction_also_sends_cwr() {
    // RFC 3168 6.1.5: retransmitted segments go out Not-ECT; 6.1.2: after any
    // window reduction (here a fast retransmit) the first new data segment
    // carries CWR. ECE during fast recovery is ignored.
    // Segments 1..=20 out, 1 lost: three duplicate ACK 1s (RFC 6582):
    // ssthresh = 20/2 = 10, cwnd = 13, segment 1 resent Not-ECT without CWR.
    let mut s = ecn_sender_at_cwnd_20();
    let mut out = vec![];
    for k in 0..3 {
        s.on_segment(ms(300 + k), &ack(seg_start(1), &[], false, 0), &mut out);
    }
    assert_eq!((s.tp.ssthresh, s.tp.cwnd), (10, 13));
    assert_eq!(data_seqs(&out), vec![1]);
    assert!(out[0].ip_ecn == Ecn::NotEct && !out[0].has(CWR));
    // Each further duplicate ACK inflates cwnd by one: the 11th makes it
    // 13 + 8 = 21, room for one segment beyond the 20 in flight, and new segment
    // 21 goes out, ECT(0) with CWR. That duplicate carries ECE: ignored in
    // recovery.
    out.clear();
    for k in 3..10 {
        s.on_segment(ms(300 + k), &ack(seg_start(1), &[], false, 0), &mut out);
    }
    assert!(out.is_empty());
    s.on_segment(ms(310), &ece_ack(seg_start(1)), &mut out);
    assert_eq!(s.tp.cwnd, 21);
    assert_eq!((s.tp.ssthresh, s.stats.ecn_reductions), (10, 0));
    assert_eq!(data_seqs(&out), vec![21]);
    assert!(out[0].ip_ecn == Ecn::Ect0 && out[0].has(CWR));
    // A timeout resends the head Not-ECT as well.
    out.clear();
    let rto = s.rto_deadline().unwrap();
    s.on_timer(rto, &mut out);
    assert_eq!(data_seqs(&out), vec![1]);
    assert_eq!(out[0].ip_ecn, Ecn::NotEct);
}

#[test]
fn a_loss_in_the_window_of_an_ece_is_repaired_without_a_second_reduction() {
    // RFC 3168 6.1.2 (one reduction per window for drops and marks together),
    // Linux tcp_enter_recovery inside a cwnd reduction: after the ECE on ACK 2
    // (cwnd = ssthresh = 10), three duplicate ACK 2s (ECE still on) start fast
    // recovery with ssthresh kept at 10: cwnd = 10 + 3, segment 2 resent.
    let mut s = ecn_sender_at_cwnd_20();
    let mut out = vec![];
    s.on_segment(ms(300), &ece_ack(seg_start(2)), &mut out);
    for k in 1..=3 {
        s.on_segment(ms(300 + k), &ece_ack(seg_start(2)), &mut out);
    }
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!((s.tp.ssthresh, s.tp.cwnd), (10, 13));
    assert_eq!(data_seqs(&out), vec![2]);
    assert_eq!((s.stats.fast_retransmits, s.stats.ecn_reductions), (1, 1));
}

// ---------------------------------------------------------------- ns-2 agents
//
// Expected sequences traced by hand from ns-2 2.28's tcp/tcp.cc and
// tcp/tcp-sink.cc with the defaults of tcl/lib/ns-default.tcl (see the `ns2`
// profile's sources): packet numbers here are segments of 1460 bytes.

const NS2_MSS: u64 = 1460;

fn ns2_cfg() -> TcpConfig {
    let mut c = profile("ns2").unwrap().config;
    c.mss = NS2_MSS as u32; // mascolo2006's 1500-byte packets
    c
}

fn ns2_seg(i: u64) -> u64 {
    1 + i * NS2_MSS
}

fn ns2_seqs(out: &[TcpHeader]) -> Vec<u64> {
    out.iter()
        .filter(|h| h.payload > 0)
        .map(|h| (h.seq - 1) / NS2_MSS)
        .collect()
}

/// A plain ns-2 ACK (no window, no SACK) of everything below segment `i`.
fn ns2_ack(i: u64) -> TcpHeader {
    TcpHeader {
        flags: ACK,
        seq: 1,
        ack: ns2_seg(i),
        ns2_sizes: true,
        ..Default::default()
    }
}

/// Through the 40-byte packet 0: sent at 0, its ACK back at `rtt`.
fn ns2_open(c: &TcpConfig, rtt: SimTime) -> (Sender, Receiver, Vec<TcpHeader>) {
    let mut s = sender(c, "newreno");
    let mut r = Receiver::new(c.clone());
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    let mut back = vec![];
    r.on_segment(SimTime(rtt.0 / 2), &out[0], &mut back);
    out.clear();
    s.on_segment(rtt, &back[0], &mut out);
    (s, r, out)
}

#[test]
fn ns2_syn_is_a_40_byte_packet_and_its_ack_opens_windowinit() {
    // tcp.cc output(): packet 0 with syn_ is tcpip_base_hdr_size_ = 40 bytes and
    // no data; set_initial_window(): cwnd_ = 1 (syn_ && delay_growth_); nothing
    // else leaves until its ACK, which sets cwnd_ = windowInit_ = 2: packets 1
    // and 2 (here segments 0 and 1), each 1460 + 40 = 1500 bytes.
    let c = ns2_cfg();
    let mut s = sender(&c, "newreno");
    let mut r = Receiver::new(c.clone());
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    assert_eq!(out.len(), 1);
    let syn = out[0];
    assert_eq!((syn.payload, syn.wire_size()), (0, 40));
    assert!(syn.mss == 0 && syn.wscale.is_none() && !syn.sack_perm && !syn.has_ts);
    // TCPSink acknowledges packet 0 with a plain 40-byte ACK.
    let mut back = vec![];
    r.on_segment(ms(50), &syn, &mut back);
    assert_eq!(back.len(), 1);
    assert!(!back[0].has(SYN) && back[0].has(ACK));
    assert_eq!((back[0].ack, back[0].wire_size()), (1, 40));
    out.clear();
    s.on_segment(ms(100), &back[0], &mut out);
    assert_eq!(s.state(), SenderState::Established);
    assert!(s.sack_ok() && !s.ts_ok()); // Sack1, timestamps_ false: configured, not negotiated
    assert_eq!(s.mss(), 1460);
    assert_eq!(s.tp.cwnd, 2);
    assert_eq!(s.tp.ssthresh, 20); // reset(): ssthresh_ = window_
    assert_eq!(ns2_seqs(&out), vec![0, 1]);
    assert!(out
        .iter()
        .all(|h| h.wire_size() == 1500 && !h.has(SYN) && !h.has(FIN)));
}

#[test]
fn ns2_without_syn_sends_data_at_the_start_time() {
    // syn_ false (ns-2 before 2001/05/17) and windowInit_ 1 (before 2001/05/26):
    // one 1500-byte data packet at the start time, no SYN.
    let mut c = ns2_cfg();
    c.handshake = crate::profile::Handshake::None;
    c.initial_window = 1;
    let mut s = sender(&c, "tahoe");
    let mut out = vec![];
    s.start(ms(5000), &mut out);
    assert_eq!(s.state(), SenderState::Established);
    assert_eq!(out.len(), 1);
    assert_eq!(ns2_seqs(&out), vec![0]);
    assert_eq!(out[0].wire_size(), 1500);
    assert!(!out[0].has(SYN));
    // The timer runs from the start with rtxcur_init_ = 6 s.
    assert_eq!(s.rto_deadline(), Some(ms(11_000)));
    // The sink takes it without a handshake and acknowledges it.
    let mut r = Receiver::new(c.clone());
    let mut back = vec![];
    r.on_segment(ms(5050), &out[0], &mut back);
    assert_eq!((back.len(), back[0].ack), (1, ns2_seg(1)));
    assert_eq!(r.stats.delivered, 1460);
}

#[test]
fn ns2_sink_acks_every_packet_and_delack_sink_every_second() {
    // TCPSink: one 40-byte ACK per data packet (delack 0).
    let c = ns2_cfg();
    let (_, mut r, data) = ns2_open(&c, ms(100));
    let mut acks = vec![];
    for (k, d) in data.iter().enumerate() {
        r.on_segment(ms(150 + k as u64), d, &mut acks);
    }
    assert_eq!(
        acks.iter()
            .map(|a| (a.ack, a.wire_size()))
            .collect::<Vec<_>>(),
        vec![(ns2_seg(1), 40), (ns2_seg(2), 40)]
    );
    // DelAckSink (interval_ 100 ms): the first in-order packet waits, the second
    // is acknowledged at once with it; a lone packet waits interval_.
    let mut c = ns2_cfg();
    c.delack_timeout = ms(100);
    let (mut s, mut r, data) = ns2_open(&c, ms(100));
    let mut acks = vec![];
    r.on_segment(ms(150), &data[0], &mut acks);
    assert!(acks.is_empty());
    assert_eq!(r.next_deadline(), Some(ms(250)));
    r.on_segment(ms(151), &data[1], &mut acks);
    assert_eq!(
        acks.iter().map(|a| a.ack).collect::<Vec<_>>(),
        vec![ns2_seg(2)]
    );
    let mut out = vec![];
    s.on_segment(ms(201), &acks[0], &mut out);
    // cwnd 2 -> 3 (one ACK, +1 in slow start): segments 2, 3, 4 leave.
    assert_eq!(ns2_seqs(&out), vec![2, 3, 4]);
    acks.clear();
    r.on_segment(ms(250), &out[0], &mut acks);
    r.on_segment(ms(251), &out[1], &mut acks);
    r.on_segment(ms(252), &out[2], &mut acks);
    assert_eq!(acks.len(), 1);
    r.on_timer(ms(352), &mut acks);
    assert_eq!(
        acks.iter().map(|a| a.ack).collect::<Vec<_>>(),
        vec![ns2_seg(4), ns2_seg(5)]
    );
}

#[test]
fn ns2_sink_forgets_sack_blocks_it_no_longer_sends() {
    // TCPSink/Sack1 (tcp-sink.cc Sacker::append_ack, SackStack of
    // maxSackBlocks_ 3): an out-of-order packet's block first, then the
    // stack's blocks it does not cover (covered ones popped), 3 in all; the
    // new block is pushed and a full stack loses its oldest. Segment 0
    // arrives, then 2, 4, 6, 8: the ACK of 8 carries [8,9) [6,7) [4,5) and
    // the stack is that, [2,3) gone. Segment 5 joins [4,5) and [6,7): the
    // ACK carries [4,7) and [8,9) only (a receiver remembering 4 blocks, as
    // Linux's, would add [2,3) again).
    let c = ns2_cfg();
    let (_, mut r, data) = ns2_open(&c, ms(100));
    let seg = |i: u64| TcpHeader {
        seq: ns2_seg(i),
        ..data[0]
    };
    let blocks = |a: &TcpHeader| -> Vec<(u64, u64)> {
        a.sack_blocks()
            .iter()
            .map(|&(l, r)| ((l - 1) / NS2_MSS, (r - 1) / NS2_MSS))
            .collect()
    };
    let mut out = vec![];
    for (k, i) in [0, 2, 4, 6, 8].into_iter().enumerate() {
        r.on_segment(ms(150 + k as u64), &seg(i), &mut out);
    }
    let a = out.last().unwrap();
    assert_eq!(a.ack, ns2_seg(1));
    assert_eq!(blocks(a), [(8, 9), (6, 7), (4, 5)]);
    r.on_segment(ms(160), &seg(5), &mut out);
    let a = out.last().unwrap();
    assert_eq!(blocks(a), [(4, 7), (8, 9)]);
    // Filling the hole at 1: ACK of 4 with the stack's blocks above it.
    r.on_segment(ms(161), &seg(1), &mut out);
    r.on_segment(ms(162), &seg(3), &mut out);
    let a = out.last().unwrap();
    assert_eq!((a.ack, blocks(a)), (ns2_seg(7), vec![(8, 9)]));
}

#[test]
fn ns2_first_rto_is_rtxcur_init_and_a_lost_syn_leaves_ssthresh_2() {
    // rtt_init(): t_rtxcur_ = rtxcur_init_ = 6 s (ns-2 2.28). rtt_timeout() =
    // max(6, minrto_ 0.2) * t_backoff_: the SYN's timer fires at 6 s, the next at
    // 6 + 12 = 18 s. timeout(): slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)
    // halves window() = 1 to 0, floored at 2. The retransmitted packet 0 is not
    // timed (only seqno > maxseq_ is), so its ACK gives no sample and t_backoff_
    // stays 2; cwnd_ = windowInit_ 2 on that ACK (delay_growth_).
    let c = ns2_cfg();
    let mut s = sender(&c, "newreno");
    let mut r = Receiver::new(c.clone());
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    assert_eq!(s.rto_deadline(), Some(ms(6000)));
    out.clear();
    s.on_timer(ms(6000), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].wire_size(), 40);
    assert_eq!(s.rto_deadline(), Some(ms(18_000)));
    assert_eq!(s.tp.ssthresh, 2);
    let mut back = vec![];
    r.on_segment(ms(6050), &out[0], &mut back);
    out.clear();
    s.on_segment(ms(6100), &back[0], &mut out);
    assert_eq!(s.take_rtt_sample(), None);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (2, 2));
    assert_eq!(ns2_seqs(&out), vec![0, 1]);
    // Timer restarted by the first data packet: 2 * 6 s (backoff held).
    assert_eq!(s.rto_deadline(), Some(ms(6100 + 12_000)));
}

#[test]
fn ns2_rto_after_samples_in_ticks_and_one_timed_segment_per_window() {
    // tcpTick_ 10 ms, boot_time_ 0. Packet 0 sent at 0, ACKed at 105 ms:
    // t_rtt_ = floor(105/10) - floor(0/10) = 10 ticks; first sample:
    // t_srtt_ = 10 << 3 = 80, t_rttvar_ = 10 << 1 = 20;
    // t_rtxcur_ = ((20 << 3) + 80) >> 3 = 30 ticks = 300 ms > minrto_ 200 ms.
    let c = ns2_cfg();
    let (mut s, _, out) = ns2_open(&c, ms(105));
    assert_eq!(s.take_rtt_sample(), Some(ms(105)));
    assert_eq!(s.rtt().rto(), ms(300));
    assert_eq!(ns2_seqs(&out), vec![0, 1]);
    // Segment 0 (sent at 105 ms) is the timed one (rtt_seq_); segment 1 is not.
    // ACK of 0 at 260 ms: t_rtt_ = 26 - 10 = 16; delta = 16 - (80 >> 3) = 6,
    // t_srtt_ = 86; |delta| - (20 >> 2) = 1, t_rttvar_ = 21;
    // t_rtxcur_ = ((21 << 3) + 86) >> 3 = 254 >> 3 = 31 ticks = 310 ms.
    let mut out = vec![];
    s.on_segment(ms(260), &ns2_ack(1), &mut out);
    assert_eq!(s.take_rtt_sample(), Some(ms(155)));
    assert_eq!(s.rtt().rto(), ms(310));
    assert_eq!(s.rto_deadline(), Some(ms(260 + 310)));
    // Slow start: cwnd 3; segments 2 and 3 leave at 260 ms, 2 becomes the timed one.
    assert_eq!(ns2_seqs(&out), vec![2, 3]);
    // ACK of 1 (untimed) at 261 ms: no sample, RTO unchanged.
    out.clear();
    s.on_segment(ms(261), &ns2_ack(2), &mut out);
    assert_eq!(s.take_rtt_sample(), None);
    assert_eq!(s.rtt().rto(), ms(310));
    // ACK of 2 at 400 ms: t_rtt_ = 40 - 26 = 14; delta = 14 - (86 >> 3 = 10) = 4,
    // t_srtt_ = 90; 4 - (21 >> 2 = 5) = -1, t_rttvar_ = 20;
    // t_rtxcur_ = ((20 << 3) + 90) >> 3 = 250 >> 3 = 31 ticks = 310 ms.
    out.clear();
    s.on_segment(ms(400), &ns2_ack(3), &mut out);
    assert_eq!(s.take_rtt_sample(), Some(ms(140)));
    assert_eq!(s.rtt().rto(), ms(310));
}

#[test]
fn ns2_window_limits_sending_and_cwnd_grows_past_it() {
    // window_ 3: at most window() = min(cwnd_, 3) packets outstanding (send_much:
    // t_seqno_ <= highest_ack_ + window()); ssthresh_ starts at window_ (reset()).
    let mut c = ns2_cfg();
    c.window = 3;
    let (mut s, _, out) = ns2_open(&c, ms(100));
    assert_eq!(s.tp.ssthresh, 3);
    assert_eq!(ns2_seqs(&out), vec![0, 1]);
    // To isolate the growth rule, ssthresh_ above the window: opencwnd's slow
    // start adds 1 per new ACK whether or not cwnd limits sending
    // (control_increase_ 0), so cwnd runs 3, 4, ..., 10 while one new packet
    // leaves per ACK and 3 stay outstanding.
    s.tp.ssthresh = 100;
    let mut t = 200;
    let mut sent = vec![];
    let mut cwnds = vec![];
    for i in 1..=8 {
        let mut out = vec![];
        s.on_segment(ms(t), &ns2_ack(i), &mut out);
        sent.push(ns2_seqs(&out));
        cwnds.push(s.tp.cwnd);
        assert!(s.outstanding_bytes() <= 3 * NS2_MSS);
        t += 10;
    }
    assert_eq!(
        sent,
        vec![
            vec![2, 3],
            vec![4],
            vec![5],
            vec![6],
            vec![7],
            vec![8],
            vec![9],
            vec![10]
        ]
    );
    assert_eq!(cwnds, vec![3, 4, 5, 6, 7, 8, 9, 10]);
    // With cwnd_limited_growth (Linux tcp_is_cwnd_limited) the window grows
    // only while cwnd is the limit or, in slow start, below twice the packets
    // in flight (3): 3 (limited), 4 and 5 (3 * 2 > cwnd), then 6 and no further.
    let mut c = ns2_cfg();
    c.window = 3;
    c.cwnd_limited_growth = true;
    let (mut s, _, _) = ns2_open(&c, ms(100));
    s.tp.ssthresh = 100;
    for i in 1..=8 {
        s.on_segment(ms(200 + 10 * i), &ns2_ack(i), &mut vec![]);
    }
    assert_eq!(s.tp.cwnd, 6);
}

#[test]
fn ns2_maxcwnd_caps_the_window() {
    // maxcwnd_ 4 (window_ 100): slow start from 2 stops at 4 however many ACKs come.
    let mut c = ns2_cfg();
    c.window = 100;
    c.max_cwnd = 4;
    let (mut s, _, _) = ns2_open(&c, ms(100));
    let mut out = vec![];
    for i in 1..=10 {
        s.on_segment(ms(200 + i), &ns2_ack(i), &mut out);
    }
    assert_eq!(s.tp.cwnd, 4);
    // 4 outstanding after the tenth ACK: segments 10..13.
    assert_eq!(s.outstanding_bytes(), 4 * NS2_MSS);
}

#[test]
fn ns2_finite_transfer_ends_without_a_fin() {
    // ns-2 agents send no FIN: the transfer is done when its last packet is ACKed.
    let c = ns2_cfg();
    let mut s = Sender::new(
        c.clone(),
        cc::make("newreno", &CcParams::new()).unwrap(),
        Some(2 * NS2_MSS),
    );
    let mut r = Receiver::new(c.clone());
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    let mut back = vec![];
    r.on_segment(ms(50), &out[0], &mut back);
    out.clear();
    s.on_segment(ms(100), &back[0], &mut out);
    assert_eq!(ns2_seqs(&out), vec![0, 1]);
    assert!(out.iter().all(|h| !h.has(FIN)));
    back.clear();
    for d in &out {
        r.on_segment(ms(150), d, &mut back);
    }
    let mut more = vec![];
    for a in &back {
        s.on_segment(ms(200), a, &mut more);
    }
    assert!(more.is_empty());
    assert_eq!(s.state(), SenderState::Done);
    assert_eq!(s.done_at, Some(ms(200)));
    assert_eq!(r.stats.delivered, 2 * NS2_MSS);
}

// ns-2 2.28 rules of the `ns2` profile that depend on the window: numdupacksFrac_,
// limited slow start with max_ssthresh_, slowdown's halving. Values traced by hand
// from tcp/tcp.cc and tcp/tcp-sack1.cc of ns-2.29 (the same TCP as 2.28).

/// An ns-2 SACK ACK of everything below segment `i` with SACK blocks given
/// as segment ranges [a, b).
fn ns2_sack_ack(i: u64, blocks: &[(u64, u64)]) -> TcpHeader {
    let mut h = ns2_ack(i);
    for (k, &(a, b)) in blocks.iter().enumerate() {
        h.set_sack(k, (ns2_seg(a), ns2_seg(b)));
    }
    h.nsack = blocks.len() as u8;
    h
}

/// An ns-2 connection with `cc` and window_ 100000 (never the limit), opened
/// at 100 ms; `f` adjusts the configuration first.
fn ns2_open_cc(ccname: &str, f: impl FnOnce(&mut TcpConfig)) -> Sender {
    let mut c = ns2_cfg();
    c.window = 100_000;
    f(&mut c);
    let mut s = sender(&c, ccname);
    let mut r = Receiver::new(c.clone());
    let mut out = vec![];
    s.start(SimTime::ZERO, &mut out);
    let mut back = vec![];
    r.on_segment(ms(50), &out[0], &mut back);
    s.on_segment(ms(100), &back[0], &mut vec![]);
    s
}

/// The sender's clock plus 1 ms: ACKs arrive 1 ms apart, after any timer.
fn ns2_next(s: &Sender) -> SimTime {
    s.tp.now + ms(1)
}

/// One new ACK per segment, of segments `from` ..= `to` (ACK i + 1 for segment i).
fn ns2_ack_each(s: &mut Sender, from: u64, to: u64) {
    for i in from..=to {
        s.on_segment(ns2_next(s), &ns2_ack(i + 1), &mut vec![]);
    }
}

/// `n` duplicate ACKs of segment `lost`, each SACKing one more segment above it.
fn ns2_dupacks(s: &mut Sender, lost: u64, n: u64, out: &mut Vec<TcpHeader>) {
    for k in 1..=n {
        let h = ns2_sack_ack(lost, &[(lost + 1, lost + 1 + k)]);
        s.on_segment(ns2_next(s), &h, out);
    }
}

#[test]
fn ns2_sack1_waits_for_cwnd_over_100_duplicate_acks() {
    // ns-2 2.28: numdupacksFrac_ 100 (ns-default.tcl, "Added 2002/10/18", -1
    // only from 2006/09/27); Sack1TcpAgent::recv fast-retransmits when
    // ++dupacks_ == numdupacks(cwnd_) = max(numdupacks_ 3, int(cwnd_)/100).
    // Slow start from 2 to cwnd 1200 takes 1198 ACKs (segments 0..=1197);
    // then 1200 segments (1198..=2397) are out. Segment 1198 is lost: at
    // cwnd 1200 the threshold is max(3, 1200/100) = 12 duplicate ACKs.
    let mut s = ns2_open_cc("newreno", |_| {});
    ns2_ack_each(&mut s, 0, 1197);
    assert_eq!(s.tp.cwnd, 1200);
    assert_eq!(s.outstanding_bytes(), 1200 * NS2_MSS);
    let mut out = vec![];
    ns2_dupacks(&mut s, 1198, 11, &mut out);
    assert_eq!(s.stats.fast_retransmits, 0);
    assert_eq!(s.ca_state(), CaState::Disorder);
    // Sack1's send_one (singledup_): each of the 11 duplicates below
    // numdupacks sends one new packet, t_seqno_ <= highest_ack_ + cwnd_ +
    // dupacks_ (1200 + k - 1 out before the k-th): 2398..=2408.
    assert_eq!(ns2_seqs(&out), (2398..=2408).collect::<Vec<_>>());
    assert_eq!(s.stats.segs_retrans, 0);
    out.clear();
    let t = ns2_next(&s);
    s.on_segment(t, &ns2_sack_ack(1198, &[(1199, 1199 + 12)]), &mut out);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(ns2_seqs(&out)[0], 1198);
    // Agent/TCP/Newreno (no SACK) counts to numdupacks_ 3 whatever cwnd.
    let mut s = ns2_open_cc("newreno", |c| {
        c.sack = false;
        c.recovery = Recovery::NewReno;
    });
    ns2_ack_each(&mut s, 0, 1197);
    ns2_dupacks(&mut s, 1198, 3, &mut vec![]);
    assert_eq!(s.stats.fast_retransmits, 1);
    // Off (dupthresh_frac 0, as every other profile): 3 duplicate ACKs.
    let mut s = ns2_open_cc("newreno", |c| c.dupthresh_frac = 0);
    ns2_ack_each(&mut s, 0, 1197);
    ns2_dupacks(&mut s, 1198, 3, &mut vec![]);
    assert_eq!(s.stats.fast_retransmits, 1);
}

#[test]
fn ns2_limited_slow_start_runs_in_congestion_avoidance_until_a_fast_retransmit_and_after_timeouts()
{
    // max_ssthresh_ 100: reset() sets ssthresh_ = min(window_ 100000, 100) = 100.
    // opencwnd(): below ssthresh_ +1 per ACK: cwnd 2 -> 100 in 98 ACKs
    // (segments 0..=97). Above it, last_cwnd_action_ 0: each ACK adds
    // max(1/cwnd_, 1/int(cwnd_/50)): 1/2 up to cwnd 150 (100 ACKs), then 1/3
    // up to 200 (150 ACKs): 200 after 250 more ACKs (segments 98..=347), 199
    // after 249.
    let mut s = ns2_open_cc("newreno", |c| c.max_ssthresh = 100);
    assert_eq!(s.tp.ssthresh, 100);
    ns2_ack_each(&mut s, 0, 97);
    assert_eq!(s.tp.cwnd, 100);
    ns2_ack_each(&mut s, 98, 197);
    assert_eq!(s.tp.cwnd, 150);
    ns2_ack_each(&mut s, 198, 346);
    assert_eq!(s.tp.cwnd, 199);
    ns2_ack_each(&mut s, 347, 347);
    assert_eq!(s.tp.cwnd, 200);
    // 200 segments (348..=547) out. A timeout: last_cwnd_action_ =
    // CWND_ACTION_TIMEOUT, ssthresh_ = int(window()/2) = 100, cwnd_ = 1. Slow
    // start to 100 in 99 ACKs (segments 348..=446), then limited slow start
    // again: 100 ACKs at 1/2 give 150 (segments 447..=546).
    let mut out = vec![];
    let rto = s.rto_deadline().unwrap();
    s.on_timer(rto, &mut out);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (1, 100));
    ns2_ack_each(&mut s, 348, 446);
    assert_eq!(s.tp.cwnd, 100);
    ns2_ack_each(&mut s, 447, 546);
    assert_eq!(s.tp.cwnd, 150);
    // RFC 3742 (ns2_lss off) limits slow start only: after the same timeout,
    // slow start stops at ssthresh 100 and Reno adds 1 in those 100 ACKs.
    // slow start stops at ssthresh 100 and opencwnd adds 1/cwnd_ per ACK:
    // 100 ACKs from 100.0 give 100 + 100/100.5 = 100.995, the 101st 101.005
    // (segments 348..=446 in slow start, 447..=547 above it).
    let mut s = ns2_open_cc("newreno", |c| {
        c.max_ssthresh = 100;
        c.ns2_lss = false;
    });
    assert_eq!(s.tp.ssthresh, 100_000);
    ns2_ack_each(&mut s, 0, 347);
    assert_eq!(s.tp.cwnd, 200); // RFC 3742 in slow start: the same 250 ACKs
    let rto = s.rto_deadline().unwrap();
    s.on_timer(rto, &mut vec![]);
    ns2_ack_each(&mut s, 348, 546);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (100, 100));
    ns2_ack_each(&mut s, 547, 547);
    assert_eq!(s.tp.cwnd, 101);
}

#[test]
fn ns2_limited_slow_start_runs_while_window_limits_sending() {
    // tcp.cc opencwnd() and limited_slow_start() have no test of whether
    // cwnd limits sending, and recv_newack_helper calls opencwnd() on every
    // new ACK (control_increase_ 0). window_ 3 holds the sender to 3
    // packets; at cwnd_ 120 (ssthresh_ = window_ = 3, last_cwnd_action_ 0)
    // each ACK adds 1/int(120/50) = 1/2: 120.5, then 121. So for NewReno
    // (the double cwnd_, in ns2_opencwnd) and Reno (a count, ns2_lss_ack).
    for ccname in ["newreno", "reno"] {
        let mut s = ns2_open_cc(ccname, |c| {
            c.max_ssthresh = 100;
            c.window = 3;
        });
        assert_eq!(s.tp.ssthresh, 3);
        s.tp.cwnd = 120;
        ns2_ack_each(&mut s, 0, 0);
        assert_eq!(s.tp.cwnd, 120, "{ccname}");
        assert!(s.outstanding_bytes() <= 3 * NS2_MSS);
        ns2_ack_each(&mut s, 1, 1);
        assert_eq!(s.tp.cwnd, 121, "{ccname}");
    }
}

#[test]
fn ns2_limited_slow_start_ends_at_the_first_fast_retransmit() {
    // As above to cwnd 200 (segments 0..=347 ACKed, 348..=547 out). Segment
    // 348 lost, 3 duplicate ACKs (numdupacks(200) = max(3, 2) = 3):
    // dupack_action sets last_cwnd_action_ = CWND_ACTION_DUPACK; slowdown, the
    // first decrease, halves: ssthresh_ = cwnd_ = 100. The ACK of everything
    // ends the recovery; from then opencwnd adds 1/cwnd_ per ACK to the double
    // cwnd_ (no limited slow start): 100 ACKs from 100.0 give 100 + 100/100.5
    // = 100.995, window 100 (a count of 100 segments would reach 101), the
    // 101st 101.005, cwnd 101 (the limited rule would give 150).
    let mut s = ns2_open_cc("newreno", |c| c.max_ssthresh = 100);
    ns2_ack_each(&mut s, 0, 347);
    assert_eq!(s.tp.cwnd, 200);
    ns2_dupacks(&mut s, 348, 3, &mut vec![]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (100, 100));
    // (RFC 6675 sent new segments on the SACKs; Sack1 would not have: the
    // full ACK is of everything sent.)
    let high = (s.snd_max - 1) / NS2_MSS;
    s.on_segment(ns2_next(&s), &ns2_ack(high), &mut vec![]);
    assert_eq!((s.ca_state(), s.tp.cwnd), (CaState::Open, 100));
    ns2_ack_each(&mut s, high, high + 99);
    assert_eq!(s.tp.cwnd, 100);
    ns2_ack_each(&mut s, high + 100, high + 100);
    assert_eq!(s.tp.cwnd, 101);
}

#[test]
fn ns2_sack1_limited_slow_start_adds_to_the_double_cwnd() {
    // Agent/TCP/Sack1 with windowOption_ 1 and max_ssthresh_ 100 (mascolo2006's
    // "SACK"): above ssthresh_ opencwnd adds increase_num_/cwnd_, raised by
    // limited_slow_start to 1/int(cwnd_/50) while last_cwnd_action_ is 0,
    // to the double cwnd_ (tcp.cc). At cwnd_ 275.0, round 5: 0.2 per ACK,
    // which is no binary fraction; in doubles 275 + 0.2 gives 275.2, 275.4,
    // 275.59999999999997, 275.79999999999995, 275.99999999999994: the window
    // is still 275 after five ACKs and 276 (276.19999999999993) after the
    // sixth, where one segment per five ACKs would reach 276 at the fifth.
    let mut s = ns2_open_cc("newreno", |c| c.max_ssthresh = 100);
    assert_eq!((s.recovery(), s.tp.ssthresh), (Recovery::Sack1Ns2, 100));
    s.tp.cwnd = 275;
    ns2_ack_each(&mut s, 0, 4);
    assert_eq!(s.tp.cwnd, 275);
    ns2_ack_each(&mut s, 5, 5);
    assert_eq!(s.tp.cwnd, 276);
}

#[test]
fn ns2_newreno_window_increase_is_not_pinned_to_the_previous_extra_segment() {
    // Issue 23 (mascolo2006 A, SACK, RTT 40 ms): with the window grown as a
    // count of cwnd ACKs, the ACK that opens the window by one is always the
    // ACK of the previous increase's extra segment, so a flow's two
    // back-to-back segments keep their place in its window for ever. Two
    // flows whose windows cross a full DropTail queue as long runs then lose
    // the same way at every overflow: one flow's pair sat at the end of its
    // run, and its extra segment took the slot of the other flow's first
    // segment (tcplab, seed rep 1, 200.433 s: A's pair last in A's run, B's
    // first segment 36 ns later dropped; B lost 3 per overflow, A none, down
    // to timeouts). ns-2's double cwnd_ (tcp.cc opencwnd, windowOption_ 1:
    // cwnd_ += 1/cwnd_ per new ACK; Sack1's send_much fills int(cwnd_)) needs
    // W or W + 1 ACKs from W to W + 1, by the fraction carried over, so the
    // pair moves on by one segment every other increase or so (ns-2 2.35 on
    // that scenario: 0.5 segment per round trip), and every overflow drops
    // packets of both flows.
    //
    // By hand, from cwnd_ 2.0 (ssthresh_ 2, max_ssthresh_ 0), the ACK of
    // segment i (snd_una i + 1) raising the window to int(cwnd_) sends two:
    //   ACK of  2: 3.2448 -> 4, 5      ACK of 15: 6.0973 -> 20, 21
    //   ACK of  5: 4.0953 -> 8, 9      ACK of 21: 7.0229 -> 27, 28
    //   ACK of 10: 5.1976 -> 14, 15    ACK of 29: 8.0909 -> 36, 37
    //   ACK of 37: 9.0318 -> 45, 46
    // 9 and 28 (extras) are ACKed without an increase (4.9975, 7.9654); a
    // count of cwnd ACKs would raise at the ACKs of 1, 4, 8, 13, 19, 26, 34,
    // each the previous extra.
    let mut s = ns2_open_cc("newreno", |c| c.max_ssthresh = 0);
    s.tp.ssthresh = 2;
    assert_eq!(s.tp.cwnd, 2);
    let mut pairs = vec![];
    for i in 0..=37u64 {
        let mut out = vec![];
        s.on_segment(ns2_next(&s), &ns2_ack(i + 1), &mut out);
        let sent = ns2_seqs(&out);
        assert!(!sent.is_empty() && sent.len() <= 2, "ACK of {i}: {sent:?}");
        if sent.len() == 2 {
            pairs.push((i, sent));
        }
    }
    assert_eq!(
        pairs,
        vec![
            (2, vec![4, 5]),
            (5, vec![8, 9]),
            (10, vec![14, 15]),
            (15, vec![20, 21]),
            (21, vec![27, 28]),
            (29, vec![36, 37]),
            (37, vec![45, 46]),
        ]
    );
    assert_eq!(s.tp.cwnd, 9);
}

#[test]
fn ns2_hstcp_grows_the_double_cwnd_by_increase_param_and_cuts_by_decrease_param() {
    // Agent/TCP/Sack1, windowOption_ 8, max_ssthresh_ 0 (no limited slow
    // start): slow start from 2 to 200 in 198 ACKs; 3 duplicate ACKs: the
    // first decrease halves (slowdown, first_decrease_): ssthresh_ = cwnd_ =
    // 100. After the full ACK, opencwnd adds increase_param() = a(w)/w per
    // ACK to the double cwnd_: a(100) = 1.8818 (RFC 3649's formulas), so
    // 0.018818 per ACK, growing slowly with w: the 54th ACK takes cwnd_ past
    // 101 (53 x 0.01882 = 0.9975 < 1). The Linux table (a = 2 for w in
    // (38, 118]) would add one in 50 ACKs.
    let mut s = ns2_open_cc("highspeed", |c| c.max_ssthresh = 0);
    ns2_ack_each(&mut s, 0, 197);
    assert_eq!(s.tp.cwnd, 200);
    ns2_dupacks(&mut s, 198, 3, &mut vec![]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (100, 100));
    let high = (s.snd_max - 1) / NS2_MSS;
    s.on_segment(ns2_next(&s), &ns2_ack(high), &mut vec![]);
    assert_eq!((s.ca_state(), s.tp.cwnd), (CaState::Open, 100));
    ns2_ack_each(&mut s, high, high + 52);
    assert_eq!(s.tp.cwnd, 100);
    ns2_ack_each(&mut s, high + 53, high + 53);
    assert_eq!(s.tp.cwnd, 101);
    // 6 more ACKs: cwnd_ = 101.127. A loss, not the first decrease nor in
    // slow start: ssthresh_ = cwnd_ = int(windowd() - b windowd()) with b =
    // b(101.127) = 0.44954: int(55.67) = 55 (the Linux table's md at the
    // row of 101, 112/256, would give 57).
    ns2_ack_each(&mut s, high + 54, high + 59);
    let lost = high + 60;
    ns2_dupacks(&mut s, lost, 3, &mut vec![]);
    assert_eq!(s.stats.fast_retransmits, 2);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (55, 55));
}

#[test]
fn ns2_slowdown_halves_on_the_first_decrease_in_slow_start_and_on_timeouts() {
    // slowdown(CLOSE_SSTHRESH_HALF) in ns-2 2.28: ssthresh_ = int(window()/2)
    // if first_decrease_, slow start (cwnd_ < ssthresh_) or last_cwnd_action_
    // == CWND_ACTION_TIMEOUT (timeout() sets it before calling slowdown); the
    // variant's decrease otherwise. STCP's own: cwnd - cwnd/8 (Linux
    // tcp_scalable, b = 1/8).
    //
    // Slow start from 2 to 200 (198 ACKs; ssthresh_ = window_ 100000), then a
    // timeout: ssthresh = 200/2 = 100, where STCP's decrease gives 175.
    let mut s = ns2_open_cc("scalable", |_| {});
    ns2_ack_each(&mut s, 0, 197);
    assert_eq!(s.tp.cwnd, 200);
    let rto = s.rto_deadline().unwrap();
    s.on_timer(rto, &mut vec![]);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (1, 100));
    // Slow start to 100 (99 ACKs, segments 198..=296), then STCP's increase,
    // 1 per min(cwnd, 100) ACKs: 101 after 100 ACKs (297..=396), still 101
    // after two more. A fast retransmit now is not the first decrease, not
    // in slow start, not a timeout: STCP's 101 - 101/8 = 89. (Segment 399
    // is the lost one: Sack1's dupack_action needs highest_ack_ > recover_,
    // data above segment 397, the last sent before the timeout.)
    ns2_ack_each(&mut s, 198, 398);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (101, 100));
    ns2_dupacks(&mut s, 399, 3, &mut vec![]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.tp.ssthresh, 89);
    // Another timeout halves again: window() = cwnd 89, ssthresh 44.
    let rto = s.rto_deadline().unwrap();
    s.on_timer(rto, &mut vec![]);
    assert_eq!(s.tp.ssthresh, 44);

    // The first decrease is a fast retransmit in slow start at cwnd 200:
    // halved to 100 (first_decrease_, and cwnd_ < ssthresh_ 100000).
    let mut s = ns2_open_cc("scalable", |_| {});
    ns2_ack_each(&mut s, 0, 197);
    ns2_dupacks(&mut s, 198, 3, &mut vec![]);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (100, 100));

    // Without the rule (ns2_decrease false) the controller decides: 175 after
    // the timeout at 200.
    let mut s = ns2_open_cc("scalable", |c| c.ns2_decrease = false);
    ns2_ack_each(&mut s, 0, 197);
    let rto = s.rto_deadline().unwrap();
    s.on_timer(rto, &mut vec![]);
    assert_eq!(s.tp.ssthresh, 175);
}

#[test]
fn ns2_westwood_sets_its_window_itself_at_the_third_dupack_and_two_after_a_timeout() {
    // WestwoodNR (tcp-westwood-nr.cc): dupack_action sets ssthresh_ =
    // max(BWE·RTTmin, 2) and cwnd_ = min(cwnd_, ssthresh_) without calling
    // slowdown (no halving on the first decrease), then dupwnd_ = numdupacks_
    // 3; timeout() calls slowdown(CLOSE_FASTER): ssthresh_ = max(BWE·RTTmin, 2),
    // cwnd_ = 2, and send_much sends two segments. All ACKs come within the
    // first estimation window (longer than the 100 ms RTT of packet 0), so
    // BWE is still 0 and BWE·RTTmin gives the floor, 2.
    let mut s = ns2_open_cc("westwood", |c| {
        c.recovery = Recovery::NewReno;
        c.sack = false;
    });
    // Slow start 2 -> 12 (segments 0..=9 acknowledged, 1 ms apart).
    ns2_ack_each(&mut s, 0, 9);
    assert_eq!(s.tp.cwnd, 12);
    // Segment 10 lost: three duplicate ACKs. Halving (ns-2 slowdown, first
    // decrease) would give 6; WestwoodNR: ssthresh 2, cwnd min(12, 2) + 3.
    let mut out = vec![];
    for _ in 0..3 {
        s.on_segment(ns2_next(&s), &ns2_ack(10), &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!((s.tp.ssthresh, s.tp.cwnd), (2, 5));
    // The timer fires: cwnd 2 (not 1), ssthresh 2, segments 10 and 11 resent.
    let rto = s.rto_deadline().unwrap();
    out.clear();
    s.on_timer(rto, &mut out);
    assert_eq!((s.tp.ssthresh, s.tp.cwnd), (2, 2));
    assert_eq!(ns2_seqs(&out), vec![10, 11]);
}

#[test]
fn the_first_reduction_and_a_second_slow_start_are_recorded() {
    // ns-2 Tahoe (tcp.cc, bugfix_): slow start from windowInit_ 2 to 12 (ten
    // new ACKs, segments 0..=9), segment 10 lost: the third duplicate ACK
    // fast-retransmits with cwnd 12 in slow start (ssthresh_ = window_);
    // slowdown halves window() = 12 on this first decrease: ssthresh 6, cwnd 1.
    let tahoe = || {
        let mut s = ns2_open_cc("tahoe", |c| {
            c.recovery = Recovery::TahoeNs2;
            c.sack = false;
        });
        ns2_ack_each(&mut s, 0, 9);
        assert_eq!(s.tp.cwnd, 12);
        for _ in 0..3 {
            s.on_segment(ns2_next(&s), &ns2_ack(10), &mut vec![]);
        }
        s
    };
    let mut s = tahoe();
    let r = s.stats.first_reduction.unwrap();
    assert_eq!(
        (r.timeout, r.cwnd, r.in_slow_start, r.ssthresh),
        (false, 12, true, 6)
    );
    assert_eq!(s.tp.cwnd, 1);
    // The second slow start: +1 per new ACK from 1; the fifth ACK brings cwnd
    // to ssthresh 6, the fourth only to 5.
    ns2_ack_each(&mut s, 10, 13);
    assert_eq!(s.tp.cwnd, 5);
    assert!(!s.stats.double_slow_start);
    ns2_ack_each(&mut s, 14, 14);
    assert_eq!(s.tp.cwnd, 6);
    assert!(s.stats.double_slow_start);

    // The retransmission lost instead: the timer fires before any new ACK.
    // The timeout is not the first reduction, and it ends the second slow
    // start (Barakat & Altman: the timeout erases it): ssthresh from window()
    // = cwnd 1, halved and floored at 2, and no double slow start however far
    // cwnd climbs afterwards.
    let mut s = tahoe();
    let rto = s.rto_deadline().unwrap();
    s.on_timer(rto, &mut vec![]);
    assert!(!s.stats.first_reduction.unwrap().timeout);
    assert_eq!(s.tp.ssthresh, 2);
    ns2_ack_each(&mut s, 10, 30);
    assert!(!s.stats.double_slow_start);

    // Reno-style recovery (NewReno, no SACK) never has a second slow start:
    // the window comes back at ssthresh.
    let mut s = ns2_open_cc("newreno", |c| {
        c.recovery = Recovery::NewReno;
        c.sack = false;
    });
    ns2_ack_each(&mut s, 0, 9);
    for _ in 0..3 {
        s.on_segment(ns2_next(&s), &ns2_ack(10), &mut vec![]);
    }
    ns2_ack_each(&mut s, 10, 40);
    assert!(s.stats.first_reduction.unwrap().in_slow_start);
    assert!(!s.stats.double_slow_start);
}

#[test]
fn ns2_tahoe_restarts_the_timer_at_the_fast_retransmit() {
    // ns-2 tcp.cc dupack_action -> reset_rtx_timer(0,0) -> set_rtx_timer():
    // the timer restarts at the third duplicate ACK, with the same RTO (no
    // backoff), where before it ran from the last new ACK.
    let mut s = ns2_open_cc("tahoe", |c| {
        c.recovery = Recovery::TahoeNs2;
        c.sack = false;
    });
    ns2_ack_each(&mut s, 0, 9);
    let last_new = s.tp.now;
    let rto = s.rto_deadline().unwrap() - last_new;
    for k in 1..=3 {
        s.on_segment(last_new + ms(100 * k), &ns2_ack(10), &mut vec![]);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.rto_deadline(), Some(last_new + ms(300) + rto));
}

#[test]
fn ns2_opencwnd_grows_once_per_ack_however_many_segments_it_acknowledges() {
    // tcp.cc recv_newack_helper calls opencwnd() once per new ACK: above
    // ssthresh_ cwnd_ += 1/cwnd_, for an ACK of one segment or of six.
    // Agent/TCP/Newreno's cwnd_ is the double: from 12.0 the ACK of six
    // segments gives 12.0833; eleven single ACKs more, 12.9645 (window 12:
    // six segments counted as six would have reached 13 at the 7th ACK);
    // the twelfth, 13.0416.
    let mut s = ns2_open_cc("newreno", |c| {
        c.recovery = Recovery::NewReno;
        c.sack = false;
    });
    ns2_ack_each(&mut s, 0, 9);
    assert_eq!(s.tp.cwnd, 12);
    s.tp.ssthresh = 5;
    s.on_segment(ns2_next(&s), &ns2_ack(16), &mut vec![]);
    assert_eq!(s.tp.cwnd, 12);
    ns2_ack_each(&mut s, 16, 26);
    assert_eq!(s.tp.cwnd, 12);
    ns2_ack_each(&mut s, 27, 27);
    assert_eq!(s.tp.cwnd, 13);
}

#[test]
fn ns2_agent_tcp_grows_a_fractional_cwnd_by_one_over_cwnd() {
    // ns-2 tcp.cc opencwnd(), windowOption_ 1: cwnd_ (a double) += 1/cwnd_
    // per new ACK above ssthresh_, the window being int(cwnd_). From 2, by
    // hand: 2.5, 2.9, 3.2448, 3.5530, 3.8345, 4.0953: windows 2 2 3 3 3 4
    // (counting segments, W ACKs per increase, would give 2 3 3 3 4 4).
    let mut s = ns2_open_cc("tahoe", |c| {
        c.recovery = Recovery::TahoeNs2;
        c.sack = false;
    });
    assert_eq!(s.tp.cwnd, 2);
    s.tp.ssthresh = 2;
    let mut w = vec![];
    for i in 0..6 {
        ns2_ack_each(&mut s, i, i);
        w.push(s.tp.cwnd);
    }
    assert_eq!(w, [2, 2, 3, 3, 3, 4]);
    // Below ssthresh_ the fraction stays: 4.0953 + 1 = 5.0953, then in
    // congestion avoidance 5.0953 + 1/5.0953 = 5.2915, then 5.4805, 5.6630,
    // 5.8395 (window 5) and 6.0108 after the 5th ACK (window 6).
    s.tp.ssthresh = 5;
    ns2_ack_each(&mut s, 6, 6);
    assert_eq!(s.tp.cwnd, 5);
    s.tp.ssthresh = 4;
    ns2_ack_each(&mut s, 7, 10);
    assert_eq!(s.tp.cwnd, 5);
    ns2_ack_each(&mut s, 11, 11);
    assert_eq!(s.tp.cwnd, 6);
}

#[test]
fn ns2_tahoe_makes_no_fast_retransmit_on_duplicates_of_packet_0() {
    // ns-2 reset(): recover_ = 0; dupack_action fast-retransmits only if
    // highest_ack_ > recover_. With syn_ false packet 0 is the first data
    // packet: if packet 1 is lost, duplicate ACKs of packet 0 wait for the
    // timer; once packet 1 is acknowledged, three duplicates of it do.
    let open = || {
        let mut c = ns2_cfg();
        c.handshake = Handshake::None;
        c.initial_window = 1;
        c.window = 100;
        c.recovery = Recovery::TahoeNs2;
        c.sack = false;
        let mut s = sender(&c, "tahoe");
        s.start(SimTime::ZERO, &mut vec![]);
        s
    };
    let mut s = open();
    // Packet 0 acknowledged (cwnd 2: packets 1, 2 out), then its duplicates.
    s.on_segment(ms(100), &ns2_ack(1), &mut vec![]);
    s.on_segment(ms(200), &ns2_ack(2), &mut vec![]);
    // cwnd 3 now; packet 2 lost: three duplicate ACKs of packet 1.
    for k in 1..=3 {
        s.on_segment(ms(200 + k), &ns2_ack(2), &mut vec![]);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    let mut s = open();
    s.on_segment(ms(100), &ns2_ack(1), &mut vec![]);
    for k in 1..=3 {
        s.on_segment(ms(100 + k), &ns2_ack(1), &mut vec![]);
    }
    assert_eq!(s.stats.fast_retransmits, 0);
}

#[test]
fn rfc_profile_keeps_the_controllers_decrease_after_a_timeout() {
    // The rfc profile (no ns-2 rules): STCP's ssthresh after a timeout at
    // cwnd 200 is 200 - 200/8 = 175 (0.875 W), not W/2. Slow start from IW 2,
    // one ACK per segment (+1 each): 198 ACKs to 200.
    let c = cfg();
    assert!(!c.ns2_decrease && !c.ns2_lss && c.dupthresh_frac == 0);
    let (mut s, _, _) = established(&c, "scalable");
    for i in 1..=198 {
        s.on_segment(ms(100 + i), &ack(seg_start(i), &[], true, 0), &mut vec![]);
    }
    assert_eq!(s.tp.cwnd, 200);
    let rto = s.rto_deadline().unwrap();
    s.on_timer(rto, &mut vec![]);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (1, 175));
}

/// A data segment `i` (1448 bytes) as the receiver sees it.
fn data(i: u64) -> TcpHeader {
    TcpHeader {
        flags: ACK,
        seq: seg_start(i),
        ack: 1,
        payload: MSS as u32,
        has_ts: true,
        ..Default::default()
    }
}

#[test]
fn linux22_advertises_half_the_free_buffer_in_whole_segments() {
    // sk->rcvbuf = 131070 (SO_RCVBUF 65535, doubled): free/2 = 65535, in whole
    // segments of 1448: 45 x 1448 = 65160; rcvbuf/2 fits 16 bits, no scaling.
    let mut c = profile("linux22").unwrap().config;
    c.rcvbuf = 131_070;
    let (_, mut r, _) = established(&c, "newreno");
    let mut back = vec![];
    r.on_segment(ms(150), &data(0), &mut back);
    r.on_segment(ms(151), &data(1), &mut back);
    let a = back.last().unwrap();
    assert_eq!((a.ack, a.wnd), (seg_start(2), 65160));
    // Segments 3..=9 out of order: each holds a 1536-byte buffer. After
    // seven of them rmem = 10752: free/2 = (131070 - 10752)/2 = 60159 ->
    // 41 segments = 59368, but the right edge (2 + 45 segments) never moves
    // left: the window offered is still what reaches it.
    back.clear();
    for i in 3..10 {
        r.on_segment(ms(152), &data(i), &mut back);
    }
    let a = back.last().unwrap();
    assert_eq!(a.ack, seg_start(2));
    assert_eq!(a.wnd, 65160);
    // Filling the hole: rmem 0 again, window 65160 from the new rcv_nxt.
    back.clear();
    r.on_segment(ms(153), &data(2), &mut back);
    let a = back.last().unwrap();
    assert_eq!((a.ack, a.wnd), (seg_start(10), 65160));
}

#[test]
fn linux22_drops_the_whole_out_of_order_queue_past_its_buffer() {
    // A host that can give the connection 8 x 1536 bytes of buffers: the
    // out-of-order queue may hold 8 segments (each charged the 1536-byte
    // buffer its packet came in); the segment arriving when 8 are held
    // (8 + 1 > 8) prunes all 8, as prune_queue does past sk->rcvbuf. (A
    // sender keeping to the window, half the free buffer, never pushes the
    // charge past rcvbuf itself: the limit that bites is the host's memory.)
    let mut c = profile("linux22").unwrap().config;
    c.rcvbuf = 1 << 20;
    c.mem_limit = 8 * 1536;
    let (_, mut r, _) = established(&c, "newreno");
    let mut back = vec![];
    for i in 1..9 {
        r.on_segment(ms(150), &data(i), &mut back);
    }
    assert_eq!(r.ooo(), &[(seg_start(1), seg_start(9))]);
    assert_eq!(r.stats.ooo_prunes, 0);
    back.clear();
    r.on_segment(ms(151), &data(9), &mut back);
    assert_eq!(r.stats.ooo_prunes, 1);
    assert_eq!(r.stats.pruned_bytes, 8 * MSS);
    // Segment 9 itself is kept; the SACK blocks say only that.
    assert_eq!(r.ooo(), &[(seg_start(9), seg_start(10))]);
    assert_eq!(
        back.last().unwrap().sack_blocks(),
        &[(seg_start(9), seg_start(10))]
    );
    // A memory limit prunes the same way on any profile's accounting (here
    // payload bytes): 3 segments fit in 4 x 1448, the 5th arrival prunes 4.
    let mut p = cfg();
    p.mem_limit = 4 * MSS;
    let (_, mut r, _) = established(&p, "newreno");
    for i in 1..6 {
        r.on_segment(ms(150), &data(i), &mut back);
    }
    assert_eq!((r.stats.ooo_prunes, r.stats.pruned_bytes), (1, 4 * MSS));
}

#[test]
fn a_timeout_retransmitting_data_the_receiver_had_counts_as_spurious() {
    let c = cfg();
    let (mut s, mut r, first) = established(&c, "newreno");
    let mut back = vec![];
    for h in &first {
        r.on_segment(ms(150), h, &mut back);
    }
    // The ACKs are lost; the timeout resends segment 0, which the receiver has.
    let mut out = vec![];
    s.on_timer(s.rto_deadline().unwrap(), &mut out);
    assert!(out[0].rto_retx && out[0].seq == seg_start(0));
    assert!(out.iter().skip(1).all(|h| !h.rto_retx));
    r.on_segment(ms(1500), &out[0], &mut back);
    assert_eq!(r.stats.spurious_rto, 1);
    // A timeout whose retransmission repairs a real loss is not spurious.
    let (mut s, mut r, first) = established(&c, "newreno");
    r.on_segment(ms(150), &first[1], &mut back); // segment 0 lost
    out.clear();
    s.on_timer(s.rto_deadline().unwrap(), &mut out);
    r.on_segment(ms(1500), &out[0], &mut back);
    assert_eq!(r.stats.spurious_rto, 0);
}

#[test]
fn linux22_send_buffer_charges_each_segment_its_kernel_buffer() {
    // sk->sndbuf 16160 = 10 buffers of 1616 (1448 + 160, rounded to 16):
    // sock_wmalloc succeeds while the charge is below sndbuf, so 10 segments
    // may be unacknowledged, not 16160 / 1448 = 11.
    let mut c = profile("linux22").unwrap().config;
    c.sndbuf = 16_160;
    c.rcvbuf = 1 << 20;
    c.initial_window = 20;
    let (s, _, out) = established(&c, "newreno");
    assert_eq!(s.mss(), 1448);
    assert_eq!(data_seqs(&out).len(), 10);
}

/// A controller that records the RTT samples the sender hands it (Reno's rules otherwise).
struct RttRecorder(std::rc::Rc<std::cell::RefCell<Vec<Option<SimTime>>>>);

impl crate::cc::CongestionControl for RttRecorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn ssthresh(&mut self, tp: &crate::cc::CcState) -> u32 {
        crate::cc::reno_ssthresh(tp)
    }
    fn cong_avoid(&mut self, tp: &mut crate::cc::CcState, acked: u32) {
        crate::cc::reno_cong_avoid(tp, acked)
    }
    fn pkts_acked(&mut self, _tp: &mut crate::cc::CcState, s: &crate::cc::AckSample) {
        self.0.borrow_mut().push(s.rtt);
    }
}

#[test]
fn a_timed_rto_sampler_still_gives_its_controller_every_acks_rtt() {
    // BSD timing without timestamps: the RTO takes one sample per round trip,
    // but the controller (FreeBSD's Vegas reads ERTT) sees every ACK's RTT.
    let mut c = no_sack_cfg();
    c.timestamps = false;
    c.rtt_sampling = crate::rtt::RttSampling::Timed;
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let (mut s, _, mut out) = established_with(&c, Box::new(RttRecorder(seen.clone())));
    // IW 2 (1460-byte segments: no timestamps) sent at 100 ms; ACKed one by
    // one at 200 and 201 ms: two ACKs of never-retransmitted data, RTTs 100
    // and 101 ms.
    assert_eq!(s.mss(), 1460);
    assert_eq!(out.iter().filter(|h| h.payload > 0).count(), 2);
    seen.borrow_mut().clear();
    s.on_segment(ms(200), &ack(1 + 1460, &[], false, 0), &mut out);
    s.on_segment(ms(201), &ack(1 + 2 * 1460, &[], false, 0), &mut out);
    assert_eq!(*seen.borrow(), vec![Some(ms(100)), Some(ms(101))]);
    // The RTO's estimator took the handshake's sample and the timed segment's
    // (segment 0, 100 ms) only: SRTT 100 ms exactly, not a mix with 101 ms.
    assert_eq!(s.rtt().srtt(), Some(ms(100)));
}

/// The `linux` profile with RACK, TLP and D-SACK, a bulk sender whose first
/// 10 segments leave at once at 100 ms (IW 10) after a 100 ms handshake.
fn linux_rack_tail() -> Sender {
    linux_rack_tail_with(|_| {})
}

/// `linux_rack_tail` with the profile changed by `f`.
fn linux_rack_tail_with(f: impl FnOnce(&mut TcpConfig)) -> Sender {
    let ctl = cc::make("cubic", &CcParams::new()).unwrap();
    let (s, _) = linux_ten_out(ctl, |c| {
        c.rack = true;
        c.tlp = true;
        c.dsack = true;
        f(c);
    });
    s
}

/// A `linux` sender (the profile changed by `f`, with controller `ctl`)
/// established with its initial window of 10 segments out; returns it and
/// what it sent.
fn linux_ten_out(
    ctl: Box<dyn cc::CongestionControl>,
    f: impl FnOnce(&mut TcpConfig),
) -> (Sender, Vec<TcpHeader>) {
    let mut c = profile("linux").unwrap().config;
    // The worked examples count exact timeouts; the wheel's rounding is
    // tested on its own (timers_fire_at_the_end_of_their_wheel_bucket).
    c.timer_wheel = false;
    f(&mut c);
    let (s, _, out) = established_with(&c, ctl);
    assert_eq!(data_seqs(&out), (0..10).collect::<Vec<_>>());
    (s, out)
}

/// An ACK whose window ends exactly at the end of the 10 segments (rounded
/// down to the window scale): nothing new may be sent.
fn tail_ack(ackno: u64, sacks: &[(u64, u64)]) -> TcpHeader {
    let mut h = ack(ackno, sacks, true, 100_000_000);
    h.wnd = ((seg_start(10) - ackno) >> 7) as u32;
    h
}

/// Linux's PTO (tcp_schedule_loss_probe): 2 SRTT + 2 ms (more than one
/// segment out) rounded up to the 4 ms tick, at most the RTO.
fn pto(s: &Sender) -> SimTime {
    let srtt = s.rtt().srtt().unwrap();
    let t = SimTime(2 * srtt.0) + SimTime::from_micros(2000);
    let tick = 4_000_000;
    SimTime(t.0.div_ceil(tick) * tick).min(s.rtt().rto())
}

#[test]
fn tlp_probes_the_tail_and_rack_recovers_the_hole_as_linux_worked_example() {
    // docs/dev/linux-tcp/rack-tlp.md 7.2: S9 and S10 (segments 8 and 9)
    // lost; ACKs of 0..7 arrive 100 ms after they left.
    let mut s = linux_rack_tail();
    let mut out = vec![];
    for k in 0..8 {
        s.on_segment(ms(200 + k), &tail_ack(seg_start(k + 1), &[]), &mut out);
        // Every ACK of new data moves the probe to 2 SRTT (+2 ms) from now.
        assert_eq!(s.next_deadline(), Some(ms(200 + k) + pto(&s)), "ACK {k}");
    }
    assert!(data_seqs(&out).is_empty(), "the window allows nothing new");
    // The probe: no new data fits, so the last segment goes again; a full
    // RTO from now follows it.
    let t_probe = s.next_deadline().unwrap();
    out.clear();
    s.on_timer(t_probe, &mut out);
    assert_eq!(data_seqs(&out), vec![9]);
    assert!(out[0].retrans);
    assert_eq!(s.stats.loss_probes, 1);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.next_deadline(), Some(t_probe + s.rtt().rto()));
    // Its SACK, 100 ms later: segment 9 was sent after segment 8, and 8 has
    // waited far longer than an RTT plus the window (25 ms): lost. Recovery
    // starts and 8 is resent; no timeout.
    out.clear();
    let t_sack = t_probe + ms(100);
    s.on_segment(
        t_sack,
        &tail_ack(seg_start(8), &[(seg_start(9), seg_start(10))]),
        &mut out,
    );
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(data_seqs(&out), vec![8]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.stats.timeouts, 0);
    // Resending the oldest segment restarted the RTO.
    assert_eq!(s.rto_deadline(), Some(t_sack + s.rtt().rto()));
    // Everything acknowledged (echoing the retransmission's timestamp, so
    // no undo): recovery ends with cwnd = ssthresh.
    out.clear();
    let mut all = tail_ack(seg_start(10), &[]);
    all.tsecr = t_sack.0;
    s.on_segment(t_sack + ms(100), &all, &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.tp.cwnd, s.tp.ssthresh);
    s.check_invariants();
}

#[test]
fn a_dsack_of_the_probe_ends_the_episode_without_a_reduction() {
    // rack-tlp.md 5.3: only the ACKs were late; the probe of segment 9
    // arrives as a duplicate and the receiver reports it in a D-SACK block
    // (FLAG_DSACK_TLP): no cwnd reduction. Without it the ACK past the
    // probe would count as a repaired loss.
    for dsack in [true, false] {
        let mut s = linux_rack_tail();
        let mut out = vec![];
        for k in 0..8 {
            s.on_segment(ms(200 + k), &tail_ack(seg_start(k + 1), &[]), &mut out);
        }
        let t_probe = s.next_deadline().unwrap();
        s.on_timer(t_probe, &mut out);
        assert_eq!(s.stats.loss_probes, 1);
        // The late ACK of everything, with the window open again (new data
        // goes out), then the receiver's answer to the probe: a D-SACK of
        // segment 9, with an ACK past the probe.
        s.on_segment(t_probe + ms(1), &ack(seg_start(10), &[], true, 1), &mut out);
        assert!(s.snd_max > seg_start(10));
        let cwnd = s.tp.cwnd;
        let blocks: &[(u64, u64)] = if dsack {
            &[(seg_start(9), seg_start(10))]
        } else {
            &[]
        };
        s.on_segment(
            t_probe + ms(100),
            &ack(seg_start(11), blocks, true, 1),
            &mut out,
        );
        assert_eq!(s.stats.tlp_recoveries, u64::from(!dsack), "dsack {dsack}");
        // A repaired loss is a loss episode of its own ("tlp" in the
        // episodes table): begun and ended by the ACK past the probe, the
        // probe its one retransmission, cwnd down to ssthresh at once.
        let tlp: Vec<_> = s.episodes.iter().filter(|e| e.tlp).collect();
        if dsack {
            assert!(tlp.is_empty());
        } else {
            let t = t_probe + ms(100);
            let e = tlp[0];
            assert_eq!(
                (e.start, e.end, e.timeout, e.timeouts, e.retrans),
                (t, Some(t), false, 0, 1)
            );
            assert_eq!(
                (e.cwnd, e.ssthresh, e.cwnd_after),
                (cwnd, s.tp.ssthresh, s.tp.cwnd)
            );
            assert!(e.cwnd_after < e.cwnd);
        }
        if dsack {
            assert!(s.tp.cwnd >= cwnd, "no reduction");
        } else {
            assert!(s.tp.cwnd < cwnd, "the probe counted as a repaired loss");
        }
    }
}

#[test]
fn the_receiver_reports_duplicates_in_a_dsack_block_first() {
    // RFC 2883 section 4: a duplicate below the cumulative ACK is reported
    // in the first block; a duplicate of out-of-order data too, followed by
    // the block holding it.
    let mut c = profile("linux").unwrap().config;
    c.dsack = true;
    let (mut s, mut r, first) = established(&c, "cubic");
    // The data segments (the linux profile answers the SYN-ACK with a pure ACK first).
    let first: Vec<TcpHeader> = first.into_iter().filter(|h| h.payload > 0).collect();
    let mut out = vec![];
    for h in &first[..2] {
        r.on_segment(ms(150), h, &mut out);
    }
    out.clear();
    r.on_segment(ms(151), &first[0], &mut out);
    let a = out.pop().unwrap();
    assert_eq!(a.ack, first[1].seq + first[1].payload as u64);
    assert_eq!(a.sack_blocks(), [(first[0].seq, first[1].seq)]);
    // Segment 3 out of order, then again: D-SACK of it, then its block.
    r.on_segment(ms(152), &first[3], &mut out);
    out.clear();
    r.on_segment(ms(153), &first[3], &mut out);
    let a = out.pop().unwrap();
    let b3 = (first[3].seq, first[4].seq);
    assert_eq!(a.sack_blocks(), [b3, b3]);
    // The next ACK has no D-SACK block.
    r.on_segment(ms(154), &first[5], &mut out);
    let a = out.pop().unwrap();
    assert_eq!(a.sack_block(0), (first[5].seq, first[6].seq));
    // Off (every other profile): no D-SACK.
    c.dsack = false;
    let mut r2 = Receiver::new(c.clone());
    let _ = &mut s;
    let (_, mut r2b, first2) = established(&c, "cubic");
    let first2: Vec<TcpHeader> = first2.into_iter().filter(|h| h.payload > 0).collect();
    std::mem::swap(&mut r2, &mut r2b);
    r2.on_segment(ms(150), &first2[0], &mut out);
    out.clear();
    r2.on_segment(ms(151), &first2[0], &mut out);
    assert_eq!(out.pop().unwrap().nsack, 0);
}

/// The receiver's window fixed at 4 MiB (`buffer_accounting = "plain"`),
/// as these tests of the ACK rules were worked: the `linux` profile's own
/// window grows from 64 KiB with a quick ACK per step (crate::rcvwnd).
fn fixed_window(c: &mut TcpConfig) {
    c.buffer_accounting = crate::profile::BufferAccounting::Plain;
    c.rcvbuf = 4 << 20;
}

#[test]
fn a_linux_receiver_quick_acks_the_first_16_segments_then_every_second() {
    // docs/dev/linux-tcp/delack.md 10(a), fixed window: S1..S16 each ACKed
    // at once (16 quick ACKs: a 4 MiB window allows more), S17 waits for the
    // 40 ms ATO, S18 is ACKed with it (two segments owed); a duplicate
    // (old data) grants 16 quick ACKs again.
    let mut c = profile("linux").unwrap().config;
    fixed_window(&mut c);
    c.adaptive_delack = true;
    let (_, mut r, _) = established(&c, "cubic");
    let seg = |i: u64| data_seg(i, 0, SimTime::ZERO);
    let mut out = vec![];
    for i in 0..16 {
        out.clear();
        r.on_segment(ms(200 + i), &seg(i), &mut out);
        assert_eq!(out.len(), 1, "segment {i} ACKed at once");
    }
    out.clear();
    r.on_segment(ms(216), &seg(16), &mut out);
    assert!(out.is_empty());
    // Due 40 ms later, at tick 54 + 10 = 64 (256 ms) of the 4 ms jiffies;
    // the timer wheel fires a level-0 timer one jiffy after its expiry
    // tick: 260 ms (kernel/time/timer.c calc_index; crate::wheel).
    assert_eq!(r.next_deadline(), Some(ms(260)));
    r.on_segment(ms(217), &seg(17), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg_start(18));
    out.clear();
    r.on_segment(ms(218), &seg(18), &mut out);
    assert!(out.is_empty(), "delayed again");
    r.on_segment(ms(219), &seg(3), &mut out);
    assert_eq!(out.len(), 1, "a duplicate is ACKed at once");
    out.clear();
    r.on_segment(ms(220), &seg(19), &mut out);
    assert_eq!(out.len(), 1, "quick ACKs again after the duplicate");
}

/// docs/dev/linux-tcp/prr-frto-undo.md 4.4 and 4.5: the `linux` profile
/// without timestamps (nor TLP, to isolate F-RTO), Reno, cwnd 10 and
/// ssthresh 8, P1..P10 out when the RTO fires. Returns the sender, the ten
/// segments and the new ones F-RTO sent on the first ACK.
fn frto_after_rto() -> (Sender, Vec<TcpHeader>, Vec<TcpHeader>) {
    let mut c = profile("linux").unwrap().config;
    c.timestamps = false;
    c.tlp = false;
    let (mut s, _, first) = established(&c, "reno");
    let p: Vec<TcpHeader> = first.into_iter().filter(|h| h.payload > 0).collect();
    assert_eq!(p.len(), 10);
    s.tp.ssthresh = 8;
    let t_rto = s.next_deadline().unwrap();
    let mut out = vec![];
    s.on_timer(t_rto, &mut out);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(data_seqs_of(&out), vec![p[0].seq], "P1 resent");
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (1, 5));
    // ACK A: the late ACK of the original P1. No undo possible yet (no
    // timestamps); step 2b: cwnd 2 by slow start, and new data, not P2.
    out.clear();
    let end = |h: &TcpHeader| h.seq + h.payload as u64;
    s.on_segment(t_rto + ms(1), &ack(end(&p[0]), &[], false, 0), &mut out);
    assert_eq!(s.tp.cwnd, 2);
    let end10 = end(&p[9]);
    assert_eq!(data_seqs_of(&out), vec![end10, end10 + p[0].payload as u64]);
    (s, p, out)
}

fn data_seqs_of(out: &[TcpHeader]) -> Vec<u64> {
    out.iter()
        .filter(|h| h.payload > 0)
        .map(|h| h.seq)
        .collect()
}

#[test]
fn frto_undoes_a_spurious_timeout_when_an_original_segment_is_acked() {
    // 4.4: ACK B acknowledges the original P2, never resent and sent before
    // the timeout: spurious. cwnd = max(2, 10), ssthresh = max(5, 8), Open;
    // nothing more goes out (P3..P12 fill the window).
    let (mut s, p, _) = frto_after_rto();
    let mut out = vec![];
    s.on_segment(ms(5_000), &ack(p[2].seq, &[], false, 0), &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (10, 8));
    assert_eq!(s.stats.spurious_rtos, 1);
    assert_eq!(s.stats.undos, 1);
    assert!(data_seqs_of(&out).is_empty());
    s.check_invariants();
}

#[test]
fn frto_keeps_the_timeout_when_the_new_data_is_sacked_first() {
    // 4.5: everything was lost; ACK B duplicates P1's ACK and SACKs P11:
    // the loss was real, F-RTO stops and P2 is retransmitted (in flight
    // 11 - 1 SACKed - 9 lost = 1 < cwnd 2).
    let (mut s, p, new) = frto_after_rto();
    let mut out = vec![];
    let p11 = (new[0].seq, new[0].seq + new[0].payload as u64);
    s.on_segment(ms(5_000), &ack(p[1].seq, &[p11], false, 0), &mut out);
    assert_eq!(s.ca_state(), CaState::Loss);
    assert_eq!(data_seqs_of(&out), vec![p[1].seq]);
    assert_eq!(s.stats.spurious_rtos, 0);
    assert_eq!(s.tp.cwnd, 2);
}

/// RFC 5682 section 2 on the `windows` profile (Windows Vista/7 list F-RTO
/// among their loss-recovery features; no timestamps, so Eifel never
/// applies): IW 2, P1 and P2 out, the RTO fires and P1 is resent (step 1).
/// ACK A, the late ACK of the original P1, advances the window: new data,
/// not P2 (step 2b). ACK B acknowledges P2, sent before the timeout and never
/// resent: the timeout was spurious (step 3b) and is undone.
#[test]
fn windows_detects_a_spurious_timeout_without_timestamps_by_frto() {
    let c = profile("windows").unwrap().config;
    assert!(!c.timestamps && c.sack && c.frto);
    let (mut s, _, first) = established(&c, "compound");
    let p: Vec<TcpHeader> = first.into_iter().filter(|h| h.payload > 0).collect();
    assert_eq!(p.len(), 2, "initial window of 2 segments");
    let t_rto = s.next_deadline().unwrap();
    let mut out = vec![];
    s.on_timer(t_rto, &mut out);
    assert_eq!(data_seqs_of(&out), vec![p[0].seq], "step 1: P1 resent");
    out.clear();
    let end = |h: &TcpHeader| h.seq + h.payload as u64;
    s.on_segment(t_rto + ms(1), &ack(end(&p[0]), &[], false, 0), &mut out);
    let sent = data_seqs_of(&out);
    assert!(
        !sent.is_empty() && sent[0] == end(&p[1]),
        "step 2b: new data, not P2: {sent:?}"
    );
    assert_eq!(s.ca_state(), CaState::Loss);
    out.clear();
    s.on_segment(t_rto + ms(2), &ack(end(&p[1]), &[], false, 0), &mut out);
    assert_eq!(s.stats.spurious_rtos, 1, "step 3b: spurious");
    assert_eq!(s.ca_state(), CaState::Open);
    s.check_invariants();
}

/// prr-frto-undo.md 3.5 without timestamps, up to the D-SACK: a Reno
/// sender with P1..P10 out at the handshake (t0) and P11..P20 at 150 ms;
/// P2..P4 SACKed (the dupthresh shortcut): Recovery, ssthresh 10, P1
/// resent; the original P1 arrives at 260 ms (cumulative ACK of P1..P4),
/// still in Recovery. Returns the sender, the MSS and ssthresh before the
/// recovery.
fn p1_resent_then_its_original_acked() -> (Sender, u64, u32) {
    let mut c = profile("linux").unwrap().config;
    c.timestamps = false;
    c.tlp = false;
    let (mut s, _, _) = established(&c, "reno");
    s.tp.cwnd = 20;
    let mut out = vec![];
    s.on_segment(ms(150), &ack(1, &[], false, 0), &mut out);
    let p: Vec<u64> = data_seqs_of(&out);
    assert_eq!(p.len(), 10);
    let mss = p[1] - p[0];
    let ssthresh0 = s.tp.ssthresh;
    out.clear();
    for k in 1..=3u64 {
        s.on_segment(
            ms(250 + k),
            &ack(1, &[(1 + mss, 1 + (k + 1) * mss)], false, 0),
            &mut out,
        );
    }
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert!(data_seqs_of(&out).contains(&1));
    assert_eq!(s.tp.ssthresh, 10);
    s.on_segment(ms(260), &ack(1 + 4 * mss, &[], false, 0), &mut out);
    assert_eq!(s.ca_state(), CaState::Recovery);
    (s, mss, ssthresh0)
}

#[test]
fn dsacks_of_every_retransmission_undo_the_recovery() {
    // prr-frto-undo.md 3.5 without timestamps: P1 only reordered; recovery
    // resends it; the original arrives (cumulative ACK), then the receiver
    // D-SACKs the retransmission: undo_retrans 1 -> 0, the window and
    // ssthresh come back (cwnd = max(cwnd, prior 20)).
    let (mut s, mss, ssthresh0) = p1_resent_then_its_original_acked();
    let mut out = vec![];
    s.on_segment(
        ms(350),
        &ack(1 + 4 * mss, &[(1, 1 + mss)], false, 0),
        &mut out,
    );
    assert_eq!(s.stats.undos, 1);
    assert!(s.tp.cwnd >= 20);
    assert_eq!(s.tp.ssthresh, ssthresh0);
    assert_ne!(s.ca_state(), CaState::Recovery);
}

/// Linux `tcp_fastretrans_alert` in Recovery: `tcp_try_undo_dsack` before
/// `tcp_identify_packet_loss`. A duplicate ACK whose D-SACK proves the last
/// retransmission needless and whose SACK shows a new loss first undoes the
/// recovery, then RACK marks the loss and, the state no longer Recovery,
/// `tcp_time_to_recover` starts a new one on the same ACK.
#[test]
fn a_dsack_undo_comes_before_rack_which_starts_the_next_recovery_on_the_same_ack() {
    let (mut s, mss, _) = p1_resent_then_its_original_acked();
    let recoveries = s.stats.fast_retransmits;
    // 350 ms, a duplicate ACK: the D-SACK of P1's retransmission (its only
    // one: undo_retrans 1 -> 0) and P7..P9 SACKed. The undo restores the
    // window (state Disorder); then RACK, P9 sent at t0 and delivered now
    // (RTT 350 ms - t0), with the Disorder window 0 (no reordering seen,
    // three SACKed >= tp->reordering 3): P5 and P6, sent with P9 at t0 but
    // before it, are late by t0 + (350 - t0) - 350 = 0 <= 0: lost. A new
    // recovery at once, P5 resent.
    let mut out = vec![];
    s.on_segment(
        ms(350),
        &ack(
            1 + 4 * mss,
            &[(1, 1 + mss), (1 + 6 * mss, 1 + 9 * mss)],
            false,
            0,
        ),
        &mut out,
    );
    assert_eq!(s.stats.undos, 1);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.stats.fast_retransmits, recoveries + 1);
    assert!(data_seqs_of(&out).contains(&(1 + 4 * mss)));
    s.check_invariants();
}

#[test]
fn linux_pacing_spaces_data_bytes_and_catches_up_half_a_gap_after_a_late_send() {
    // tcp_update_skb_after_send: 1448 data bytes at 1 448 000 B/s = 1 ms
    // apart (the wire size, 1500 bytes, would give 1.0359 ms). A send 1.5 ms
    // late shortens the next gap by min(1 ms / 2, 1.5 ms) = 0.5 ms; so does
    // the idle time before the first paced send.
    let mut c = cfg();
    c.linux_pacing = true;
    let (mut s, _, _) = established(&c, "newreno");
    s.stats.segs_sent = 10; // past the unpaced first 10 segments
    s.tp.cwnd = 100;
    s.tp.pacing_rate = 1_448_000;
    let mut out = vec![];
    s.on_segment(ms(200), &ack(seg_start(2), &[], true, 1), &mut out);
    let us = SimTime::from_micros;
    assert_eq!(s.next_deadline(), Some(us(200_500)));
    s.on_timer(us(200_500), &mut out);
    assert_eq!(s.next_deadline(), Some(us(201_500)), "on time: a full gap");
    out.clear();
    s.on_timer(us(203_000), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(
        s.next_deadline(),
        Some(us(203_500)),
        "1.5 ms late: half a gap"
    );
    // Off: the wire size from the later of the slot and now.
    c.linux_pacing = false;
    let (mut s, _, _) = established(&c, "newreno");
    s.tp.cwnd = 100;
    s.tp.pacing_rate = 1_448_000;
    s.on_segment(ms(200), &ack(seg_start(2), &[], true, 1), &mut out);
    let gap = 1_000_000_000u64 * out.last().unwrap().wire_size() as u64 / 1_448_000;
    assert_eq!(s.next_deadline(), Some(ms(200) + SimTime(gap)));
}

#[test]
fn gso_bursts_pace_two_segments_at_a_time_as_linux_tcp_tso_segs() {
    // tcp_tso_segs: 1 448 000 B/s >> 10 = 1 414 bytes, under one 1448-byte
    // segment, so tcp_min_tso_segs = 2 per burst (the path's 100 ms min RTT
    // adds nothing: 100 000 >> 9 = 195 >= 32). Each burst of 2 x 1448 data
    // bytes holds the next one 2 ms; the first, after idling, is 1 ms early
    // (half of its length of credit).
    let mut c = cfg();
    c.linux_pacing = true;
    c.gso_bursts = true;
    let (mut s, _, _) = established(&c, "newreno");
    s.stats.segs_sent = 10;
    s.tp.cwnd = 100;
    s.tp.pacing_rate = 1_448_000;
    let mut out = vec![];
    let us = SimTime::from_micros;
    s.on_segment(ms(200), &ack(seg_start(2), &[], true, 1), &mut out);
    let data = |o: &[TcpHeader]| o.iter().filter(|h| h.payload > 0).count();
    assert_eq!(data(&out), 2, "one burst of two");
    assert_eq!(s.next_deadline(), Some(us(201_000)));
    out.clear();
    s.on_timer(us(201_000), &mut out);
    assert_eq!(data(&out), 2);
    assert_eq!(s.next_deadline(), Some(us(203_000)), "on time: 2 ms");
    // 3 ms late: min(2 ms / 2, 3 ms) = 1 ms of credit.
    out.clear();
    s.on_timer(us(206_000), &mut out);
    assert_eq!(data(&out), 2);
    assert_eq!(s.next_deadline(), Some(us(207_000)));
    // At 3 MB/s: 3 000 000 >> 10 = 2 929 bytes = 2 segments as well; at
    // 6 MB/s, 5 859 bytes = 4 segments.
    s.tp.pacing_rate = 6_000_000;
    out.clear();
    s.on_timer(us(207_000), &mut out);
    assert_eq!(data(&out), 4);
    // tcp_cwnd_test: at most half the window of new data per skb. cwnd 3
    // with 1 of the initial 2 segments still out: room for 2, but a burst
    // of max(3 / 2, 1) = 1 segment (the first after idling: half a gap
    // early, 0.5 ms), then the second.
    let (mut s, _, _) = established(&c, "newreno");
    s.stats.segs_sent = 10;
    s.tp.cwnd = 3;
    s.tp.ssthresh = 2; // congestion avoidance: one segment acked adds < 1
    s.tp.pacing_rate = 1_448_000;
    out.clear();
    s.on_segment(ms(200), &ack(seg_start(1), &[], true, 1), &mut out);
    assert_eq!(s.tp.cwnd, 3);
    assert_eq!(data(&out), 1);
    assert_eq!(s.next_deadline(), Some(us(200_500)));
}

/// A linux Reno sender (no timestamps, no TLP, `tweak` applied) with 20
/// segments to send, in congestion avoidance at cwnd 10: P1..P10 at the
/// handshake, P11..P15 at 150 ms (the ACK of P1..P5), P16..P20 at 160 ms
/// (the ACK of P6..P10). Returns the sender and its MSS (Pi starts at
/// 1 + (i - 1) MSS).
fn p11_to_p20_sent_at_150_and_160(tweak: impl FnOnce(&mut TcpConfig)) -> (Sender, u64) {
    let mut c = profile("linux").unwrap().config;
    c.timestamps = false;
    c.tlp = false;
    tweak(&mut c);
    let mss = c.mss as u64;
    let (mut s, _, first) = established_transfer(
        &c,
        cc::make("reno", &CcParams::new()).unwrap(),
        Some(20 * mss),
    );
    let p = |i: u64| 1 + (i - 1) * mss;
    assert_eq!(data_seqs_of(&first).len(), 10);
    // Congestion avoidance at cwnd 10: each ACK of five sends five.
    s.tp.cwnd = 10;
    s.tp.ssthresh = 10;
    let mut out = vec![];
    s.on_segment(ms(150), &ack(p(6), &[], false, 0), &mut out);
    assert_eq!(data_seqs_of(&out), (11..=15).map(p).collect::<Vec<_>>());
    out.clear();
    s.on_segment(ms(160), &ack(p(11), &[], false, 0), &mut out);
    assert_eq!(data_seqs_of(&out), (16..=20).map(p).collect::<Vec<_>>());
    (s, mss)
}

/// Linux tcp_sacktag_write_queue walks an ACK's SACK blocks in sequence
/// order, whatever order the receiver wrote them in (most recent first), and
/// tcp_rack_advance takes RACK's RTT from each segment walked, so from the
/// highest block's last one. P11..P15 leave at 150 ms, P16..P20 at 160 ms;
/// P11 and P16 are lost. At 260 ms an ACK SACKs [P17,P21) then [P12,P16):
/// walked in order, RACK's RTT is P20's, 100 ms, and both P11 (150 + 100 <=
/// 260) and P16 (160 + 100 <= 260, sent before P17) are lost at once; in the
/// blocks' order it would be P15's, 110 ms, leaving P16 to the reordering
/// timer.
#[test]
fn sack_blocks_are_walked_in_sequence_order_so_rack_marks_both_holes_at_once() {
    let (mut s, mss) = p11_to_p20_sent_at_150_and_160(|_| {});
    let p = |i: u64| 1 + (i - 1) * mss;
    let mut out = vec![];
    s.on_segment(
        ms(260),
        &ack(p(11), &[(p(17), p(21)), (p(12), p(16))], false, 0),
        &mut out,
    );
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(data_seqs_of(&out), vec![p(11), p(16)]);
    s.check_invariants();
}

/// Linux tcp_clean_rtx_queue: an ACK that SACKs data sent before the head's
/// last transmission (a SACK RTT longer than the head's age) restarts the
/// RTO, as a cumulative ACK would. P11..P15 leave at 150 ms, P16..P20 at
/// 160 ms. At 260 ms P12..P15 are SACKed: RACK finds P11 lost (150 + 110 <=
/// 260; P16..P20 were sent after P15), and resending the head restarts the
/// RTO. At 270 ms P17..P20 are SACKed: sent at 160 ms, before the head's
/// retransmission, so the RTO restarts from 270 ms.
#[test]
fn a_sack_of_data_older_than_the_resent_head_restarts_the_rto() {
    // The deadline itself, not its timer-wheel bucket.
    let (mut s, mss) = p11_to_p20_sent_at_150_and_160(|c| c.timer_wheel = false);
    let p = |i: u64| 1 + (i - 1) * mss;
    let mut out = vec![];
    s.on_segment(ms(260), &ack(p(11), &[(p(12), p(16))], false, 0), &mut out);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(data_seqs_of(&out), vec![p(11)]);
    assert_eq!(s.rto_deadline(), Some(ms(260) + s.rtt().rto()));
    s.on_segment(
        ms(270),
        &ack(p(11), &[(p(17), p(21)), (p(12), p(16))], false, 0),
        &mut out,
    );
    assert_eq!(s.rto_deadline(), Some(ms(270) + s.rtt().rto()));
    s.check_invariants();
}

/// Linux tcp_xmit_retransmit_queue checks pacing (`tcp_pacing_check`)
/// before each skb of the retransmit queue and resends up to `max_segs` of
/// one skb's segments at once. A linux sender paces P11..P20 in skbs of
/// two, [P11,P12] [P13,P14] [P15,P16] [P17,P18] [P19,P20]; P11, P13, P15
/// and P16 are lost. After P11's fast retransmit, P13 goes alone (P14 was
/// SACKed: its skb holds P13 only; P15 is another skb and waits a pacing
/// slot), then P15 and P16 together, one skb.
#[test]
fn a_paced_sender_resends_one_skb_per_pacing_slot() {
    let mut c = profile("linux").unwrap().config;
    c.timestamps = false;
    c.tlp = false;
    assert!(c.linux_pacing && c.gso_bursts);
    let mss = c.mss as u64;
    let (mut s, _, first) = established_transfer(
        &c,
        cc::make("reno", &CcParams::new()).unwrap(),
        Some(20 * mss),
    );
    let p = |i: u64| 1 + (i - 1) * mss; // P1 starts at sequence 1
    assert_eq!(data_seqs_of(&first), (1..=10).map(p).collect::<Vec<_>>());
    // 1 ms a segment (its data bytes at the rate); tcp_tso_segs gives the
    // minimum, 2 (the rate >> 10 is below one segment).
    s.tp.pacing_rate = mss * 1000;
    let us = SimTime::from_micros;
    let mut out = vec![];
    s.on_segment(ms(150), &ack(p(11), &[], false, 0), &mut out);
    // The first paced skb after idling: half its 2 ms of credit back.
    assert_eq!(data_seqs_of(&out), vec![p(11), p(12)]);
    for (at, skb) in [(151, 13), (153, 15), (155, 17), (157, 19)] {
        assert_eq!(s.next_deadline(), Some(ms(at)));
        out.clear();
        s.on_timer(ms(at), &mut out);
        assert_eq!(data_seqs_of(&out), vec![p(skb), p(skb + 1)]);
    }
    // P12, P14, P17..P20 SACKed: RACK (no reordering seen, so no window)
    // finds P11, P13, P15 and P16, sent before P20, lost; Recovery, and
    // P11's fast retransmit at once (0.5 ms of its 1 ms back: idle before).
    out.clear();
    s.on_segment(
        ms(260),
        &ack(
            p(11),
            &[(p(17), p(21)), (p(14), p(15)), (p(12), p(13))],
            false,
            0,
        ),
        &mut out,
    );
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(data_seqs_of(&out), vec![p(11)]);
    assert_eq!(s.next_deadline(), Some(us(260_500)));
    out.clear();
    s.on_timer(us(260_500), &mut out);
    assert_eq!(data_seqs_of(&out), vec![p(13)], "P13's skb: P13 alone");
    assert_eq!(s.next_deadline(), Some(us(261_500)));
    out.clear();
    s.on_timer(us(261_500), &mut out);
    assert_eq!(data_seqs_of(&out), vec![p(15), p(16)], "one skb of two");
    assert_eq!(s.next_deadline(), Some(us(263_500)));
    s.check_invariants();
}

/// ns-2 Sack1 at W = 32: slow start from 2 capped at maxcwnd_ 32 (ACKs of
/// segments 0..=299), segments 300..=331 out; segments 300..300+L-1 are
/// lost. The duplicate ACKs SACK [300+L, j+1) as segment j arrives.
fn ns2_sack1_window_of_32() -> Sender {
    let mut s = ns2_open_cc("newreno", |c| c.max_cwnd = 32);
    assert_eq!(s.recovery(), Recovery::Sack1Ns2);
    ns2_ack_each(&mut s, 0, 299);
    assert_eq!((s.tp.cwnd, s.outstanding_bytes()), (32, 32 * NS2_MSS));
    s
}

/// Send `h` at the sender's next millisecond; what it sent.
fn ns2_feed(s: &mut Sender, h: &TcpHeader) -> Vec<u64> {
    let mut out = vec![];
    s.on_segment(ns2_next(s), h, &mut out);
    ns2_seqs(&out)
}

/// The duplicate ACKs of a window of 32 whose first `l` segments were lost
/// (arrivals of 300+l..=331, then the two limited-transmit segments 332,
/// 333), checked as ns-2 2.28's Sack1 handles them (tcp-sack1.cc recv,
/// dupack_action, tcp.cc send_one): the first two each send one new
/// segment (32 < 32 + 1, 33 < 32 + 2 outstanding), the third retransmits
/// 300 with cwnd_ = int(32/2) = 16 and pipe_ = 334 - 300 - 3 = 31, the
/// other 32 - l - 1 send nothing: pipe_ ends at 31 - (32 - l - 1) = l.
fn ns2_sack1_dupacks(s: &mut Sender, l: u64) {
    let first = 300 + l;
    let mut sent = vec![];
    for j in first..=333 {
        sent.push(ns2_feed(s, &ns2_sack_ack(300, &[(first, j + 1)])));
    }
    assert_eq!(sent[0], vec![332]);
    assert_eq!(sent[1], vec![333]);
    assert_eq!(sent[2], vec![300]);
    assert!(sent[3..].iter().all(|v| v.is_empty()), "{sent:?}");
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (16, 16));
}

#[test]
fn ns2_sack1_stalls_until_the_timeout_when_l_is_w_over_2_plus_2() {
    // L = 18: pipe_ = 18 after the duplicates; the partial ACK of the
    // retransmitted 300 takes two off (16), not below cwnd_ 16: nothing
    // leaves until the timer, restarted by that partial ACK (newtimer),
    // fires. ns-2.35 with ErrorModel/List dropping packets 300..317 of the
    // same window (/tmp/sack1/ns/sack1.tcl): the same, 301 resent 0.2 s
    // (minrto_) after the partial ACK.
    let mut s = ns2_sack1_window_of_32();
    ns2_sack1_dupacks(&mut s, 18);
    let sacked = (318, 334);
    assert!(ns2_feed(&mut s, &ns2_sack_ack(301, &[sacked])).is_empty());
    let partial_at = s.tp.now;
    assert_eq!(s.rto_deadline(), Some(partial_at + s.rtt().rto()));
    let mut out = vec![];
    s.on_timer(s.rto_deadline().unwrap(), &mut out);
    assert_eq!(s.stats.timeouts, 1);
    // timeout(): cwnd_ 1, ssthresh_ = int(window()/2) = 8, go back N from
    // highest_ack_ + 1.
    assert_eq!(ns2_seqs(&out), vec![301]);
    assert_eq!((s.tp.cwnd, s.tp.ssthresh), (1, 8));
    // timeout_: a duplicate ACK before the next new ACK is ignored (no
    // SACK read, no count) and sends nothing.
    assert!(ns2_feed(&mut s, &ns2_sack_ack(301, &[sacked])).is_empty());
    assert_eq!(s.dupacks(), 0);
    assert!((318..334).all(|i| s.seg_flags((i - 301) as usize) & SACKED == 0));
    // The scoreboard was cleared (ClearScoreBoard): slow start goes back N
    // over 318 and 319 though the receiver SACKed them: ACKs of 301..=311,
    // seven in slow start (cwnd 2..=8, two segments each: 302..=315), four
    // in congestion avoidance (one each: 316..=319).
    let mut sent = vec![];
    for i in 301..=311 {
        sent.extend(ns2_feed(&mut s, &ns2_ack(i + 1)));
    }
    assert_eq!(sent, (302..=319).collect::<Vec<_>>());
    assert_eq!(s.stats.timeouts, 1);
}

#[test]
fn ns2_sack1_repairs_17_losses_of_32_without_a_timeout_two_segments_per_ack() {
    // L = 17: pipe_ = 17, the partial ACK brings it to 15 < 16: one
    // segment (301, pipe_ 16); each partial ACK after takes two off and
    // sends two, holes first (GetNextRetran: unSACKed below the highest
    // SACK, each once), then new data (316 is the last hole: 316 and 334).
    // The ACK of everything below 334 ends the recovery with cwnd_ 16
    // unchanged; send_much is then window-based: 334..=348 out, one more.
    // ns-2.35, packets 300..316 dropped: 301 | 302 303 | 304 305 | ... |
    // 314 315 | 316 334 | 335 336 | ... | 347 348 | 349, no timeout.
    let mut s = ns2_sack1_window_of_32();
    ns2_sack1_dupacks(&mut s, 17);
    let sacked = [(317, 334)];
    let mut sent = vec![ns2_feed(&mut s, &ns2_sack_ack(301, &sacked))];
    for i in 302..=316 {
        sent.push(ns2_feed(&mut s, &ns2_sack_ack(i, &sacked)));
    }
    let mut expect = vec![vec![301]];
    expect.extend((0..7).map(|k| vec![302 + 2 * k, 303 + 2 * k]));
    expect.push(vec![316, 334]);
    expect.extend((0..7).map(|k| vec![335 + 2 * k, 336 + 2 * k]));
    assert_eq!(sent, expect);
    assert_eq!(ns2_feed(&mut s, &ns2_ack(334)), vec![349]);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(
        (s.tp.cwnd, s.stats.timeouts, s.stats.segs_retrans),
        (16, 0, 17)
    );
}

#[test]
fn ns2_sack1_counts_duplicate_acks_not_sacked_segments() {
    // Sack1 fast-retransmits on the numdupacks-th duplicate ACK with new
    // SACK information, however much it SACKs: two duplicates (the first
    // ACKs lost) SACKing 301..=305 start nothing (RFC 6675's IsLost would:
    // five SACKed above 300), the third does.
    let mut s = ns2_sack1_window_of_32();
    ns2_feed(&mut s, &ns2_sack_ack(300, &[(301, 305)]));
    ns2_feed(&mut s, &ns2_sack_ack(300, &[(301, 306)]));
    assert_eq!(s.stats.fast_retransmits, 0);
    // A duplicate that SACKs nothing new is no duplicate (CheckUpdate).
    ns2_feed(&mut s, &ns2_sack_ack(300, &[(301, 306)]));
    assert_eq!(s.stats.fast_retransmits, 0);
    assert_eq!(
        ns2_feed(&mut s, &ns2_sack_ack(300, &[(301, 307)])),
        vec![300]
    );
    assert_eq!(s.stats.fast_retransmits, 1);
    // Off (ns2_sack1 false): RFC 6675, recovery at the first of them.
    let mut s = ns2_open_cc("newreno", |c| {
        c.max_cwnd = 32;
        c.ns2_sack1 = false;
    });
    assert_eq!(s.recovery(), Recovery::Sack);
    ns2_ack_each(&mut s, 0, 299);
    ns2_feed(&mut s, &ns2_sack_ack(300, &[(301, 305)]));
    assert_eq!(s.stats.fast_retransmits, 1);
}

/// Linux `tcp_fastretrans_alert` in the Loss state: RACK finds a
/// retransmission lost again (`FLAG_LOST_RETRANS`), the sender falls through
/// to `tcp_enter_recovery`: Loss -> Recovery with a new ssthresh
/// (docs/dev/linux-tcp/prr-frto-undo.md, "Loss state + FLAG_LOST_RETRANS").
/// `linux`, Reno, without timestamps, F-RTO or TLP (to isolate RACK); the
/// whole initial window P0..P9 is lost.
#[test]
fn rack_finding_a_lost_retransmission_moves_loss_to_recovery() {
    let mut c = profile("linux").unwrap().config;
    c.timestamps = false;
    c.frto = false;
    c.tlp = false;
    let (mut s, _, first) = established(&c, "reno");
    // Without timestamps a segment carries 1460 bytes.
    let seg = |i: u64| 1 + i * 1460;
    assert_eq!(data_seqs_of(&first), (0..10).map(seg).collect::<Vec<_>>());
    // The RTO: no delivery yet, so every segment is presumed lost
    // (tcp_timeout_mark_lost); cwnd = in flight + 1 = 1, ssthresh =
    // max(10 / 2, 2) = 5 (tcp_reno_ssthresh); P0 resent.
    let t_rto = s.next_deadline().unwrap();
    let mut out = vec![];
    s.on_timer(t_rto, &mut out);
    assert_eq!(
        (s.ca_state(), s.tp.cwnd, s.tp.ssthresh),
        (CaState::Loss, 1, 5)
    );
    assert_eq!(data_seqs_of(&out), vec![seg(0)]);
    // 100 ms later P0's ACK: slow start, cwnd 2: P1 and P2 resent.
    out.clear();
    let t1 = t_rto + ms(100);
    s.on_segment(t1, &ack(seg(1), &[], false, 0), &mut out);
    assert_eq!((s.ca_state(), s.tp.cwnd), (CaState::Loss, 2));
    assert_eq!(data_seqs_of(&out), vec![seg(1), seg(2)]);
    // P1's retransmission is lost, P2's arrives: a duplicate ACK SACKing P2,
    // 100 ms after both left. RACK (reordering window 0 in Loss) marks P1
    // lost again: its retransmission leaves retrans_out. Recovery, with
    // ssthresh from the window now: max(2 / 2, 2) = 2; one more fast
    // recovery counted (TCPSackRecovery); P1 is resent first.
    out.clear();
    let before = s.stats.fast_retransmits;
    s.on_segment(
        t1 + ms(100),
        &ack(seg(1), &[(seg(2), seg(3))], false, 0),
        &mut out,
    );
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.tp.ssthresh, 2);
    assert_eq!(s.stats.fast_retransmits, before + 1);
    // PRR on this ACK (tcp_cwnd_reduction): in flight 9 - 1 SACKed - 8 lost
    // + 0 resent = 0, below ssthresh: sndcnt = max(delivered 1 - sent 0, 1)
    // = 1 (no +1: snd_una did not move), cwnd = 0 + 1: P1 alone is resent.
    assert_eq!(s.tp.cwnd, 1);
    assert_eq!(data_seqs_of(&out), vec![seg(1)]);
    // Still the timeout's loss episode (one row), not a new one.
    assert_eq!(s.episodes.len(), 1);
    assert!(s.episodes[0].timeout && s.episodes[0].end.is_none());
    s.check_invariants();
}

#[test]
fn a_linux_sender_reports_the_pacing_rate_linux_computes_for_every_flow() {
    // tcp_update_pacing_rate: mss x max(cwnd, packets_out) / srtt, x 2 while
    // cwnd < ssthresh / 2, else x 1.2. Cubic does not pace; the rate is what
    // TCP_INFO reports. After the handshake (SRTT 100 ms), IW 10 out, cwnd
    // 10 below half of the initial ssthresh: 1448 x 10 / 0.1 s x 2 = 289,600 B/s.
    let c = profile("linux").unwrap().config;
    let (s, _, _) = established(&c, "cubic");
    assert_eq!(s.tp.pacing_rate, 0);
    assert_eq!(s.rtt().srtt(), Some(ms(100)));
    assert_eq!(s.reported_pacing_rate(), 289_600);
    // Other profiles report none.
    let (s, _, _) = established(&cfg(), "cubic");
    assert_eq!(s.reported_pacing_rate(), 0);
    // Congestion avoidance (cwnd at least half ssthresh): x 1.2; the value
    // is the last ACK's, so a timeout (cwnd 1) does not change it.
    let mut c = profile("linux").unwrap().config;
    c.tlp = false;
    let (mut s, _, _) = established(&c, "reno");
    s.tp.ssthresh = 8;
    let mut out = vec![];
    s.on_segment(ms(200), &ack(seg_start(1), &[], true, 1), &mut out);
    // One segment acknowledged: Reno's cwnd 10 -> 10 + 1/10 (ssthresh 8,
    // congestion avoidance: no whole segment yet); packets out 9 + 1 new.
    let srtt_us = s.rtt().srtt().unwrap().0 / 1000;
    let cnt = (s.tp.cwnd as u64).max(10);
    assert_eq!(
        s.reported_pacing_rate(),
        1448 * 1_000_000 / 100 * 120 * cnt / srtt_us
    );
    let before = s.reported_pacing_rate();
    let t = s.next_deadline().unwrap();
    s.on_timer(t, &mut out);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(s.reported_pacing_rate(), before);
}

/// Linux `tcp_fastretrans_alert` in the Loss state runs the undo
/// (`tcp_process_loss`) before RACK (`tcp_identify_packet_loss`): an ACK that
/// proves the timeout spurious and a loss at once first restores the window
/// (F-RTO, RFC 5682 3b), then RACK, scanning again in the Open state, marks
/// the loss and `tcp_time_to_recover` starts a recovery on the same ACK
/// (review17 D4). The F-RTO setup of `frto_after_rto`: P0..P9 out at t0,
/// the RTO, P0 resent, its late ACK, new data P10 and P11.
#[test]
fn an_undo_in_loss_comes_before_rack_which_may_start_a_recovery_on_the_same_ack() {
    let (mut s, p, _) = frto_after_rto();
    let end = |h: &TcpHeader| h.seq + h.payload as u64;
    // ACK B: cumulative to P2 (the original P1, never resent, arrived) and
    // SACKs P4..P9, all sent at t0 with P2 and P3. F-RTO 3b: spurious, the
    // window back (cwnd 10, ssthresh 8), Open. RACK then: the newest
    // delivered segment P9 was sent with P2 and P3, so their RTT plus the
    // reordering window (0: six segments SACKed, at least `tcp_reordering`
    // 3, none reordered) has passed: both lost. Recovery with ssthresh
    // max(10 / 2, 2) = 5 (tcp_reno_ssthresh from the restored window); P2
    // resent first.
    let mut out = vec![];
    s.on_segment(
        ms(5_000),
        &ack(p[2].seq, &[(p[4].seq, end(&p[9]))], false, 0),
        &mut out,
    );
    assert_eq!(s.stats.spurious_rtos, 1);
    assert_eq!(s.stats.undos, 1);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.tp.ssthresh, 5);
    assert_eq!(data_seqs_of(&out).first(), Some(&p[2].seq));
    s.check_invariants();
}

/// Linux `tcp_process_loss`: when the ACK reaches the recovery point the
/// sender returns to Open (`tcp_try_undo_recovery`) before RACK scans
/// (`tcp_identify_packet_loss`), so the reordering window is the Open
/// state's min_rtt / 4 (fewer than `tcp_reordering` 3 segments SACKed, no
/// reordering seen), not the Loss state's 0 (review18 B3). `linux`, Reno,
/// without timestamps, F-RTO or TLP; the initial window P0..P9 is lost and
/// resent by the timeout's slow start, new data follows.
#[test]
fn the_ack_ending_a_timeout_recovery_lets_rack_wait_the_open_state_reordering_window() {
    let mut c = profile("linux").unwrap().config;
    c.timestamps = false;
    c.frto = false;
    c.tlp = false;
    let (mut s, _, _) = established(&c, "reno");
    let seg = |i: u64| 1 + i * 1460;
    let t_rto = s.next_deadline().unwrap();
    let mut out = vec![];
    s.on_timer(t_rto, &mut out);
    // Each retransmission's ACK 100 ms after it, until a flight carries new
    // data (segments 10 and up) along with the last retransmissions.
    let mut t = t_rto;
    let mut sent = data_seqs_of(&out);
    while sent.iter().all(|&q| q < seg(10)) {
        t += ms(100);
        let upto = sent.iter().copied().max().unwrap() + 1460;
        out.clear();
        s.on_segment(t, &ack(upto, &[], false, 0), &mut out);
        assert_eq!(s.ca_state(), CaState::Loss);
        sent = data_seqs_of(&out);
    }
    let new: Vec<u64> = sent.iter().copied().filter(|&q| q >= seg(10)).collect();
    assert!(new.len() >= 2, "two new segments left together: {new:?}");
    // The ACK of everything resent (the recovery point, segment 10) SACKs
    // the second new segment, not the first, sent at the same instant.
    let (a, b) = (new[0], new[1]);
    out.clear();
    s.on_segment(
        t + ms(100),
        &ack(seg(10), &[(b, b + 1460)], false, 0),
        &mut out,
    );
    // Open (Disorder: one segment SACKed); a's RTT plus min_rtt / 4 has not
    // passed (it left with b, whose RTT is RACK's): not lost yet, no new
    // recovery; RACK's timer waits the window, 2 ms more, rounded up.
    assert_eq!(s.ca_state(), CaState::Disorder);
    assert_eq!(s.stats.fast_retransmits, 0);
    assert!(!data_seqs_of(&out).contains(&a));
    s.check_invariants();
}

/// Linux `tcp_try_undo_recovery` undoes a spurious recovery with
/// `tcp_undo_cwnd_reduction(sk, false)`: the LOST marks stay, so a segment
/// RACK had already found lost above the recovery point starts the next
/// recovery on the same ACK (`tcp_time_to_recover`); only a timeout's undo
/// clears them (review18 B2). `linux`, Reno, TLP off; the initial window
/// P0..P9 leaves at 100 ms; P1 and P9 are missing.
#[test]
fn undoing_a_rack_recovery_keeps_its_lost_marks() {
    let mut c = profile("linux").unwrap().config;
    c.tlp = false;
    let (mut s, _, first) = established(&c, "reno");
    let p: Vec<u64> = data_seqs_of(&first);
    assert_eq!(p.len(), 10);
    let mss = p[1] - p[0];
    let idx = |o: &[TcpHeader]| {
        data_seqs_of(o)
            .iter()
            .map(|q| (q - 1) / mss)
            .collect::<Vec<_>>()
    };
    let mut out = vec![];
    // 200 ms: P2..P4 SACKed. RACK (three SACKed: window 0) finds P1 lost:
    // Recovery (recover = the end of P9, ssthresh 5), P1 resent.
    s.on_segment(ms(200), &ack(p[1], &[(p[2], p[5])], true, 1), &mut out);
    assert_eq!((s.ca_state(), idx(&out)), (CaState::Recovery, vec![1]));
    // 201-204 ms: P5..P8 SACKed one by one (P9, sent after P8, is not yet
    // late): PRR sends new data, segments 10, 11, 12.
    for (k, i) in [5usize, 6, 7, 8].iter().enumerate() {
        out.clear();
        s.on_segment(
            ms(201 + k as u64),
            &ack(p[1], &[(p[2], p[*i] + mss)], true, 1),
            &mut out,
        );
    }
    let n10 = p[9] + mss;
    let n11 = n10 + mss;
    // 250 ms: P1's retransmission arrived (the ACK jumps to P9, the hole),
    // and segment 11 is SACKed, not 10. RACK, window 0 in Recovery: P9
    // (sent at 100 ms) and segment 10 (sent before 11) are lost; both
    // resent, then new data.
    out.clear();
    s.on_segment(ms(250), &ack(p[9], &[(n11, n11 + mss)], true, 1), &mut out);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(idx(&out)[..2], [9, 10]);
    let recoveries = s.stats.fast_retransmits;
    // 251 ms: the full ACK (up to segment 10, the recovery point), echoing
    // a timestamp older than the first retransmission: the recovery was
    // spurious and is undone (cwnd and ssthresh back). Segment 10 stays
    // lost (its retransmission is out): a new recovery at once, without
    // resending it again. (Had the undo cleared the mark, RACK would not
    // mark it again: its retransmission left after segment 11.)
    out.clear();
    s.on_segment(ms(251), &ack(n10, &[(n11, n11 + mss)], true, 1), &mut out);
    assert_eq!(s.stats.undos, 1);
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(s.stats.fast_retransmits, recoveries + 1);
    assert!(!data_seqs_of(&out).contains(&n10));
    s.check_invariants();
}

/// The `linux` profile with `push` (PSH at the end of each application
/// write, and a PSH segment ACKed at once by the receiver).
fn push_cfg() -> TcpConfig {
    let mut c = profile("linux").unwrap().config;
    c.push = true;
    c.tso_defer = false;
    c
}

fn pushed_seqs(out: &[TcpHeader]) -> Vec<u64> {
    out.iter()
        .filter(|h| h.payload > 0 && h.has(crate::header::PSH))
        .map(|h| (h.seq - 1) / MSS)
        .collect()
}

#[test]
fn push_sets_psh_on_the_last_segment_of_each_gso_skb_of_more_than_one() {
    // tcp_write_xmit builds each skb of min(tcp_tso_segs, tcp_cwnd_test)
    // segments: tcp_tso_segs is 2 here (sk_pacing_rate 2 * 10 * 1448 B per
    // 100 ms = 289,600 B/s, >> 10 = 282 B: no whole segment, so
    // min_tso_segs 2), the quota the window's room but at most cwnd / 2.
    // __tcp_transmit_skb forces PSH on a skb of more than one segment.
    // IW 10: five skbs of two, PSH on S1, S3, S5, S7, S9.
    let c = push_cfg();
    let (mut s, _, first) = established(&c, "reno");
    assert_eq!(data_seqs(&first), (0..10).collect::<Vec<_>>());
    assert_eq!(pushed_seqs(&first), vec![1, 3, 5, 7, 9]);
    // Congestion avoidance at cwnd 10: an ACK of one segment leaves room
    // for one, a skb of one segment without PSH (S10).
    s.tp.ssthresh = 10;
    let mut out = vec![];
    s.on_segment(
        ms(200),
        &ack(seg_start(1), &[], true, 100_000_000),
        &mut out,
    );
    assert_eq!(data_seqs(&out), vec![10]);
    assert!(pushed_seqs(&out).is_empty());
    // Two more acknowledged: one skb of two, PSH on S12.
    out.clear();
    s.on_segment(
        ms(201),
        &ack(seg_start(3), &[], true, 100_000_000),
        &mut out,
    );
    assert_eq!(data_seqs(&out), vec![11, 12]);
    assert_eq!(pushed_seqs(&out), vec![12]);
    // Three more: quota 3, skbs of two and one, PSH on S14 only.
    out.clear();
    s.on_segment(
        ms(202),
        &ack(seg_start(6), &[], true, 100_000_000),
        &mut out,
    );
    assert_eq!(data_seqs(&out), vec![13, 14, 15]);
    assert_eq!(pushed_seqs(&out), vec![14]);
}

#[test]
fn tso_defer_holds_less_than_a_full_skb_for_the_next_ack() {
    // Linux tcp_tso_should_defer with tcp_tso_segs 2 (see the test above),
    // tcp_tso_win_divisor 3, SRTT 100 ms (the handshake), IW 10 sent at
    // 100 ms, congestion avoidance at cwnd 10.
    let mut c = profile("linux").unwrap().config;
    c.tso_defer = true;
    let (mut s, _, first) = established(&c, "reno");
    assert_eq!(data_seqs(&first), (0..10).collect::<Vec<_>>());
    s.tp.ssthresh = 10;
    let mut out = vec![];
    // 200 ms, S0 acknowledged: room for one segment, but the last send was
    // 100 ms ago (more than 1 ms): it goes at once (S10).
    s.on_segment(
        ms(200),
        &ack(seg_start(1), &[], true, 100_000_000),
        &mut out,
    );
    assert_eq!(data_seqs(&out), vec![10]);
    // 201 ms, S1-S2: room for a full skb of two: S11, S12.
    out.clear();
    s.on_segment(
        ms(201),
        &ack(seg_start(3), &[], true, 100_000_000),
        &mut out,
    );
    assert_eq!(data_seqs(&out), vec![11, 12]);
    // 201.5 ms, S3: room for one; the last send 0.5 ms ago; one segment is
    // below a third of cwnd (3.3); the oldest outstanding segment (S4, sent
    // at 100 ms) is due at 200 ms, not later than now + min(50 ms, 1 ms):
    // deferred, nothing goes.
    out.clear();
    let t = ms(201) + SimTime::from_micros(500);
    s.on_segment(t, &ack(seg_start(4), &[], true, 100_000_000), &mut out);
    assert!(data_seqs(&out).is_empty());
    // 202 ms, S4: room for two, a full skb: S13 and S14 together.
    out.clear();
    s.on_segment(
        ms(202),
        &ack(seg_start(5), &[], true, 100_000_000),
        &mut out,
    );
    assert_eq!(data_seqs(&out), vec![13, 14]);
    // The same ACKs to another sender: what the 201.5 ms one sends.
    let sent_at_t = |tso_defer: bool, bytes: Option<u64>| {
        let mut c = profile("linux").unwrap().config;
        c.tso_defer = tso_defer;
        let reno = cc::make("reno", &CcParams::new()).unwrap();
        let (mut s, _, _) = established_transfer(&c, reno, bytes);
        s.tp.ssthresh = 10;
        let mut out = vec![];
        for (at, acked) in [(ms(200), 1), (ms(201), 3)] {
            s.on_segment(at, &ack(seg_start(acked), &[], true, 100_000_000), &mut out);
        }
        out.clear();
        s.on_segment(t, &ack(seg_start(4), &[], true, 100_000_000), &mut out);
        data_seqs(&out)
    };
    // Without tso_defer it sends S13 alone.
    assert_eq!(sent_at_t(false, None), vec![13]);
    // A transfer of 14 segments: S13 is its last data, in the skb that
    // carries the FIN ("if this packet won't get more data, do not wait"):
    // it goes.
    assert_eq!(sent_at_t(true, Some(14 * MSS)), vec![13]);
}

#[test]
fn push_marks_the_end_of_a_transfer_for_good_and_a_gso_skb_only_as_sent() {
    // 5 segments: skbs S0-S1 and S2-S3 (PSH on S1, S3) and S4, the end of
    // the application's write (tcp_push marks it: PSH). Resent, S4 keeps
    // PSH (it is in the skb's tcp_flags); S3 does not (__tcp_transmit_skb
    // set it on the clone it sent).
    let c = push_cfg();
    let reno = cc::make("reno", &CcParams::new()).unwrap();
    let (mut s, _, mut out) = established_transfer(&c, reno, Some(5 * MSS));
    assert_eq!(data_seqs(&out), (0..5).collect::<Vec<_>>());
    assert_eq!(pushed_seqs(&out), vec![1, 3, 4]);
    // S0-S2 acknowledged; S3 and S4 lost. The loss probe sends the FIN
    // (new data first); the timeout resends S3 (cwnd 1), the next ACK lets
    // S4 go again.
    out.clear();
    s.on_segment(
        ms(200),
        &ack(seg_start(3), &[], true, 100_000_000),
        &mut out,
    );
    out.clear();
    let at = s.next_deadline().unwrap();
    s.on_timer(at, &mut out);
    assert!(out.iter().all(|h| h.payload == 0 && h.has(FIN)));
    out.clear();
    let at = s.next_deadline().unwrap();
    s.on_timer(at, &mut out);
    assert_eq!(data_seqs(&out), vec![3]);
    assert!(pushed_seqs(&out).is_empty());
    out.clear();
    s.on_segment(at + ms(100), &ack(seg_start(4), &[], true, at.0), &mut out);
    assert_eq!(data_seqs(&out), vec![4]);
    assert_eq!(pushed_seqs(&out), vec![4]);
}

/// A full data segment `i` from the sender (timestamps on, echoing `tsecr`).
fn data_seg(i: u64, flags: u8, tsecr: SimTime) -> TcpHeader {
    TcpHeader {
        flags: ACK | flags,
        seq: seg_start(i),
        ack: 1,
        payload: MSS as u32,
        has_ts: true,
        tsval: 1,
        tsecr: tsecr.0,
        ..Default::default()
    }
}

#[test]
fn a_linux_receiver_with_push_acks_a_psh_segment_at_once() {
    // Past the 16 quick ACKs: S16 waits for a second segment, S17 is ACKed
    // with it; S18 carries PSH, so once the application has read it the ACK
    // goes at once (tcp_cleanup_rbuf with ICSK_ACK_PUSHED), covering S18
    // alone; S19 waits again. Without `push` S18 waits like S16.
    for push in [true, false] {
        let mut c = profile("linux").unwrap().config;
        fixed_window(&mut c);
        c.push = push;
        let (_, mut r, _) = established(&c, "cubic");
        let seg = |i: u64, flags: u8| data_seg(i, flags, SimTime::ZERO);
        let mut out = vec![];
        for i in 0..16 {
            r.on_segment(ms(200 + i), &seg(i, 0), &mut out);
        }
        out.clear();
        r.on_segment(ms(216), &seg(16, 0), &mut out);
        assert!(out.is_empty());
        r.on_segment(ms(217), &seg(17, 0), &mut out);
        assert_eq!(out.len(), 1);
        out.clear();
        r.on_segment(ms(218), &seg(18, crate::header::PSH), &mut out);
        if push {
            assert_eq!(out.len(), 1, "S18 with PSH ACKed at once");
            assert_eq!(out[0].ack, seg_start(19));
            out.clear();
            r.on_segment(ms(219), &seg(19, 0), &mut out);
            assert!(out.is_empty(), "S19 waits for a second segment");
        } else {
            assert!(out.is_empty(), "without push S18 waits");
        }
    }
}

#[test]
fn timers_fire_at_the_end_of_their_wheel_bucket() {
    // The linux profile (HZ 250, timer_wheel), TLP off: after the
    // handshake (RTT 100 ms at 100 ms) the RTO is 100 + max(2 x 100, 200)
    // = 300 ms = 75 jiffies, armed with IW 10 at 100 ms (tick 25): expiry
    // tick 100, delta 75 in [63, 504): level 1, bucket ((100 >> 3) + 1)
    // << 3 = 104, 416 ms, 16 ms after the nominal 400 ms.
    let mut c = profile("linux").unwrap().config;
    c.tlp = false;
    let (s, _, first) = established(&c, "reno");
    assert_eq!(s.rtt().rto(), ms(300));
    assert_eq!(data_seqs(&first).len(), 10);
    assert_eq!(s.next_deadline(), Some(ms(416)));
    // Without the wheel: exactly 300 ms after.
    c.timer_wheel = false;
    let (s, _, _) = established(&c, "reno");
    assert_eq!(s.next_deadline(), Some(ms(400)));
    // An ACK of new data at 201.5 ms (tick 50) rearms it: the sample,
    // 101.5 ms, moves SRTT to 100.19 ms; the variance keeps its 200 ms
    // floor: RTO 300.19 ms, 76 jiffies (304 ms). Expiry 50 + 76 = 126,
    // level 1: bucket 128, 512 ms.
    let mut c = profile("linux").unwrap().config;
    c.tlp = false;
    let (mut s, _, _) = established(&c, "reno");
    let mut out = vec![];
    s.on_segment(
        SimTime::from_micros(201_500),
        &ack(seg_start(1), &[], true, 100_000_000),
        &mut out,
    );
    assert_eq!(s.rtt().rto(), ms(304));
    assert_eq!(s.next_deadline(), Some(ms(512)));
}

#[test]
fn a_linux_receiver_compresses_sacks_after_three_duplicates() {
    // The linux profile. S0 is lost; S1..S50 arrive 10 us apart from 300
    // ms, echoing a timestamp of 200 ms. S1 establishes the receiver (its
    // handshake sample: 250.01 ms since the SYN-ACK at 50 ms) and samples
    // its RTT from the echo, 100 ms (tcp_rcv_rtt_measure_ts), so the
    // compression timer is min(1 ms, min(250, 100) ms / 20) + 100 us slack
    // = 1.1 ms. No in-order data has arrived, so quick-ACK mode is off. At
    // rcv_nxt = S0 the first three out-of-order segments are ACKed at once
    // (dup_ack_counter), S4..S47 are held (compressed_ack 1..44), S48 finds
    // 44 held and goes at once (tcp_comp_sack_nr), S49 and S50 are held
    // again and go on the timer, 1.1 ms after S49. All extend one SACK
    // block, so none is flushed.
    let mut c = profile("linux").unwrap().config;
    fixed_window(&mut c);
    c.sack_compression = true;
    let (_, mut r, _) = established(&c, "cubic");
    let seg = |i: u64, tsecr: SimTime| data_seg(i, 0, tsecr);
    let t = |i: u64| ms(300) + SimTime(i * 10_000);
    let mut acked = vec![];
    let mut out = vec![];
    for i in 1..=50 {
        r.on_segment(t(i), &seg(i, ms(200)), &mut out);
        if !out.is_empty() {
            acked.push(i);
            assert!(out.iter().all(|h| h.ack == seg_start(0)));
            out.clear();
        }
    }
    assert_eq!(acked, vec![1, 2, 3, 48]);
    assert_eq!(r.next_deadline(), Some(t(49) + SimTime(1_100_000)));
    r.on_timer(t(49) + SimTime(1_099_999), &mut out);
    assert!(out.is_empty());
    r.on_timer(t(49) + SimTime(1_100_000), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].nsack, 1);
    assert_eq!(out[0].sack_block(0), (seg_start(1), seg_start(51)));
    assert_eq!(r.next_deadline(), None);
    // The hole filled: rcv_nxt moves, the ACK goes at once (ICSK_ACK_NOW).
    out.clear();
    r.on_segment(ms(310), &seg(0, ms(200)), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, seg_start(51));
    // No RTT sample yet (segments echoing no new timestamp): rcv_rtt_est
    // is 0, so the delay is 0 and the held ACK goes after the 100 us slack
    // (tcp_dsack_mult.pkt's fourth SACK at "+0").
    let (_, mut r, _) = established(&c, "cubic");
    out.clear();
    for i in 1..=4 {
        r.on_segment(t(i), &seg(i, SimTime::ZERO), &mut out);
    }
    assert_eq!(out.len(), 3);
    assert_eq!(r.next_deadline(), Some(t(4) + SimTime(100_000)));
    // An echo 10 ms back: RTT 10 ms, a delay of 10 / 20 = 0.5 ms, 0.6 ms
    // with the slack.
    let (_, mut r, _) = established(&c, "cubic");
    out.clear();
    for i in 1..=4 {
        r.on_segment(t(i), &seg(i, ms(290)), &mut out);
    }
    assert_eq!(out.len(), 3);
    assert_eq!(r.next_deadline(), Some(t(4) + SimTime(600_000)));
    // A machine whose soft hrtimers run 40 us late (`sack_timer_latency`):
    // the held ACK goes 1.1 ms + 40 us after the fourth segment.
    c.sack_timer_latency = SimTime::from_micros(40);
    let (_, mut r, _) = established(&c, "cubic");
    out.clear();
    for i in 1..=4 {
        r.on_segment(t(i), &seg(i, ms(200)), &mut out);
    }
    assert_eq!(out.len(), 3);
    assert_eq!(r.next_deadline(), Some(t(4) + SimTime(1_140_000)));
    // And their spread (`sack_timer_jitter`, 30 us): each timer fires
    // 1.1 ms + 40 us + U[0, 30 us) after the segment that armed it, drawn
    // from the receiver's stream. Over 400 receivers (one stream each) every
    // deadline lies in the range, the draws cover it (both thirds' ends),
    // and their mean is its middle, 15 us, within four standard errors
    // (30 / sqrt(12 x 400) = 0.43 us).
    c.sack_timer_jitter = SimTime::from_micros(30);
    let mut lates = Vec::new();
    for k in 0..400 {
        let (_, mut r, _) = established(&c, "cubic");
        r.seed_timing(
            tcplab_engine::RngStream::new(7, 1000 + k),
            tcplab_engine::RngStream::new(7, k),
        );
        out.clear();
        for i in 1..=4 {
            r.on_segment(t(i), &seg(i, ms(200)), &mut out);
        }
        let late = r.next_deadline().unwrap().0 - t(4).0 - 1_140_000;
        assert!(late < 30_000, "{late}");
        lates.push(late as f64);
    }
    assert!(lates.iter().any(|&l| l < 10_000.0) && lates.iter().any(|&l| l >= 20_000.0));
    let mean = lates.iter().sum::<f64>() / lates.len() as f64;
    assert!((mean - 15_000.0).abs() < 4.0 * 433.0, "{mean}");
    // Unseeded (no stream given), the timer keeps to its latency.
    let (_, mut r, _) = established(&c, "cubic");
    out.clear();
    for i in 1..=4 {
        r.on_segment(t(i), &seg(i, ms(200)), &mut out);
    }
    assert_eq!(r.next_deadline(), Some(t(4) + SimTime(1_140_000)));
    c.sack_timer_jitter = SimTime::ZERO;
    c.sack_timer_latency = SimTime::ZERO;
    // Without compression every out-of-order segment is ACKed at once.
    c.sack_compression = false;
    let (_, mut r, _) = established(&c, "cubic");
    out.clear();
    let mut n = 0;
    for i in 1..=50 {
        r.on_segment(t(i), &seg(i, ms(200)), &mut out);
        n += out.len();
        out.clear();
    }
    assert_eq!(n, 50);
}

#[test]
fn a_held_sack_goes_first_when_a_segment_lands_in_a_third_block() {
    // Holes at S0, S2-S3, S5-S6: S1, S4, S7 make three blocks, ACKed at
    // once (duplicates 1 to 3); the blocks, most recent first: [S7], [S4],
    // [S1]. No RTT is sampled (no echo), so a held ACK waits only the 100
    // us slack. S8 extends the first block: held. S5 extends the second
    // (this_sack = 1): no flush, held too. S2 extends [S1], now the third
    // (after S5 the order is [S4-S5], [S7-S8], [S1]): this_sack = 2, so
    // the held ACK goes first, without S2 (tcp_sack_new_ofo_skb ->
    // tcp_sack_compress_send_ack), and S2 itself is held on a new timer.
    let mut c = profile("linux").unwrap().config;
    fixed_window(&mut c);
    assert!(c.sack_compression);
    let (_, mut r, _) = established(&c, "cubic");
    let seg = |i: u64| data_seg(i, 0, SimTime::ZERO);
    let us = |x: u64| ms(300) + SimTime(x * 1000);
    let mut out = vec![];
    for (k, i) in [1u64, 4, 7].into_iter().enumerate() {
        r.on_segment(us(10 * k as u64), &seg(i), &mut out);
        assert_eq!(out.len(), 1, "duplicate {} at once", k + 1);
        out.clear();
    }
    r.on_segment(us(30), &seg(8), &mut out);
    assert!(out.is_empty(), "S8 held");
    assert_eq!(r.next_deadline(), Some(us(130)));
    r.on_segment(us(40), &seg(5), &mut out);
    assert!(out.is_empty(), "S5, in the second block, held");
    assert_eq!(r.next_deadline(), Some(us(130)), "the pending timer kept");
    r.on_segment(us(50), &seg(2), &mut out);
    assert_eq!(out.len(), 1, "the held ACK goes first");
    let blocks: Vec<_> = out[0].sack_blocks();
    assert_eq!(
        blocks,
        vec![
            (seg_start(4), seg_start(6)),
            (seg_start(7), seg_start(9)),
            (seg_start(1), seg_start(2))
        ]
    );
    assert_eq!(r.next_deadline(), Some(us(150)));
}

/// A linux receiver past its quick ACKs: S0..S15 in order at 200..215 ms
/// (the first, S0, also gives the handshake sample: 150 ms since the
/// SYN-ACK at 50 ms, so the receiver's RTO is 150 + max(300, 200) = 450
/// ms), each ACKed at once by one of the 16 quick ACKs it grants.
fn linux_receiver_past_quick_acks() -> Receiver {
    let mut c = profile("linux").unwrap().config;
    fixed_window(&mut c);
    assert!(c.sack_compression && c.adaptive_delack);
    let (_, mut r, _) = established(&c, "cubic");
    let mut out = vec![];
    for i in 0..16 {
        r.on_segment(ms(200 + i), &data_seg(i, 0, SimTime::ZERO), &mut out);
    }
    assert_eq!(out.len(), 16);
    r
}

/// Feeds `order` (segment numbers) to `r` at `at(k)` and returns, for each
/// segment ACKed at once, its number and the ACK's cumulative number.
fn acked_at_once(
    r: &mut Receiver,
    order: &[u64],
    at: impl Fn(usize) -> SimTime,
) -> Vec<(u64, u64)> {
    let mut out = vec![];
    let mut at_once = vec![];
    for (k, &i) in order.iter().enumerate() {
        r.on_segment(at(k), &data_seg(i, 0, SimTime::ZERO), &mut out);
        if !out.is_empty() {
            at_once.push((i, out[0].ack));
            out.clear();
        }
    }
    at_once
}

#[test]
fn a_one_segment_repair_counts_as_the_first_duplicate_at_the_new_rcv_nxt() {
    // Past the quick ACKs, S16 and S17 are lost; S18, S19, S20 arrive
    // (three duplicates at rcv_nxt = S16, at once), S21 is held. The
    // repair S16, 85 ms after the last in-order data (S15; under the 450
    // ms RTO, so no quick ACKs), moves rcv_nxt to S17, one segment (not
    // more than one rcv_mss): Linux's __tcp_ack_snd_check takes the
    // compression path, which sends it at once as the first duplicate at
    // the new rcv_nxt (dup_ack_counter 1). So S22 and S23 go at once (2
    // and 3) and S24 is held: two immediate ACKs after the repair's, not
    // three.
    let mut r = linux_receiver_past_quick_acks();
    let us = |k: usize| ms(300) + SimTime(10_000 * k as u64);
    let at_once = acked_at_once(&mut r, &[18, 19, 20, 21, 16, 22, 23, 24], us);
    let (s16, s17) = (seg_start(16), seg_start(17));
    assert_eq!(
        at_once,
        vec![
            (18, s16),
            (19, s16),
            (20, s16),
            (16, s17),
            (22, s17),
            (23, s17)
        ]
    );
}

#[test]
fn a_repair_of_several_segments_counts_as_the_first_duplicate_too() {
    // Past the quick ACKs, S16 and S19 are lost; S17, S18, S20 arrive
    // (three duplicates at rcv_nxt = S16, at once), S21 is held. The
    // repair S16 moves rcv_nxt over S17 and S18 to S19, three segments,
    // with S19 still missing. Linux's first rule (more than one rcv_mss
    // in order since the last ACK) also needs the window now advertised
    // to be at least the last one, which the held data has made smaller:
    // the repair takes the compression path as the first duplicate at
    // S19, sent at once; S22 and S23 go at once (2 and 3) and S24 is
    // held. (The kernel's receivers in linux-check's captures: two
    // immediate ACKs after such a repair in 94-98 % of cases.)
    let mut r = linux_receiver_past_quick_acks();
    let us = |k: usize| ms(300) + SimTime(10_000 * k as u64);
    let at_once = acked_at_once(&mut r, &[17, 18, 20, 21, 16, 22, 23, 24], us);
    let (s16, s19) = (seg_start(16), seg_start(19));
    assert_eq!(
        at_once,
        vec![
            (17, s16),
            (18, s16),
            (20, s16),
            (16, s19),
            (22, s19),
            (23, s19)
        ]
    );
}

#[test]
fn a_repair_after_a_hole_held_longer_than_the_rto_grants_quick_acks() {
    // As above, but the repair S16 arrives at 700 ms, 485 ms after the last
    // in-order data (S15 at 215 ms): more than the receiver's 450 ms RTO.
    // tcp_data_queue calls tcp_event_data_recv for the repair as for any
    // in-order data, and its "too long gap" grants min(rcv_wnd / (2 mss),
    // 16) = 16 quick ACKs (tcp_incr_quickack). So the repair's ACK and
    // every later out-of-order segment at rcv_nxt = S17 go at once
    // (tcp_in_quickack_mode comes before the SACK compression in
    // __tcp_ack_snd_check), S24 included. At 600 ms (a 385 ms gap) the
    // repair grants none and S24 is held.
    for (repair_at, s24_at_once) in [(ms(700), true), (ms(600), false)] {
        let mut r = linux_receiver_past_quick_acks();
        let at = |k: usize| match k {
            0..=3 => ms(300) + SimTime(10_000 * k as u64),
            _ => repair_at + SimTime(10_000 * (k - 4) as u64),
        };
        let at_once = acked_at_once(&mut r, &[18, 19, 20, 21, 16, 22, 23, 24], at);
        let (s16, s17) = (seg_start(16), seg_start(17));
        let mut want = vec![
            (18, s16),
            (19, s16),
            (20, s16),
            (16, s17),
            (22, s17),
            (23, s17),
        ];
        if s24_at_once {
            want.push((24, s17));
        }
        assert_eq!(at_once, want, "repair at {repair_at:?}");
    }
}

/// A Reno-like controller (ssthresh cwnd / 2, no growth) that records the
/// sender's calls of `ssthresh`, `set_state` and `CA_EVENT_LOSS`.
#[derive(Default)]
struct LossCalls {
    ssthresh: u32,
    states: Vec<CaState>,
    loss_events: u32,
}

struct LossRecorder(std::rc::Rc<std::cell::RefCell<LossCalls>>);

impl crate::cc::CongestionControl for LossRecorder {
    fn name(&self) -> &'static str {
        "loss-recorder"
    }
    fn ssthresh(&mut self, tp: &crate::cc::CcState) -> u32 {
        self.0.borrow_mut().ssthresh += 1;
        (tp.cwnd / 2).max(2)
    }
    fn cong_avoid(&mut self, _tp: &mut crate::cc::CcState, _acked: u32) {}
    fn set_state(&mut self, _tp: &mut crate::cc::CcState, new: CaState) {
        self.0.borrow_mut().states.push(new);
    }
    fn cwnd_event(&mut self, _tp: &mut crate::cc::CcState, ev: CwndEvent) {
        if ev == CwndEvent::Loss {
            self.0.borrow_mut().loss_events += 1;
        }
    }
}

#[test]
fn a_linux_timeout_in_a_fast_recovery_keeps_its_ssthresh_and_calls_set_state_each_time() {
    // Linux tcp_enter_loss: a timeout while the recovery's high_seq is ahead
    // of snd_una takes no new ssthresh, undo state or CA_EVENT_LOSS, nor does
    // a second one without progress; tcp_set_ca_state calls set_state(Loss)
    // each time. After snd_una advances (icsk_retransmits 0) the next timeout
    // reduces again. Off (RFC 5681 (4)): the first timeout reduces from the
    // window the recovery left, later backoffs hold, set_state on changes only.
    for linux in [true, false] {
        let calls = std::rc::Rc::new(std::cell::RefCell::new(LossCalls::default()));
        let (mut s, first) = linux_ten_out(Box::new(LossRecorder(calls.clone())), |c| {
            c.tlp = false;
            c.linux_enter_loss = linux;
        });
        let ts0 = first[0].tsval;
        let mut out = vec![];
        // Segments 1-3 SACKed 100 ms after they left: 0 is lost (RACK, three
        // SACKed: no reordering window); recovery from cwnd 10: ssthresh 5.
        s.on_segment(
            ms(200),
            &ack(1, &[(seg_start(1), seg_start(4))], true, ts0),
            &mut out,
        );
        assert_eq!(s.ca_state(), CaState::Recovery);
        assert_eq!((s.tp.ssthresh, s.tp.prior_cwnd), (5, 10));
        assert_eq!(calls.borrow().states, [CaState::Recovery]);
        // First timeout, in the recovery.
        let cwnd_at_rto = s.tp.cwnd;
        let t1 = s.rto_deadline().expect("the RTO runs");
        s.on_timer(t1, &mut out);
        assert_eq!(s.ca_state(), CaState::Loss);
        let k = calls.borrow();
        if linux {
            assert_eq!((s.tp.ssthresh, s.tp.prior_cwnd), (5, 10));
            assert_eq!((k.ssthresh, k.loss_events), (1, 0));
        } else {
            assert_eq!(s.tp.ssthresh, (cwnd_at_rto / 2).max(2));
            assert_eq!(s.tp.prior_cwnd, cwnd_at_rto);
            assert_eq!((k.ssthresh, k.loss_events), (2, 1));
        }
        assert_eq!(k.states, [CaState::Recovery, CaState::Loss]);
        drop(k);
        // Second timeout, no ACK in between.
        let t2 = s.rto_deadline().expect("the RTO runs again");
        s.on_timer(t2, &mut out);
        let k = calls.borrow();
        assert_eq!(k.loss_events, if linux { 0 } else { 2 });
        if linux {
            assert_eq!(s.tp.ssthresh, 5);
            assert_eq!(k.ssthresh, 1);
            assert_eq!(k.states, [CaState::Recovery, CaState::Loss, CaState::Loss]);
        } else {
            assert_eq!(s.tp.ssthresh, (cwnd_at_rto / 2).max(2));
            assert_eq!(k.ssthresh, 2);
            assert_eq!(k.states, [CaState::Recovery, CaState::Loss]);
        }
        drop(k);
        // The retransmitted 0 is acknowledged (snd_una advances), then a
        // third timeout: a new reduction from the window then (Loss,
        // icsk_retransmits 0; RFC 5681: the backoff was cleared by the sample).
        let una = seg_start(1);
        let tsr = out.last().map(|h| h.tsval).unwrap();
        s.on_segment(
            t2 + ms(100),
            &ack(una, &[(seg_start(1), seg_start(4))], true, tsr),
            &mut out,
        );
        let cwnd = s.tp.cwnd;
        let t3 = s.rto_deadline().expect("the RTO runs for the rest");
        s.on_timer(t3, &mut out);
        assert_eq!(s.tp.ssthresh, (cwnd / 2).max(2));
        let k = calls.borrow();
        assert_eq!(k.ssthresh, if linux { 2 } else { 3 });
        // RFC 5681's path signals CA_EVENT_LOSS at every timeout.
        assert_eq!(k.loss_events, if linux { 1 } else { 3 });
        s.check_invariants();
    }
}

#[test]
fn a_dsack_counts_its_duplicate_as_delivered_once_per_retransmission() {
    // Linux tcp_dsack_seen: "a spurious retransmission is delivered": the
    // D-SACKed segment adds to tp->delivered (sack_delivered, counted by
    // tcp_ack), unless more duplicates are reported than were ever
    // retransmitted (dsack_dups > total_retrans). rack-tlp.md 5.3's run:
    // segments 0-7 ACKed, the probe resends 9, the late ACK covers 8 and 9,
    // the next ACK covers 10 and D-SACKs 9.
    for dsack in [true, false] {
        let mut s = linux_rack_tail_with(|c| c.dsack = dsack);
        let mut out = vec![];
        for k in 0..8 {
            s.on_segment(ms(200 + k), &tail_ack(seg_start(k + 1), &[]), &mut out);
        }
        assert_eq!(s.tp.delivered, 8);
        let t_probe = s.next_deadline().unwrap();
        s.on_timer(t_probe, &mut out);
        assert_eq!((s.stats.loss_probes, s.stats.segs_retrans), (1, 1));
        s.on_segment(t_probe + ms(1), &ack(seg_start(10), &[], true, 1), &mut out);
        assert_eq!(s.tp.delivered, 10);
        let d = ack(seg_start(11), &[(seg_start(9), seg_start(10))], true, 1);
        s.on_segment(t_probe + ms(100), &d, &mut out);
        // Segment 10, plus the duplicate of 9 with D-SACK.
        assert_eq!(s.tp.delivered, 11 + u64::from(dsack), "dsack {dsack}");
        // The same D-SACK again: a second duplicate of one retransmission.
        s.on_segment(t_probe + ms(101), &d, &mut out);
        assert_eq!(s.tp.delivered, 11 + u64::from(dsack), "dsack {dsack}");
        s.check_invariants();
    }
}

#[test]
fn the_rate_sample_of_an_ack_of_a_retransmission_takes_the_timestamp_rtt_as_linux() {
    // tcp_clean_rtx_queue: an ACK covering a retransmitted segment
    // (FLAG_RETRANS_DATA_ACKED) and SACKing nothing new has no ca_rtt_us of
    // its own; tcp_ack_update_rtt then takes the timestamp echo, in ms, for
    // both the RTT and rs->rtt_us (what BBR's min_rtt filter reads). Segment
    // 0 of 10 is lost; 1-9 are SACKed at 200 ms; 0 is resent; the ACK of
    // everything at 330 ms echoes the retransmission's TSval: 130 ms.
    let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let (mut s, first) = linux_ten_out(Box::new(Recorder(log.clone())), |c| c.tlp = false);
    let ts0 = first[0].tsval;
    let mut out = vec![];
    s.on_segment(
        ms(200),
        &ack(1, &[(seg_start(1), seg_start(10))], true, ts0),
        &mut out,
    );
    let retx = out
        .iter()
        .find(|h| h.payload > 0 && h.seq == seg_start(0))
        .copied()
        .expect("segment 0 resent");
    assert_eq!(retx.tsval / 1_000_000, 200);
    let n = log.borrow().len();
    s.on_segment(
        ms(330),
        &ack(seg_start(10), &[], true, retx.tsval),
        &mut out,
    );
    let log = log.borrow();
    assert_eq!(log.len(), n + 1);
    assert_eq!(log[n].rtt, Some(ms(130)));
}

/// The `linux` profile's receive window (`buffer_accounting = "linux"`,
/// crate::rcvwnd) with a fixed buffer of tcp_rmem[1] (`rcvbuf` 131072:
/// nothing to autotune) and an application that reads 50 us after a
/// segment arrives. Worked from Linux's rules (rcvwnd.rs's header): the
/// first full segment measures the scaling ratio, 1448 x 256 / 2304 = 160,
/// so the full space is 131072 x 160 / 256 = 81920, and rcv_ssthresh grows
/// from the SYN-ACK's 65160 by 2896 a segment, each growth a quick ACK,
/// until it meets the free space with one segment held, 80480 (after
/// S0..S5: 65160 + 5 x 2896 > 80480). From then on the ACK of every second
/// segment leaves at once (the window it would offer, 80480 rounded up to
/// the 4-byte unit of window scale 2, is the one last offered). One
/// out-of-order segment, charged after its growth, lifts rcv_ssthresh to
/// 81920; its repair is ACKed at once with two segments held (79040
/// offered), and the next pair's ACK still leaves at once (80480 with one
/// held is not less). Then a pair whose second segment arrives before the
/// first is read fails the test (79040 < 80480): the read ACKs it with
/// nothing held and offers 81920, and from then on every second segment's
/// ACK waits for the read (80480 < 81920).
#[test]
fn a_linux_receiver_acks_at_once_until_its_window_outgrows_the_free_buffer() {
    let mut c = profile("linux").unwrap().config;
    assert_eq!(c.buffer_accounting, crate::profile::BufferAccounting::Linux);
    c.rcvbuf = crate::rcvwnd::RMEM_DEFAULT;
    c.read_latency = SimTime::from_micros(50);
    c.adaptive_delack = false; // no quick ACKs but the window's own
    let (_, mut r, _) = established(&c, "cubic");
    let seg = |i: u64| data_seg(i, 0, SimTime::ZERO);
    let mut out = vec![];
    // S0..S5: each grows rcv_ssthresh and is ACKed at once (quick ACK).
    for i in 0..6 {
        out.clear();
        r.on_segment(ms(200 + 2 * i), &seg(i), &mut out);
        assert_eq!(out.len(), 1, "S{i} ACKed at once while the window grows");
        r.on_timer(ms(200 + 2 * i) + SimTime::from_micros(50), &mut out);
    }
    // From S6 on, pairs: the second ACKed at once, the first not at all.
    let mut t = ms(220);
    let step = |r: &mut Receiver, i: u64, t: &mut SimTime| -> (usize, usize) {
        let mut out = vec![];
        r.on_segment(*t, &seg(i), &mut out);
        let at_once = out.len();
        out.clear();
        r.on_timer(*t + SimTime::from_micros(50), &mut out);
        *t += ms(1);
        (at_once, out.len())
    };
    for i in 6..12 {
        let (now, read) = step(&mut r, i, &mut t);
        assert_eq!((now, read), ((i % 2 == 1) as usize, 0), "S{i}");
    }
    // S13 out of order (S12 lost): ACKed at once (SACK), lifts rcv_ssthresh.
    let (now, _) = step(&mut r, 13, &mut t);
    assert_eq!(now, 1);
    // S12 repairs the hole: ACKed at once.
    let (now, _) = step(&mut r, 12, &mut t);
    assert_eq!(now, 1);
    // S14 (first of a pair) then S15: the second's ACK still goes at once.
    assert_eq!(step(&mut r, 14, &mut t), (0, 0));
    assert_eq!(step(&mut r, 15, &mut t), (1, 0));
    // A read-time ACK: S16 arrives, S17 arrives before S16 is read (two
    // segments held): the test fails, the read ACKs with nothing held and
    // offers 81920.
    let mut out = vec![];
    r.on_segment(t, &seg(16), &mut out);
    r.on_segment(t + SimTime::from_micros(10), &seg(17), &mut out);
    assert!(out.is_empty());
    r.on_timer(t + SimTime::from_micros(50), &mut out);
    assert_eq!(out.len(), 1, "the read ACKs S16-S17");
    assert_eq!((out[0].wnd as u64) << 2, 81_920);
    t += ms(1);
    // From now on the second segment's ACK waits for the read.
    for i in 18..24 {
        let (now, read) = step(&mut r, i, &mut t);
        assert_eq!((now, read), (0, (i % 2 == 1) as usize), "S{i}");
    }
}
