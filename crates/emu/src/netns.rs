//! One network namespace per host, held by a thread of this process.
//!
//! The thread leaves the root namespace (`unshare(CLONE_NEWNET)`), creates
//! the host's TUN device there, gives it the host's address and the
//! scenario's settings (MTU, routes, sysctls), then waits for work: anything
//! it runs or spawns (sockets, flow threads, `ip`) is in the host's
//! namespace. Nothing is named in the root namespace and nothing is
//! persistent: the namespace, its device and its sockets vanish with the
//! process, on a normal exit, on Ctrl-C and on SIGKILL alike.

use crate::sys;
use std::os::fd::OwnedFd;
use std::process::Command;
use std::sync::mpsc;
use std::thread::JoinHandle;

/// The TUN device's name inside each host's namespace.
pub const TUN_NAME: &str = "tcplab0";
/// Threads of this backend carry this prefix (seen in `ps -T`, `top -H`).
pub const THREAD_PREFIX: &str = "tcplab-";

/// How to set a host's namespace up.
#[derive(Clone, Debug)]
pub struct HostSetup {
    /// Host name (for messages).
    pub name: String,
    /// Node index: its address is `tcplab_model::pcap::node_ip(node)`.
    pub node: u32,
    /// The TUN device's MTU.
    pub mtu: u32,
    /// sysctls (`net.ipv4.tcp_sack` = "1"...) written in the namespace.
    pub sysctls: Vec<(String, String)>,
    /// Extra attributes of the route to the other hosts (`initcwnd 10`...).
    pub route: Vec<String>,
    /// The TUN device's `gso_max_segs` (segments per GSO skb), when set.
    pub gso_max_segs: Option<u32>,
}

type Job = Box<dyn FnOnce() + Send>;

