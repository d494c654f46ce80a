//! The emulator's timing measured from outside it: UDP probes between two
//! namespaces, timestamped by the applications (needs root; skipped
//! otherwise). Expected values are the link's configuration: a burst leaves
//! at exactly the link rate (a packet of 1028 IP bytes every 822.4 us at
//! 10 Mb/s), and a packet sent into an idle link arrives after the
//! propagation delay plus its own serialisation (20 ms + 822.4 us).

use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tcplab_emu::emulator::{self, EmuInput};
use tcplab_emu::netns::{HostNs, HostSetup};

const SCENARIO: &str = r#"
name = "probe"
duration = "10s"
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "20ms"
queue = { packets = 1000 }
"#;

const PAYLOAD: usize = 1000; // + 8 UDP + 20 IP = 1028 bytes
const BURST: usize = 400;
const PACED: usize = 200;

fn root() -> bool {
    tcplab_emu::sys::geteuid() == 0
        && std::path::Path::new("/dev/net/tun").exists()
        && std::process::Command::new("ip").arg("-V").output().is_ok()
}

fn setup(name: &str, node: u32) -> HostSetup {
    HostSetup {
        name: name.into(),
        node,
        mtu: 1500,
        sysctls: vec![],
        route: vec![],
        gso_max_segs: None,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

#[test]
fn udp_probes_see_the_configured_rate_and_delay_within_one_percent() {
    if !root() {
        eprintln!("skipped: needs root, /dev/net/tun and iproute2");
        return;
    }
    let sc = tcplab_model::parse_scenario(SCENARIO, "probe.toml").unwrap();
    let a = HostNs::start(setup("a", 0)).unwrap();
    let b = HostNs::start(setup("b", 1)).unwrap();
    let epoch = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let tuns = vec![
        std::os::fd::AsRawFd::as_raw_fd(a.tun.as_ref().unwrap()),
        std::os::fd::AsRawFd::as_raw_fd(b.tun.as_ref().unwrap()),
    ];
    let emu = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            emulator::run(EmuInput {
                sc: &sc,
                seed: 1,
                epoch,
                tuns,
                stop,
            })
        })
    };
    let rx = b
        .run_in(|| UdpSocket::bind(SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 2), 9000)))
        .unwrap()
        .unwrap();
    rx.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let tx = a
        .run_in(|| UdpSocket::bind(SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 1), 9001)))
        .unwrap()
        .unwrap();
    let to = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 2), 9000);
    let receiver = std::thread::spawn(move || {
        let mut got = Vec::with_capacity(BURST + PACED);
        let mut buf = [0u8; 2048];
        while got.len() < BURST + PACED {
            let Ok(n) = rx.recv(&mut buf) else { break };
            let at = epoch.elapsed().as_nanos() as u64;
            let seq = u32::from_le_bytes(buf[..4].try_into().unwrap());
            let sent = u64::from_le_bytes(buf[4..12].try_into().unwrap());
            assert_eq!(n, PAYLOAD);
            got.push((seq, sent, at));
        }
        got
    });
    let mut msg = [0u8; PAYLOAD];
    // The burst: everything at once, to measure the rate.
    for seq in 0..BURST as u32 {
        msg[..4].copy_from_slice(&seq.to_le_bytes());
        msg[4..12].copy_from_slice(&(epoch.elapsed().as_nanos() as u64).to_le_bytes());
        tx.send_to(&msg, to).unwrap();
    }
    // Let the queue drain, then one packet every 2 ms (the link idle for
    // each), to measure the delay.
    std::thread::sleep(Duration::from_millis(BURST as u64 + 100));
    for seq in BURST as u32..(BURST + PACED) as u32 {
        msg[..4].copy_from_slice(&seq.to_le_bytes());
        msg[4..12].copy_from_slice(&(epoch.elapsed().as_nanos() as u64).to_le_bytes());
        tx.send_to(&msg, to).unwrap();
        std::thread::sleep(Duration::from_millis(2));
    }
    let got = receiver.join().unwrap();
    stop.store(true, Ordering::Relaxed);
    let report = emu.join().unwrap().unwrap();
    assert_eq!(got.len(), BURST + PACED, "every probe arrives");
    let tx_ns = 1028.0 * 8.0 / 10e6 * 1e9; // 822,400 ns
    let gaps: Vec<f64> = got[..BURST]
        .windows(2)
        .map(|w| (w[1].2 - w[0].2) as f64)
        .collect();
    let span = (got[BURST - 1].2 - got[0].2) as f64 / (BURST - 1) as f64;
    let gap = median(gaps);
    assert!(
        (gap / tx_ns - 1.0).abs() < 0.01 && (span / tx_ns - 1.0).abs() < 0.01,
        "burst spacing: median {gap:.0} ns, mean {span:.0} ns, expected {tx_ns:.0} ns"
    );
    let delays: Vec<f64> = got[BURST..]
        .iter()
        .map(|&(_, sent, at)| (at - sent) as f64)
        .collect();
    let expected = 20e6 + tx_ns;
    let d = median(delays);
    assert!(
        (d / expected - 1.0).abs() < 0.01,
        "one-way delay: median {d:.0} ns, expected {expected:.0} ns"
    );
    // The emulator's own account agrees.
    assert_eq!(report.timing[0].delivered as usize, BURST + PACED);
    eprintln!(
        "burst gap median {gap:.0} ns (expected {tx_ns:.0}); delay median {d:.0} ns (expected {expected:.0}); emulator lateness p99 {:.1} us",
        report.timing[0].lateness.percentile(99.0) * 1e6
    );
}

#[test]
fn a_host_without_gso_bursts_gets_one_segment_per_gso_skb() {
    // gso_bursts = false sets the TUN device's gso_max_segs to 1, which caps
    // tcp_tso_segs (min with sk_gso_max_segs): one segment per skb.
    if !root() {
        eprintln!("skipped: needs root, /dev/net/tun and iproute2");
        return;
    }
    let show = |segs: Option<u32>| {
        let mut s = setup("g", 0);
        s.gso_max_segs = segs;
        let h = HostNs::start(s).unwrap();
        let out = h
            .run_in(|| {
                std::process::Command::new("ip")
                    .args(["-d", "link", "show", "dev", tcplab_emu::netns::TUN_NAME])
                    .output()
                    .unwrap()
            })
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let one = show(Some(1));
    assert!(one.contains("gso_max_segs 1 "), "{one}");
    let default = show(None);
    assert!(
        default.contains("gso_max_segs ") && !default.contains("gso_max_segs 1 "),
        "{default}"
    );
}
