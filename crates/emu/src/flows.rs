//! A run on the real stack: namespaces up, emulator started, flows as real
//! sockets, `TCP_INFO` and the receivers' byte counts sampled, and the
//! result assembled as the simulator's `RunResult`.
//!
//! Each flow's sender binds port 10000 + its index and connects to port 5001
//! of its receiver, as in the simulator's captures; the receiver knows the
//! flow by that port. A sampler thread reads, every 10 ms and at every phase
//! boundary, each sender's `TCP_INFO` and each receiver's byte count; what it
//! reads at the boundaries makes the flows and phases tables, what it reads
//! on the trace interval the cwnd trace.

use crate::emulator::{self, EmuInput, EmuReport};
use crate::netns::{HostNs, THREAD_PREFIX};
use crate::settings::Plan;
use crate::sys;
use crate::tcpinfo::{parse_bbr_info, TcpInfo};
use crate::BackendError;
use socket2::{Domain, SockAddr, Socket, Type};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tcplab_engine::SimTime;
use tcplab_model::pcap::{node_ip, sender_conn, sender_port, RECEIVER_PORT};
use tcplab_model::schema::Scenario;
use tcplab_model::stats::Summary;
use tcplab_model::*;

/// RTT statistics sample the smoothed RTT this often (ns).
const RTT_PERIOD: u64 = 10_000_000;
/// Blocking socket calls wake this often to notice the end of the run.
const POLL: Duration = Duration::from_millis(50);
const NONE: u64 = u64::MAX;

struct Shared {
    epoch: Instant,
    stop: AtomicBool,
    rx_bytes: Vec<AtomicU64>,
    done_ns: Vec<AtomicU64>,
    syn_ns: Vec<AtomicU64>,
    socks: Vec<Mutex<Option<Socket>>>,
    /// Each generated connection's last `TCP_INFO` (index: arrival order).
    gen_info: Vec<Mutex<Option<TcpInfo>>>,
    errors: Mutex<Vec<String>>,
}

impl Shared {
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
    fn sleep_until(&self, t: u64) -> bool {
        loop {
            if self.stopped() {
                return false;
            }
            let now = self.now();
            if now >= t {
                return true;
            }
            std::thread::sleep(Duration::from_nanos((t - now).min(POLL.as_nanos() as u64)));
        }
    }
    fn fail(&self, msg: String) {
        self.errors.lock().expect("errors lock").push(msg);
    }
}

fn addr(node: u32, port: u16) -> SockAddr {
    let ip = node_ip(node);
    SocketAddrV4::new(Ipv4Addr::new(ip[0], ip[1], ip[2], ip[3]), port).into()
}

/// What a sender or receiver socket needs of its host.
#[derive(Clone)]
struct SockOpts {
    cc: String,
    sndbuf: Option<u64>,
    rcvbuf: Option<u64>,
}

fn new_socket(o: &SockOpts) -> std::io::Result<Socket> {
    let s = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    s.set_reuse_address(true)?;
    s.set_tcp_congestion(o.cc.as_bytes())?;
    if let Some(b) = o.sndbuf {
        s.set_send_buffer_size(b as usize)?;
    }
    if let Some(b) = o.rcvbuf {
        s.set_recv_buffer_size(b as usize)?;
    }
    Ok(s)
}

/// One flow's sender: flow index, hosts, start and stop (ns), size.
struct SenderJob {
    f: usize,
    src: u32,
    dst: u32,
    start: u64,
    size: Option<u64>,
    stop: u64,
    o: SockOpts,
    name: String,
    /// For a generated connection, its index among the arrivals.
    gen: Option<usize>,
}

