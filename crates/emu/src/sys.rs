//! The system calls the real-stack backend needs and the standard library
//! lacks: a network namespace for the calling thread, TUN devices, `ppoll`
//! with a nanosecond timeout, real-time scheduling, and `TCP_INFO`. Every
//! `unsafe` block of the crate is here, each a single libc call on memory the
//! function owns.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Move the calling thread (only it) into a new, empty network namespace.
/// Threads and processes it starts afterwards are in that namespace too. The
/// namespace lives while a thread, a process or a socket uses it, so it
/// vanishes with this process, whatever way the process ends.
pub fn unshare_net() -> io::Result<()> {
    // SAFETY: unshare takes a flag word and touches no memory of ours.
    check(unsafe { libc::unshare(libc::CLONE_NEWNET) }).map(|_| ())
}

/// `ioctl(TUNSETIFF)`: `_IOW('T', 202, int)`.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags of the union.
#[repr(C)]
struct IfReq {
    name: [u8; 16],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Create a TUN device (IP packets, no packet-information header) named
/// `name` in the calling thread's network namespace, non-blocking. The device
/// is not persistent: it disappears when the descriptor is closed.
pub fn open_tun(name: &str) -> io::Result<OwnedFd> {
    let path = c"/dev/net/tun";
    // SAFETY: a NUL-terminated path and flags; the result is checked.
    let fd = check(unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    })?;
    // SAFETY: `fd` is a descriptor we just opened and own.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut req = IfReq {
        name: [0; 16],
        flags: IFF_TUN | IFF_NO_PI,
        _pad: [0; 22],
    };
    let n = name.len().min(15);
    req.name[..n].copy_from_slice(&name.as_bytes()[..n]);
    // SAFETY: TUNSETIFF reads and writes a `struct ifreq`, which `req` is.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF, &mut req as *mut IfReq) })?;
    Ok(fd)
}

/// Read one packet into `buf`; `None` when none is waiting.
#[inline]
pub fn read_packet(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: reads at most `buf.len()` bytes into `buf`.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(n as usize))
}

/// Write one packet; a full device (the namespace's stack not keeping up)
/// loses it, as a NIC's ring would.
#[inline]
pub fn write_packet(fd: RawFd, buf: &[u8]) -> io::Result<bool> {
    // SAFETY: writes `buf.len()` bytes from `buf`.
    let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock => Ok(false),
            _ => Err(e),
        };
    }
    Ok(true)
}

/// Wait until `fd` has one of `events` (`POLLIN`, `POLLOUT`), at most
/// `timeout`; returns whether it has (false: the time ran out).
pub fn wait_fd(fd: RawFd, events: libc::c_short, timeout: std::time::Duration) -> io::Result<bool> {
    let mut p = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd.
    let r = unsafe { libc::poll(&mut p, 1, ms) };
    if r < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted {
            Ok(false)
        } else {
            Err(e)
        };
    }
    Ok(r > 0)
}

/// Wait until one of `fds` is readable or `timeout_ns` has passed.
pub fn wait_readable(fds: &mut [libc::pollfd], timeout_ns: u64) -> io::Result<()> {
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `fds` is a valid array of pollfd of the length given; `ts` lives
    // across the call; no signal mask.
    let r = unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}

/// Give the calling thread real-time priority (SCHED_FIFO) and a 1 ns timer
/// slack, so that its sleeps end when asked. Returns whether the priority was
/// granted (it needs CAP_SYS_NICE); the slack is set either way.
pub fn realtime_thread(priority: i32) -> bool {
    // SAFETY: prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
    let p = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: pid 0 is the calling thread; `p` is a valid sched_param.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0 }
}

/// The calling thread's id (for `/proc/<pid>/task/<tid>/net`).
pub fn gettid() -> i32 {
    // SAFETY: no arguments.
    unsafe { libc::gettid() }
}

/// The effective user id.
pub fn geteuid() -> u32 {
    // SAFETY: no arguments.
    unsafe { libc::geteuid() }
}

/// Bytes of `struct tcp_info` read (Linux 6.7 and later have 248).
pub const TCP_INFO_LEN: usize = 248;

/// `getsockopt(TCP_INFO)`: the raw structure, zero-padded where the kernel
/// returns less; see [`crate::tcpinfo`] for the fields.
pub fn tcp_info(fd: RawFd) -> io::Result<[u8; TCP_INFO_LEN]> {
    tcp_getsockopt(fd, libc::TCP_INFO).map(|(_, buf)| buf)
}

/// `getsockopt` of a TCP-level structure into `N` zeroed bytes: the bytes
/// and how many of them the kernel wrote.
fn tcp_getsockopt<const N: usize>(fd: RawFd, name: i32) -> io::Result<(usize, [u8; N])> {
    let mut buf = [0u8; N];
    let mut len = N as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes into `buf`.
    check(unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            name,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    })?;
    Ok((len as usize, buf))
}

/// Bytes of `struct tcp_bbr_info`, the largest `union tcp_cc_info` member
/// read.
pub const TCP_CC_INFO_LEN: usize = 20;

/// `getsockopt(TCP_CC_INFO)`: the controller's `get_info` structure and its
/// length (0 for controllers without one: Reno, Cubic).
pub fn tcp_cc_info(fd: RawFd) -> io::Result<(usize, [u8; TCP_CC_INFO_LEN])> {
    tcp_getsockopt(fd, libc::TCP_CC_INFO)
}

/// `setsockopt` of an integer option.
pub fn set_int_option(fd: RawFd, level: i32, name: i32, value: i32) -> io::Result<()> {
    // SAFETY: passes a pointer to an int and its size.
    check(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const i32).cast(),
            std::mem::size_of::<i32>() as libc::socklen_t,
        )
    })
    .map(|_| ())
}