/// A host's namespace, alive while its thread runs.
pub struct HostNs {
    /// Host name.
    pub name: String,
    /// The namespace thread's id: `/proc/<pid>/task/<tid>/net` is its view.
    pub tid: i32,
    /// The host end of its TUN device (the emulator's side of the wire).
    pub tun: Option<OwnedFd>,
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

fn dotted(ip: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", ip[0], ip[1], ip[2], ip[3])
}

fn cmd(host: &str, program: &str, args: &[String]) -> Result<(), String> {
    let out = Command::new(program).args(args).output().map_err(|e| {
        format!("host {host}: cannot run `{program}` ({e}); the linux backend needs iproute2")
    })?;
    if !out.status.success() {
        return Err(format!(
            "host {host}: `{program} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

fn write_sysctl(host: &str, key: &str, value: &str, optional: bool) -> Result<(), String> {
    let path = format!("/proc/sys/{}", key.replace('.', "/"));
    match std::fs::write(&path, value) {
        Ok(()) => Ok(()),
        Err(e) if optional && e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("host {host}: cannot set {key} = {value}: {e}")),
    }
}

fn configure(s: &HostSetup) -> Result<OwnedFd, String> {
    sys::unshare_net().map_err(|e| {
        format!(
            "host {}: cannot create a network namespace ({e}); the linux backend needs root \
             (CAP_SYS_ADMIN and CAP_NET_ADMIN)",
            s.name
        )
    })?;
    // No IPv6 on the emulated wire: its neighbour discovery would cross it.
    for k in [
        "net.ipv6.conf.all.disable_ipv6",
        "net.ipv6.conf.default.disable_ipv6",
    ] {
        write_sysctl(&s.name, k, "1", true)?;
    }
    for (k, v) in &s.sysctls {
        write_sysctl(&s.name, k, v, false)?;
    }
    let tun = sys::open_tun(TUN_NAME).map_err(|e| {
        format!(
            "host {}: cannot create a TUN device ({e}); the linux backend needs /dev/net/tun",
            s.name
        )
    })?;
    let ip = dotted(tcplab_model::pcap::node_ip(s.node));
    let a = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    cmd(&s.name, "ip", &a(&["link", "set", "lo", "up"]))?;
    let mtu = s.mtu.to_string();
    let mut link = a(&["link", "set", "dev", TUN_NAME, "mtu", &mtu]);
    if let Some(n) = s.gso_max_segs {
        link.extend(["gso_max_segs".to_string(), n.to_string()]);
    }
    link.push("up".to_string());
    cmd(&s.name, "ip", &link)?;
    cmd(
        &s.name,
        "ip",
        &a(&["addr", "add", &format!("{ip}/32"), "dev", TUN_NAME]),
    )?;
    let mut route = a(&["route", "add", "10.0.0.0/8", "dev", TUN_NAME, "src", &ip]);
    route.extend(s.route.iter().cloned());
    cmd(&s.name, "ip", &route)?;
    Ok(tun)
}

impl HostNs {
    /// Start the host's thread and set its namespace up.
    pub fn start(setup: HostSetup) -> Result<HostNs, String> {
        let (ready_tx, ready_rx) = mpsc::channel::<Result<(i32, OwnedFd), String>>();
        let (job_tx, job_rx) = mpsc::channel::<Job>();
        let name = setup.name.clone();
        let thread = std::thread::Builder::new()
            .name(format!("{THREAD_PREFIX}ns-{}", setup.node))
            .spawn(move || match configure(&setup) {
                Ok(tun) => {
                    if ready_tx.send(Ok((sys::gettid(), tun))).is_err() {
                        return;
                    }
                    for job in job_rx {
                        job();
                    }
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                }
            })
            .map_err(|e| format!("host {name}: cannot start its thread: {e}"))?;
        match ready_rx.recv() {
            Ok(Ok((tid, tun))) => Ok(HostNs {
                name,
                tid,
                tun: Some(tun),
                jobs: Some(job_tx),
                thread: Some(thread),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => Err(format!("host {name}: its thread ended during set-up")),
        }
    }

    /// Run `f` on the host's thread, in its namespace, and return its result.
    pub fn run_in<R: Send + 'static>(
        &self,
        f: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, String> {
        let (tx, rx) = mpsc::channel();
        let job: Job = Box::new(move || {
            let _ = tx.send(f());
        });
        self.jobs
            .as_ref()
            .and_then(|j| j.send(job).ok())
            .ok_or_else(|| format!("host {}: its namespace thread has ended", self.name))?;
        rx.recv()
            .map_err(|_| format!("host {}: its namespace thread has ended", self.name))
    }

    /// Start a thread in the host's namespace.
    pub fn spawn(
        &self,
        name: String,
        f: impl FnOnce() + Send + 'static,
    ) -> Result<JoinHandle<()>, String> {
        let host = self.name.clone();
        self.run_in(move || std::thread::Builder::new().name(name).spawn(f))?
            .map_err(|e| format!("host {host}: cannot start a thread: {e}"))
    }

    /// A TcpExt counter of the host's namespace (`/proc/net/netstat`), 0
    /// when the kernel has no such counter.
    pub fn netstat(&self, names: &[&str]) -> u64 {
        let path = format!("/proc/{}/task/{}/net/netstat", std::process::id(), self.tid);
        let Ok(text) = std::fs::read_to_string(path) else {
            return 0;
        };
        let lines: Vec<&str> = text.lines().collect();
        let mut total = 0;
        for pair in lines.chunks(2) {
            if pair.len() < 2 || !pair[0].starts_with("TcpExt:") {
                continue;
            }
            for (k, v) in pair[0].split_whitespace().zip(pair[1].split_whitespace()) {
                if names.contains(&k) {
                    total += v.parse::<u64>().unwrap_or(0);
                }
            }
        }
        total
    }
}

impl Drop for HostNs {
    fn drop(&mut self) {
        self.jobs = None; // ends the thread's loop
        self.tun = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