fn sender(sh: Arc<Shared>, job: SenderJob) {
    let SenderJob {
        f,
        src,
        dst,
        start,
        size,
        stop,
        o,
        name,
        gen,
    } = job;
    if !sh.sleep_until(start) {
        return;
    }
    let s = match new_socket(&o).and_then(|s| s.bind(&addr(src, sender_port(f as u32))).map(|_| s))
    {
        Ok(s) => s,
        Err(e) => return sh.fail(format!("flow {name}: cannot open its socket: {e}")),
    };
    sh.syn_ns[f].store(sh.now(), Ordering::Relaxed);
    // A connection whose SYNs are lost keeps trying (the kernel's SYN
    // retransmissions) until the run ends: no error, just no data.
    if let Err(e) = connect(&sh, &s, &addr(dst, RECEIVER_PORT)) {
        sh.fail(format!("flow {name}: cannot connect: {e}"));
        return;
    }
    if sh.stopped() {
        return;
    }
    if gen.is_none() {
        match s.try_clone() {
            Ok(c) => *sh.socks[f].lock().expect("socks lock") = Some(c),
            Err(e) => return sh.fail(format!("flow {name}: {e}")),
        }
    }
    let _ = s.set_write_timeout(Some(POLL));
    let buf = vec![0u8; 1 << 16];
    let mut left = size.unwrap_or(u64::MAX);
    let mut w: &Socket = &s;
    while left > 0 && !sh.stopped() && sh.now() < stop {
        let n = left.min(buf.len() as u64) as usize;
        match w.write(&buf[..n]) {
            Ok(k) => left -= k as u64,
            Err(e) if transient(&e) => {}
            Err(e) => {
                if !sh.stopped() {
                    sh.fail(format!("flow {name}: write failed: {e}"));
                }
                return;
            }
        }
    }
    if !sh.stopped() {
        let _ = s.shutdown(std::net::Shutdown::Write);
    }
    if let Some(k) = gen {
        // The counters once the receiver has every byte (or at the end).
        while sh.done_ns[f].load(Ordering::Relaxed) == NONE && sh.sleep_until(sh.now() + 10_000_000)
        {
        }
        if let Ok(b) = sys::tcp_info(s.as_raw_fd()) {
            *sh.gen_info[k].lock().expect("gen_info lock") = Some(TcpInfo::parse(&b));
        }
    }
}

/// Start each generated connection of one sending host at its arrival time.
fn dispatcher(sh: Arc<Shared>, jobs: Vec<SenderJob>) {
    let mut threads = Vec::with_capacity(jobs.len());
    for job in jobs {
        if !sh.sleep_until(job.start) {
            break;
        }
        let sh2 = Arc::clone(&sh);
        let name = format!("{THREAD_PREFIX}gen-{}", job.f);
        match std::thread::Builder::new()
            .name(name)
            .spawn(move || sender(sh2, job))
        {
            Ok(t) => threads.push(t),
            Err(e) => {
                sh.fail(format!("cannot start a generated connection's thread: {e}"));
                break;
            }
        }
        // Join the finished ones as we go (a long run opens thousands).
        threads.retain(|t: &std::thread::JoinHandle<()>| !t.is_finished());
    }
    for t in threads {
        let _ = t.join();
    }
}

/// Connect without blocking past the end of the run: Ok also when the run
/// ends first. The socket is waited on (`poll`, writable once the handshake
/// is done), so the first write follows the handshake at once, as an
/// application's blocking `connect()` would.
fn connect(sh: &Shared, s: &Socket, to: &SockAddr) -> std::io::Result<()> {
    s.set_nonblocking(true)?;
    match s.connect(to) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => loop {
            if sh.stopped() {
                return Ok(());
            }
            let ready = sys::wait_fd(s.as_raw_fd(), libc::POLLOUT, POLL)?;
            if let Some(e) = s.take_error()? {
                return Err(e);
            }
            if ready && s.peer_addr().is_ok() {
                break;
            }
        },
        Err(e) => return Err(e),
    }
    s.set_nonblocking(false)
}

/// A blocking call that timed out (to look at the stop flag) or was interrupted.
fn transient(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock
            | std::io::ErrorKind::TimedOut
            | std::io::ErrorKind::Interrupted
    )
}

fn reader(sh: Arc<Shared>, f: usize, mut s: Socket, size: Option<u64>, keep: bool) {
    let _ = s.set_read_timeout(Some(POLL));
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    while !sh.stopped() {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                total += n as u64;
                sh.rx_bytes[f].store(total, Ordering::Relaxed);
                if size == Some(total) {
                    sh.done_ns[f].store(sh.now(), Ordering::Relaxed);
                }
            }
            Err(e) if transient(&e) => {}
            Err(_) => break,
        }
    }
    // Keep a scenario flow's socket open until the run ends (its window
    // stays advertised); a generated connection closes when it is done.
    while keep && !sh.stopped() {
        std::thread::sleep(POLL);
    }
}

