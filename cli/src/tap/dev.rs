//! A Linux TAP interface opened for a NIC driver's view of the stack: `IFF_TAP |
//! IFF_NO_PI | IFF_VNET_HDR`, so every frame comes and goes behind a virtio-net header
//! (`nic_testbench::wire::virtio_net`), and `TUNSETOFFLOAD` telling the kernel which
//! offloads the "hardware" behind it takes (checksum, TSO for IPv4 and IPv6, ECN).
//!
//! The interface lives as long as its file descriptor: dropping a `TapDevice` removes
//! it, also from a network namespace it was moved into.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Longest interface name Linux takes (`IFNAMSIZ` less the terminating NUL).
pub const MAX_NAME_LEN: usize = libc::IFNAMSIZ - 1;

/// Longest frame a TAP hands over: a 64 KiB IP packet behind Ethernet and two VLAN tags.
pub const MAX_FRAME_LEN: usize = 65_535 + 22;

/// What the kernel may ask of the NIC (`TUNSETOFFLOAD`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offloads {
    /// `CHECKSUM_PARTIAL` frames (`NEEDS_CSUM`).
    pub csum: bool,
    /// TCP super-frames over IPv4 and IPv6 (with ECN); needs `csum`.
    pub tso: bool,
}

impl Offloads {
    fn flags(self) -> libc::c_uint {
        let mut f = 0;
        if self.csum {
            f |= libc::TUN_F_CSUM;
            if self.tso {
                f |= libc::TUN_F_TSO4 | libc::TUN_F_TSO6 | libc::TUN_F_TSO_ECN;
            }
        }
        f
    }
}

/// Why a TAP could not be made.
#[derive(Debug)]
pub enum TapError {
    /// The caller lacks CAP_NET_ADMIN (or /dev/net/tun is not accessible).
    NotPermitted(String),
    Other(String),
}

impl std::fmt::Display for TapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TapError::NotPermitted(s) | TapError::Other(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for TapError {}

/// One TAP interface.
#[derive(Debug)]
pub struct TapDevice {
    fd: OwnedFd,
    name: String,
    mac: [u8; 6],
}

fn ifreq_named(name: &str) -> libc::ifreq {
    // SAFETY: ifreq is plain old data; all zeroes is a valid value.
    let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in ifr.ifr_name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    ifr
}

fn last_error(what: &str, name: &str) -> TapError {
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => TapError::NotPermitted(format!(
            "{what} for `{name}`: {e}. Creating TAP interfaces needs root or CAP_NET_ADMIN (try sudo, or `setcap cap_net_admin+ep` on the nic binary)"
        )),
        _ => TapError::Other(format!("{what} for `{name}`: {e}")),
    }
}

impl TapDevice {
    /// Creates interface `name` (down; the caller or the user brings it up), with a
    /// virtio-net header on every frame and `offloads` announced to the kernel.
    pub fn create(name: &str, offloads: Offloads) -> Result<TapDevice, TapError> {
        if name.is_empty() || name.len() > MAX_NAME_LEN {
            return Err(TapError::Other(format!("`{name}`: an interface name has 1 to {MAX_NAME_LEN} bytes")));
        }
        let path = c"/dev/net/tun";
        // SAFETY: a NUL-terminated path and plain flags.
        let raw = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        if raw < 0 {
            return Err(last_error("opening /dev/net/tun", name));
        }
        // SAFETY: `raw` is a descriptor we just opened and own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut ifr = ifreq_named(name);
        ifr.ifr_ifru.ifru_flags = (libc::IFF_TAP | libc::IFF_NO_PI | libc::IFF_VNET_HDR) as libc::c_short;
        // SAFETY: TUNSETIFF reads and writes one ifreq.
        if unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut ifr) } < 0 {
            return Err(last_error("TUNSETIFF (creating the TAP)", name));
        }
        // SAFETY: the kernel wrote a NUL-terminated name of at most IFNAMSIZ bytes.
        let actual = unsafe { CStr::from_ptr(ifr.ifr_name.as_ptr()) }.to_string_lossy().into_owned();
        let hdr_len: libc::c_int = nic_testbench::wire::virtio_net::HEADER_LEN as libc::c_int;
        // SAFETY: these ioctls read one int (TUNSETOFFLOAD takes it by value).
        unsafe {
            if libc::ioctl(fd.as_raw_fd(), libc::TUNSETVNETHDRSZ, &hdr_len) < 0 {
                return Err(last_error("TUNSETVNETHDRSZ", name));
            }
            // little-endian headers on any host (the default on little-endian ones)
            let le: libc::c_int = 1;
            if libc::ioctl(fd.as_raw_fd(), libc::TUNSETVNETLE, &le) < 0 && cfg!(target_endian = "big") {
                return Err(last_error("TUNSETVNETLE", name));
            }
            if libc::ioctl(fd.as_raw_fd(), libc::TUNSETOFFLOAD, offloads.flags() as libc::c_ulong) < 0 {
                return Err(last_error("TUNSETOFFLOAD", name));
            }
        }
        let mac = hw_addr(&actual)?;
        Ok(TapDevice { fd, name: actual, mac })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The interface's MAC address when it was created (the kernel's random one).
    pub fn mac(&self) -> [u8; 6] {
        self.mac
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Reads one frame, virtio-net header first, into `buf`; `None` when there is none.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: `buf` is valid for `buf.len()` bytes.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
                _ => Err(e),
            };
        }
        Ok(Some(n as usize))
    }

    /// Hands one frame to the kernel behind `header`. `Ok(false)` when the interface is
    /// down (the kernel refuses frames then; a real NIC's would not reach the stack
    /// either).
    pub fn send(&self, header: &[u8], frame: &[u8]) -> io::Result<bool> {
        let iov = [
            libc::iovec { iov_base: header.as_ptr() as *mut _, iov_len: header.len() },
            libc::iovec { iov_base: frame.as_ptr() as *mut _, iov_len: frame.len() },
        ];
        // SAFETY: both iovecs point at live slices of their stated lengths.
        let n = unsafe { libc::writev(self.fd.as_raw_fd(), iov.as_ptr(), 2) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EIO) => Ok(false),
                _ => Err(e),
            };
        }
        Ok(true)
    }
}

/// `TUNGETDEVNETNS` (`_IO('T', 227)`, Linux 5.2): a descriptor of the network namespace
/// the interface lives in now (libc does not name it).
const TUNGETDEVNETNS: libc::c_ulong = 0x54e3;

impl TapDevice {
    /// Whether the interface is up and running (`IFF_UP | IFF_RUNNING`: its operational
    /// state is up, so a bridge it is a port of forwards what it is handed), wherever it
    /// was moved since. Looked up from a short-lived thread that enters the interface's
    /// namespace (`setns(2)` is per thread).
    pub fn running(&self) -> io::Result<bool> {
        // SAFETY: TUNGETDEVNETNS takes no argument and returns a new descriptor.
        let ns = unsafe { libc::ioctl(self.fd.as_raw_fd(), TUNGETDEVNETNS as _) };
        if ns < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the kernel gave us this descriptor.
        let ns = unsafe { OwnedFd::from_raw_fd(ns) };
        let name = self.name.clone();
        std::thread::scope(|s| {
            s.spawn(|| -> io::Result<bool> {
                // SAFETY: setns on this thread only; `ns` is a network namespace descriptor.
                if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } < 0 {
                    return Err(io::Error::last_os_error());
                }
                // SAFETY: plain socket(2) in the namespace just entered.
                let sock = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
                if sock < 0 {
                    return Err(io::Error::last_os_error());
                }
                // SAFETY: we own `sock`.
                let sock = unsafe { OwnedFd::from_raw_fd(sock) };
                let mut ifr = ifreq_named(&name);
                // SAFETY: SIOCGIFFLAGS fills one ifreq.
                if unsafe { libc::ioctl(sock.as_raw_fd(), libc::SIOCGIFFLAGS, &mut ifr) } < 0 {
                    return Err(io::Error::last_os_error());
                }
                // SAFETY: the union holds the flags after SIOCGIFFLAGS.
                let flags = unsafe { ifr.ifr_ifru.ifru_flags } as libc::c_int;
                Ok(flags & libc::IFF_UP != 0 && flags & libc::IFF_RUNNING != 0)
            })
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the link query thread panicked")))
        })
    }
}

/// The MAC address of interface `name` (SIOCGIFHWADDR on a throwaway socket).
fn hw_addr(name: &str) -> Result<[u8; 6], TapError> {
    // SAFETY: plain socket(2).
    let s = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if s < 0 {
        return Err(last_error("socket", name));
    }
    // SAFETY: we own `s`.
    let s = unsafe { OwnedFd::from_raw_fd(s) };
    let mut ifr = ifreq_named(name);
    // SAFETY: SIOCGIFHWADDR fills one ifreq.
    if unsafe { libc::ioctl(s.as_raw_fd(), libc::SIOCGIFHWADDR, &mut ifr) } < 0 {
        return Err(last_error("SIOCGIFHWADDR", name));
    }
    // SAFETY: the union holds a sockaddr after SIOCGIFHWADDR.
    let sa = unsafe { ifr.ifr_ifru.ifru_hwaddr };
    Ok(std::array::from_fn(|i| sa.sa_data[i] as u8))
}

/// Waits until one of `fds` is readable or `timeout_ms` passed (a signal ends the wait
/// early).
pub fn wait_readable(fds: &[RawFd], timeout_ms: i32) {
    let mut p: Vec<libc::pollfd> = fds.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
    // SAFETY: `p` is a live array of `p.len()` pollfds.
    unsafe { libc::poll(p.as_mut_ptr(), p.len() as libc::nfds_t, timeout_ms) };
}