fn acceptor(
    sh: Arc<Shared>,
    l: Socket,
    sizes: Vec<Option<u64>>,
    n_flows: usize,
    threads: Arc<Mutex<Vec<std::thread::JoinHandle<()>>>>,
) {
    let _ = l.set_nonblocking(true);
    while !sh.stopped() {
        match l.accept() {
            Ok((s, peer)) => {
                let _ = s.set_nonblocking(false);
                let port = peer.as_socket_ipv4().map_or(0, |a| a.port());
                let Some(f) = sender_conn(port, sizes.len()) else {
                    continue;
                };
                let f = f as usize;
                let sh2 = Arc::clone(&sh);
                let size = sizes[f];
                let t = std::thread::Builder::new()
                    .name(format!("{THREAD_PREFIX}rx-{f}"))
                    .spawn(move || reader(sh2, f, s, size, f < n_flows));
                match t {
                    Ok(t) => {
                        let mut ts = threads.lock().expect("threads lock");
                        ts.retain(|t| !t.is_finished());
                        ts.push(t)
                    }
                    Err(e) => sh.fail(format!("cannot start a receiver thread: {e}")),
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                // Wait for the next connection (or the end of the run).
                if let Err(e) = sys::wait_fd(l.as_raw_fd(), libc::POLLIN, POLL) {
                    sh.fail(format!("waiting for connections failed: {e}"));
                    return;
                }
            }
            Err(e) => {
                sh.fail(format!("accept failed: {e}"));
                return;
            }
        }
    }
}

struct Sampled {
    snaps: Vec<Vec<FlowSnap>>,
    rtts: Vec<Summary>,
    last: Vec<Option<TcpInfo>>,
    cwnd: Option<CwndTrace>,
}

/// TcpExt counters read per host at the end: recoveries, undos, spurious
/// RTOs, out-of-order prunes.
const RECOVERIES: &[&str] = &["TCPSackRecovery", "TCPRenoRecovery"];
const UNDOS: &[&str] = &[
    "TCPFullUndo",
    "TCPPartialUndo",
    "TCPDSACKUndo",
    "TCPLossUndo",
];
const SPURIOUS: &[&str] = &["TCPSpuriousRTOs"];
const PROBES: &[&str] = &["TCPLossProbes"];
const PROBE_RECOVERIES: &[&str] = &["TCPLossProbeRecovery"];
const PRUNES: &[&str] = &["OfoPruned"];

fn sampler(sh: Arc<Shared>, sc: Scenario) -> Sampled {
    let n = sc.flows.len();
    // BBR senders' model (TCP_CC_INFO) goes into the cwnd trace.
    let bbr = |f: usize| sc.hosts[sc.flows[f].src as usize].cc == "bbr";
    let mut out = Sampled {
        snaps: vec![Vec::with_capacity(sc.phases.len()); n],
        rtts: vec![Summary::new(); n],
        last: vec![None; n],
        cwnd: sc.trace.cwnd.then(CwndTrace::default),
    };
    let interval = sc.trace.interval.0.max(1);
    let (mut next_rtt, mut next_trace, mut next_phase) = (0u64, 0u64, 0usize);
    let end = sc.measure_end.0;
    loop {
        let phase_t = sc.phases.get(next_phase).map_or(NONE, |t| t.0);
        let trace_t = if out.cwnd.is_some() && next_trace <= end {
            next_trace
        } else {
            NONE
        };
        let t = next_rtt.min(trace_t).min(phase_t);
        if t > end || !sh.sleep_until(t) {
            break;
        }
        for f in 0..n {
            let (info, model) = {
                let sock = sh.socks[f].lock().expect("socks lock");
                let fd = sock.as_ref().map(|s| s.as_raw_fd());
                let info = fd
                    .and_then(|fd| sys::tcp_info(fd).ok())
                    .map(|b| TcpInfo::parse(&b));
                let model = fd
                    .filter(|_| t == trace_t && bbr(f))
                    .and_then(|fd| sys::tcp_cc_info(fd).ok())
                    .and_then(|(len, b)| parse_bbr_info(len, &b));
                (info, model)
            };
            if let Some(i) = info {
                out.last[f] = Some(i);
            }
            if t == next_rtt && t >= sc.measure_start.0 && t < end {
                if let Some(i) = info.filter(|i| i.rtt_us > 0) {
                    out.rtts[f].add(i.rtt_us as f64 * 1e-6);
                }
            }
            if t == trace_t {
                if let (Some(tr), Some(i)) = (out.cwnd.as_mut(), info) {
                    tr.time_s.push(t as f64 * 1e-9);
                    tr.flow.push(f as u32);
                    tr.cwnd.push(i.cwnd);
                    tr.ssthresh.push(if i.ssthresh >= 0x7fff_ffff {
                        u32::MAX
                    } else {
                        i.ssthresh
                    });
                    tr.srtt_s.push(if i.rtt_us > 0 {
                        i.rtt_us as f64 * 1e-6
                    } else {
                        f64::NAN
                    });
                    tr.inflight_bytes
                        .push(i.in_flight() as u64 * i.snd_mss as u64);
                    tr.rto_s.push(i.rto_us as f64 * 1e-6);
                    tr.backoff.push(i.backoff as u32);
                    tr.pacing_rate_bps.push(match i.pacing_rate {
                        0 | u64::MAX => f64::NAN,
                        r => r as f64 * 8.0,
                    });
                    tr.ca_state.push(i.ca_state as u32);
                    tr.push_model(model);
                }
            }
            if t == phase_t {
                let i = out.last[f].unwrap_or_default();
                out.snaps[f].push(FlowSnap {
                    delivered: sh.rx_bytes[f].load(Ordering::Relaxed),
                    segs_sent: i.data_segs_out as u64,
                    segs_retrans: i.total_retrans as u64,
                    timeouts: i.total_rto as u64,
                });
            }
        }
        if t == next_rtt {
            next_rtt += RTT_PERIOD;
        }
        if t == trace_t {
            next_trace += interval;
        }
        if t == phase_t {
            next_phase += 1;
        }
    }
    out
}

/// Run a checked scenario.
pub fn run(
    sc: &Scenario,
    seed: u64,
    plan: Plan,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<RunResult, BackendError> {
    let wall = Instant::now();
    let mut hosts = Vec::with_capacity(plan.hosts.len());
    for h in &plan.hosts {
        hosts.push(HostNs::start(h.setup.clone()).map_err(BackendError)?);
    }
    let starts = tcplab_model::flow_starts(sc, seed);
    let n = sc.flows.len();
    let arrivals = tcplab_model::generator_arrivals(sc, seed);
    // Sender ports are 10000 + the connection's number, below 60000.
    if n + arrivals.len() > 50_000 {
        return Err(BackendError(format!(
            "the traffic generators open {} connections in this run (seed {seed}); the linux \
             backend gives each a port of its own and has room for {} (lower the rate or \
             the duration)",
            arrivals.len(),
            50_000 - n
        )));
    }
    let n_all = n + arrivals.len();
    // Time zero: a little after the set-up, so that flows starting at 0 find
    // their receivers listening.
    let epoch = Instant::now() + Duration::from_millis(50);
    let sh = Arc::new(Shared {
        epoch,
        stop: AtomicBool::new(false),
        rx_bytes: (0..n_all).map(|_| AtomicU64::new(0)).collect(),
        done_ns: (0..n_all).map(|_| AtomicU64::new(NONE)).collect(),
        syn_ns: (0..n_all).map(|_| AtomicU64::new(NONE)).collect(),
        socks: (0..n).map(|_| Mutex::new(None)).collect(),
        gen_info: (0..arrivals.len()).map(|_| Mutex::new(None)).collect(),
        errors: Mutex::new(Vec::new()),
    });
    let opts = |h: usize| SockOpts {
        cc: plan.hosts[h].cc.clone(),
        sndbuf: plan.hosts[h].sndbuf,
        rcvbuf: plan.hosts[h].rcvbuf,
    };
    let threads: Arc<Mutex<Vec<std::thread::JoinHandle<()>>>> = Arc::default();
    let emu_stop = Arc::new(AtomicBool::new(false));
    let tuns = hosts
        .iter()
        .map(|h| h.tun.as_ref().expect("tun").as_raw_fd())
        .collect();
    let emu = {
        let sc2 = sc.clone();
        let stop = Arc::clone(&emu_stop);
        std::thread::Builder::new()
            .name(format!("{THREAD_PREFIX}emulator"))
            .spawn(move || {
                emulator::run(EmuInput {
                    sc: &sc2,
                    seed,
                    epoch,
                    tuns,
                    stop,
                })
            })
            .map_err(|e| BackendError(format!("cannot start the emulator thread: {e}")))?
    };
    let setup = (|| -> Result<(), String> {
        // Receivers: one listening socket per host that receives.
        let sizes: Vec<Option<u64>> = sc
            .flows
            .iter()
            .map(|f| f.size)
            .chain(arrivals.iter().map(|a| Some(a.bytes)))
            .collect();
        for (hi, h) in hosts.iter().enumerate() {
            if !sc.flows.iter().any(|f| f.dst as usize == hi)
                && !arrivals.iter().any(|a| a.dst as usize == hi)
            {
                continue;
            }
            let o = opts(hi);
            let node = hi as u32;
            let l = h
                .run_in(move || -> std::io::Result<Socket> {
                    let s = new_socket(&o)?;
                    s.bind(&addr(node, RECEIVER_PORT))?;
                    s.listen(1024)?;
                    Ok(s)
                })?
                .map_err(|e| {
                    format!(
                        "host {}: cannot listen on port {RECEIVER_PORT}: {e}",
                        h.name
                    )
                })?;
            let (sh2, sizes2, th2) = (Arc::clone(&sh), sizes.clone(), Arc::clone(&threads));
            let t = h.spawn(format!("{THREAD_PREFIX}accept-{hi}"), move || {
                acceptor(sh2, l, sizes2, n, th2)
            })?;
            threads.lock().expect("threads lock").push(t);
        }
        for (i, f) in sc.flows.iter().enumerate() {
            let h = &hosts[f.src as usize];
            let job = SenderJob {
                f: i,
                src: f.src,
                dst: f.dst,
                start: starts[i].0,
                size: f.size,
                stop: f.stop.map_or(NONE, |t| t.0),
                o: opts(f.src as usize),
                name: f.name.clone(),
                gen: None,
            };
            let sh2 = Arc::clone(&sh);
            let t = h.spawn(format!("{THREAD_PREFIX}tx-{i}"), move || sender(sh2, job))?;
            threads.lock().expect("threads lock").push(t);
        }
        // Generated connections: a dispatcher per sending host.
        for (hi, h) in hosts.iter().enumerate() {
            let jobs: Vec<SenderJob> = arrivals
                .iter()
                .enumerate()
                .filter(|(_, a)| a.src as usize == hi)
                .map(|(k, a)| SenderJob {
                    f: n + k,
                    src: a.src,
                    dst: a.dst,
                    start: a.time.0,
                    size: Some(a.bytes),
                    stop: NONE,
                    o: opts(hi),
                    name: format!("{}#{}", sc.generators[a.generator as usize].name, a.seq),
                    gen: Some(k),
                })
                .collect();
            if jobs.is_empty() {
                continue;
            }
            let sh2 = Arc::clone(&sh);
            let t = h.spawn(format!("{THREAD_PREFIX}dispatch-{hi}"), move || {
                dispatcher(sh2, jobs)
            })?;
            threads.lock().expect("threads lock").push(t);
        }
        Ok(())
    })();
    let sampler = {
        let (sh2, sc2) = (Arc::clone(&sh), sc.clone());
        std::thread::Builder::new()
            .name(format!("{THREAD_PREFIX}sampler"))
            .spawn(move || sampler(sh2, sc2))
            .map_err(|e| BackendError(format!("cannot start the sampler thread: {e}")))?
    };
    let mut stopped_early = setup.err();
    while stopped_early.is_none() && !sampler.is_finished() {
        if interrupted() {
            stopped_early = Some("interrupted".into());
            break;
        }
        if let Some(e) = sh.errors.lock().expect("errors lock").first() {
            stopped_early = Some(e.clone());
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    sh.stop.store(true, Ordering::Relaxed);
    let sampled = sampler
        .join()
        .map_err(|_| BackendError("the sampler thread panicked".into()))?;
    // Host counters, read before the namespaces go.
    let counters: Vec<[u64; 6]> = hosts
        .iter()
        .map(|h| {
            [
                h.netstat(RECOVERIES),
                h.netstat(UNDOS),
                h.netstat(SPURIOUS),
                h.netstat(PRUNES),
                h.netstat(PROBES),
                h.netstat(PROBE_RECOVERIES),
            ]
        })
        .collect();
    // Join outside the lock: an acceptor that takes a last connection
    // pushes its reader thread under it.
    loop {
        let batch = std::mem::take(&mut *threads.lock().expect("threads lock"));
        if batch.is_empty() {
            break;
        }
        for t in batch {
            let _ = t.join();
        }
    }
    emu_stop.store(true, Ordering::Relaxed);
    let report = emu
        .join()
        .map_err(|_| BackendError("the emulator thread panicked".into()))?
        .map_err(BackendError)?;
    for s in &sh.socks {
        *s.lock().expect("socks lock") = None;
    }
    drop(hosts);
    if let Some(e) = stopped_early {
        return Err(BackendError(e));
    }
    let errors = sh.errors.lock().expect("errors lock").clone();
    if let Some(e) = errors.first() {
        return Err(BackendError(e.clone()));
    }
    Ok(assemble(
        sc, &arrivals, seed, plan, &sh, sampled, report, counters, wall,
    ))
}

/// The transfers table: one row per generated connection, as the
/// simulator's (its RTT is the kernel's smoothed RTT at the end, not the mean
/// of every sample).
fn transfers(
    sc: &Scenario,
    sh: &Shared,
    arrivals: &[tcplab_model::Arrival],
) -> Vec<TransferResult> {
    let n = sc.flows.len();
    let mut rows = arrivals
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let c = n + k;
            let syn = sh.syn_ns[c].load(Ordering::Relaxed);
            let done = sh.done_ns[c].load(Ordering::Relaxed);
            let info = sh.gen_info[k]
                .lock()
                .expect("gen_info lock")
                .unwrap_or_default();
            let completed = done != NONE && syn != NONE;
            TransferResult {
                generator: a.generator,
                seq: a.seq,
                src: sc.nodes[a.src as usize].clone(),
                dst: sc.nodes[a.dst as usize].clone(),
                size_bytes: a.bytes,
                start_s: if syn == NONE {
                    a.time.as_secs_f64()
                } else {
                    secs(syn)
                },
                fct_s: if completed {
                    secs(done - syn)
                } else {
                    f64::NAN
                },
                completed,
                segs_sent: info.data_segs_out as u64,
                segs_retrans: info.total_retrans as u64,
                timeouts: info.total_rto as u64,
                rtt_mean_s: if info.rtt_us > 0 {
                    info.rtt_us as f64 * 1e-6
                } else {
                    f64::NAN
                },
            }
        })
        .collect::<Vec<_>>();
    // The simulator's order: by generator, then arrival number.
    rows.sort_by_key(|t| (t.generator, t.seq));
    rows
}

fn secs(t: u64) -> f64 {
    if t == NONE {
        f64::NAN
    } else {
        t as f64 * 1e-9
    }
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    sc: &Scenario,
    arrivals: &[tcplab_model::Arrival],
    seed: u64,
    plan: Plan,
    sh: &Shared,
    sampled: Sampled,
    report: EmuReport,
    counters: Vec<[u64; 6]>,
    wall: Instant,
) -> RunResult {
    let (flow_names, link_names) = tcplab_model::result_names(sc);
    let ms = sc.measure_start.0;
    let me = sc.measure_end.0;
    let win = (me - ms).max(1) as f64 * 1e-9;
    let transfers = transfers(sc, sh, arrivals);
    let mut notes = plan.notes;
    // Connections per host, generated ones included: a host's counters go
    // to its flow only when it is the host's one connection.
    let senders = |h: u32| {
        sc.flows.iter().filter(|f| f.src == h).count()
            + arrivals.iter().filter(|a| a.src == h).count()
    };
    let receivers = |h: u32| {
        sc.flows.iter().filter(|f| f.dst == h).count()
            + arrivals.iter().filter(|a| a.dst == h).count()
    };
    if sc.flows.iter().any(|f| senders(f.src) > 1) {
        notes.push("fast_retransmits, undos, spurious_timeouts, loss_probes, tlp_recoveries: the kernel counts them per host; flows sharing a sender host (with another flow or generated connections) show 0".into());
    }
    notes.push("not measured on the real stack: ecn_reductions, pruned_bytes, first_drop_cwnd, retransmission drops of the first window, first reductions, episodes, the RTT trace".into());
    if !report.realtime {
        notes.push("the emulator ran without real-time priority (CAP_SYS_NICE refused)".into());
    }
    let mut flows = Vec::with_capacity(sc.flows.len());
    let mut phases = Vec::new();
    for (i, f) in sc.flows.iter().enumerate() {
        let h = &sc.hosts[f.src as usize];
        let snaps = &sampled.snaps[i];
        let first = snaps.first().copied().unwrap_or_default();
        let last = snaps.last().copied().unwrap_or_default();
        let info = sampled.last[i].unwrap_or_default();
        let rx = sh.rx_bytes[i].load(Ordering::Relaxed);
        let syn = sh.syn_ns[i].load(Ordering::Relaxed);
        let done = sh.done_ns[i].load(Ordering::Relaxed);
        let completed = f.size.is_some() && done != NONE;
        let fct = if completed && syn != NONE {
            secs(done - syn)
        } else {
            f64::NAN
        };
        let d = report.flow_drops.get(i).copied().unwrap_or_default();
        let only = senders(f.src) == 1;
        let c = counters[f.src as usize];
        let r = &sampled.rtts[i];
        let mss = info.snd_mss;
        for (k, w) in snaps.windows(2).enumerate() {
            let t = (sc.phases[k], sc.phases[k + 1]);
            phases.push(flow_phase(&f.name, i, k, t, &w[0], &w[1]));
        }
        flows.push(FlowResult {
            name: flow_names[i].clone(),
            src: sc.nodes[f.src as usize].clone(),
            dst: sc.nodes[f.dst as usize].clone(),
            cc: h.cc.clone(),
            profile: h.profile.clone(),
            start_s: secs(syn),
            goodput_bps: (last.delivered - first.delivered) as f64 * 8.0 / win,
            bytes_delivered_window: last.delivered - first.delivered,
            bytes_delivered: rx,
            rtt_mean_s: r.mean(),
            rtt_p50_s: r.percentile(50.0),
            rtt_p95_s: r.percentile(95.0),
            rtt_p99_s: r.percentile(99.0),
            rtt_samples: r.count(),
            segs_sent: info.data_segs_out as u64,
            segs_retrans: info.total_retrans as u64,
            fast_retransmits: if only { c[0] } else { 0 },
            timeouts: info.total_rto as u64,
            undos: if only { c[1] } else { 0 },
            spurious_timeouts: if only { c[2] } else { 0 },
            loss_probes: if only { c[4] } else { 0 },
            tlp_recoveries: if only { c[5] } else { 0 },
            ooo_prunes: if receivers(f.dst) == 1 {
                counters[f.dst as usize][3]
            } else {
                0
            },
            pruned_bytes: 0,
            ecn: info.ecn(),
            ecn_reductions: 0,
            segs_sent_window: last.segs_sent - first.segs_sent,
            segs_retrans_window: last.segs_retrans - first.segs_retrans,
            timeouts_window: last.timeouts - first.timeouts,
            completed,
            fct_s: fct,
            transfer_bps: if completed {
                f.size.unwrap_or(0) as f64 * 8.0 / fct
            } else {
                f64::NAN
            },
            mss,
            packet_bytes: if mss > 0 {
                mss + 40 + if info.timestamps() { 12 } else { 0 }
            } else {
                0
            },
            data_drops: d.data,
            retrans_drops: d.retrans,
            first_drop_s: d.first.map_or(f64::NAN, |x| x.0),
            first_drop_link: d
                .first
                .map_or(String::new(), |x| link_names[x.1 as usize].clone()),
            first_drop_cwnd: 0,
            first_drop_in_ss: false,
            retrans_drop_s: f64::NAN,
            retrans_drop_link: String::new(),
            first_reduction_s: f64::NAN,
            first_reduction: String::new(),
            first_reduction_cwnd: 0,
            first_reduction_in_ss: false,
            double_slow_start: false,
        });
    }
    let mut links = Vec::with_capacity(sc.links.len());
    let mut link_phases = Vec::new();
    for (i, snaps) in report.snapshots.iter().enumerate() {
        let z = LinkSnap::default();
        let (c0, c1) = (snaps.first().unwrap_or(&z), snaps.last().unwrap_or(&z));
        for (k, w) in snaps.windows(2).enumerate() {
            let (t0, t1) = (sc.phases[k], sc.phases[k + 1]);
            link_phases.push(link_delta(&w[0], &w[1], t0, t1).into_phase(&link_names[i], i, k));
        }
        let d = link_delta(c0, c1, sc.measure_start, sc.measure_end);
        links.push(d.into_link(sc, i, report.stats[i].sojourn_max_ns, report.qdiscs[i]));
    }
    let timing = timing_rows(sc, &report, &link_names);
    let timing_flagged = timing.iter().any(|t| t.flagged);
    if timing_flagged {
        notes.push("TIMING: the emulator missed its schedule by more than 1 % on some link (see the timing table); treat this run with care".into());
    }
    let queue = sc.trace.queue.then(|| {
        let mut q = QueueTrace::default();
        for &(t, l, p, b) in &report.queue_trace {
            q.time_s.push(t);
            q.link.push(l);
            q.pkts.push(p);
            q.bytes.push(b);
        }
        q
    });
    RunResult {
        meta: Meta {
            name: sc.name.clone(),
            seed,
            duration_s: sc.duration.as_secs_f64(),
            measure_start_s: sc.measure_start.as_secs_f64(),
            measure_end_s: sc.measure_end.as_secs_f64(),
            events: report.packets,
            packets: report.packets,
            wall_s: wall.elapsed().as_secs_f64(),
            version: tcplab_model::VERSION.to_string(),
            backend: "linux".into(),
            notes,
            timing_flagged,
        },
        flows,
        links,
        phases,
        link_phases,
        generators: tcplab_model::generator_results(sc, &transfers),
        transfers,
        episodes: Vec::new(),
        hosts: Vec::new(),
        timing,
        pcap: report
            .captures
            .into_iter()
            .map(|(l, b)| (link_names[l as usize].clone(), b))
            .collect(),
        traces: Traces {
            cwnd: sampled.cwnd,
            rtt: None,
            queue,
        },
    }
}

/// Per link: the shortest ideal one-way delay of a host-to-host path ending
/// on it, and the emulator's timing against it.
fn timing_rows(sc: &Scenario, report: &EmuReport, link_names: &[String]) -> Vec<TimingResult> {
    let net = tcplab_model::build_network(sc, 0);
    let nh = sc.hosts.len() as u32;
    let mut shortest = vec![u64::MAX; sc.links.len()];
    for a in 0..nh {
        for b in 0..nh {
            if a == b {
                continue;
            }
            let Ok(path) = net.path(a, b) else { continue };
            let Some(&last) = path.last() else { continue };
            let d: u64 = path
                .iter()
                .map(|&l| {
                    let s = &sc.links[l as usize];
                    let mtu = sc.hosts[a as usize].tcp.mss + 40;
                    s.delay.0 + SimTime::transmission((mtu + s.overhead) as u64, s.rate_bps).0
                })
                .sum();
            shortest[last as usize] = shortest[last as usize].min(d);
        }
    }
    report
        .timing
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mean = t.lateness.mean();
            let rate_error = if t.ideal_gaps_ns > 0 {
                t.gap_errors_ns as f64 / t.ideal_gaps_ns as f64
            } else {
                0.0
            };
            let delay_error = if t.delivered > 0 && shortest[i] != u64::MAX {
                mean / (shortest[i] as f64 * 1e-9)
            } else {
                0.0
            };
            // A percentile of a summary, NaN when it holds nothing.
            let pct = |s: &Summary, p: f64| {
                if s.count() > 0 {
                    s.percentile(p)
                } else {
                    f64::NAN
                }
            };
            TimingResult {
                link: link_names[i].clone(),
                delivered: t.delivered,
                lateness_mean_s: if t.delivered > 0 { mean } else { f64::NAN },
                lateness_p50_s: pct(&t.lateness, 50.0),
                lateness_p99_s: pct(&t.lateness, 99.0),
                lateness_p999_s: pct(&t.lateness, 99.9),
                rate_error,
                delay_error,
                flagged: rate_error > 0.01 || delay_error > 0.01,
                write_failures: t.write_failures,
                acks_timed: t.ack_lag.count(),
                ack_lag_p10_s: pct(&t.ack_lag, 10.0),
                ack_lag_p50_s: pct(&t.ack_lag, 50.0),
                ack_lag_p90_s: pct(&t.ack_lag, 90.0),
                ack_lag_p99_s: pct(&t.ack_lag, 99.0),
                ack_lag_p999_s: pct(&t.ack_lag, 99.9),
                sends_timed: t.send_lag.count(),
                send_lag_p10_s: pct(&t.send_lag, 10.0),
                send_lag_p50_s: pct(&t.send_lag, 50.0),
                send_lag_p90_s: pct(&t.send_lag, 90.0),
                sacks_now: t.sack_now.count(),
                sack_now_p10_s: pct(&t.sack_now, 10.0),
                sack_now_p50_s: pct(&t.sack_now, 50.0),
                sack_now_p90_s: pct(&t.sack_now, 90.0),
                sacks_held: t.sack_held.count(),
                sack_held_p10_s: pct(&t.sack_held, 10.0),
                sack_held_p50_s: pct(&t.sack_held, 50.0),
                sack_held_p90_s: pct(&t.sack_held, 90.0),
                sack_timers: t.sack_timer.count(),
                sack_timer_p10_s: pct(&t.sack_timer, 10.0),
                sack_timer_p50_s: pct(&t.sack_timer, 50.0),
                sack_timer_p90_s: pct(&t.sack_timer, 90.0),
            }
        })
        .collect()
}
