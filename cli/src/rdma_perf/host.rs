//! The simulated host behind `nic rdma-perf`: one NIC whose wire is a Linux TAP
//! interface, and a small TCP/IP stack of the host's own (smoltcp) over the NIC's
//! ordinary Ethernet queues.
//!
//! ```text
//!  smoltcp ─ driver ─ TX/RX queues ─┐
//!                                   ├─ NIC (RTL) ═══ wire = TAP ═══ kernel (bridge, ...)
//!  verbs ─── driver ─ RDMA engine ──┘
//! ```
//!
//! The address belongs to the simulated host, not to the kernel: the stack answers ARP
//! (and IPv6 neighbour discovery for its link-local address) and carries TCP through the
//! NIC's RX and TX paths; RoCEv2 for the same address is the classifier's to divert to
//! the RDMA engine. Frames the kernel puts on the TAP are the wire's frames into the NIC
//! (an FCS added); frames the NIC sends go to the kernel (FCS stripped).
//!
//! Simulated time runs while anything moves (or the NIC is still taking in the frames
//! injected, at a beat a cycle), and for `QUIET_CYCLES` after; then it waits
//! for the kernel (the TAP) or the stack's next timer, so a peer that is slow in wall
//! time costs the simulated NIC little. The stack's own timers run in wall-clock time:
//! it is the host's software, not the NIC.

use crate::tap::dev::{self, Offloads, TapDevice};
use anyhow::{bail, Context, Result};
use nic_driver::{MacFilter, Nic, NicConfig, RxFilterMode, TxFrame};
use nic_testbench::backend::TestDevice;
use nic_testbench::fcs;
use nic_testbench::pcap::{PcapWriter, LINKTYPE_ETHERNET};
use nic_testbench::wire::ethernet::{EtherType, EthernetFrame};
use nic_testbench::wire::ipv4::Ipv4Packet;
use nic_testbench::wire::virtio_net::{self, VirtioNetHeader, VirtioNetRepr};
use smoltcp::iface::{Config, Interface, SocketHandle, SocketSet};
use smoltcp::phy::{self, DeviceCapabilities, Medium};
use smoltcp::socket::{tcp, udp};
use smoltcp::time::Instant as NetInstant;
use smoltcp::wire::{ArpPacket, ArpRepr, EthernetAddress, HardwareAddress, IpAddress, IpCidr};
use std::collections::{HashMap, VecDeque};
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

/// Cycles the NIC runs per pass.
const STEP: u64 = 64;
/// Cycles without anything moving after which simulated time waits for the kernel or a
/// timer. Work the NIC does without moving a frame (reading a WQE and its payload, writing
/// what it took in to host memory) fits in it. A longer margin counts more of the time a
/// NIC waits for a slow peer: at 4,096, SEND at 4 KiB reached 55-80% of line rate over
/// three runs, and 64-86% at 1,024 (docs/performance.md).
pub const QUIET_CYCLES: u64 = 1024;
/// Longest wait in poll(2) before looking again (bounds how late a stack timer fires).
const MAX_WAIT_MS: u64 = 20;
/// The UDP echo service's port (RFC 862): the host carries UDP as well as TCP.
pub const ECHO_PORT: u16 = 7;
/// The IP MTU of the host's stack (standard Ethernet).
pub const IP_MTU: usize = 1500;

/// Frames counted at each boundary of the host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostCounters {
    /// Frames the kernel put on the TAP (into the NIC), and their bytes without FCS.
    pub wire_in_frames: u64,
    pub wire_in_bytes: u64,
    /// Of those: frames whose virtio-net header asked for an offload (dropped; the TAP
    /// announces none, so a kernel never should).
    pub wire_in_malformed: u64,
    /// Frames the NIC sent that the kernel took, their bytes, and those it refused
    /// (interface down).
    pub wire_out_frames: u64,
    pub wire_out_bytes: u64,
    pub wire_out_refused: u64,
    /// Frames the stack sent through the NIC's TX queue, and received from its RX queues.
    pub stack_tx_frames: u64,
    pub stack_rx_frames: u64,
    /// UDP datagrams the echo service sent back.
    pub udp_echoed: u64,
}

/// smoltcp's view of the NIC's Ethernet queues: frames waiting both ways, moved by
/// [`SimHost::pump`] (the tokens own nothing of the NIC, so the stack and the driver
/// never hold each other).
#[derive(Default)]
struct QueuePhy {
    rx: VecDeque<Vec<u8>>,
    tx: Vec<Vec<u8>>,
}

struct QueueRx(Vec<u8>);
struct QueueTx<'a>(&'a mut Vec<Vec<u8>>);

impl phy::RxToken for QueueRx {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        f(&self.0)
    }
}

impl phy::TxToken for QueueTx<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        let mut frame = vec![0u8; len];
        let r = f(&mut frame);
        self.0.push(frame);
        r
    }
}

impl phy::Device for QueuePhy {
    type RxToken<'a> = QueueRx;
    type TxToken<'a> = QueueTx<'a>;

    fn receive(&mut self, _: NetInstant) -> Option<(QueueRx, QueueTx<'_>)> {
        let f = self.rx.pop_front()?;
        Some((QueueRx(f), QueueTx(&mut self.tx)))
    }

    fn transmit(&mut self, _: NetInstant) -> Option<QueueTx<'_>> {
        Some(QueueTx(&mut self.tx))
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut c = DeviceCapabilities::default();
        c.medium = Medium::Ethernet;
        c.max_transmission_unit = IP_MTU + 14;
        c.max_burst_size = Some(32);
        c
    }
}

/// The MAC address the host takes when none is given: locally administered, unicast,
/// the IPv4 address in its last four bytes.
pub fn default_mac(ip: Ipv4Addr) -> [u8; 6] {
    let o = ip.octets();
    [0x02, 0x4e, o[0], o[1], o[2], o[3]]
}

/// The IPv6 link-local address of `mac` (modified EUI-64, RFC 4291 appendix A).
pub fn link_local(mac: [u8; 6]) -> std::net::Ipv6Addr {
    let m = |i: usize| u16::from(mac[i]);
    std::net::Ipv6Addr::new(0xfe80, 0, 0, 0, (m(0) ^ 2) << 8 | m(1), m(2) << 8 | 0xff, 0xfe00 | m(3), m(4) << 8 | m(5))
}

/// The IPv4 source address and source MAC of an untagged Ethernet frame carrying IPv4
/// or an ARP request or reply (how the host learns its peers' MAC addresses for RoCE).
fn ipv4_source(frame: &[u8]) -> Option<(Ipv4Addr, [u8; 6])> {
    let eth = EthernetFrame::new_checked(frame).ok()?;
    let ip = match eth.ethertype() {
        EtherType::Ipv4 => Ipv4Packet::new_checked(eth.payload()).ok()?.src_addr(),
        EtherType::Arp => match ArpRepr::parse(&ArpPacket::new_checked(eth.payload()).ok()?).ok()? {
            ArpRepr::EthernetIpv4 { source_protocol_addr, .. } => source_protocol_addr,
            #[allow(unreachable_patterns)]
            _ => return None,
        },
        _ => return None,
    };
    Some((ip, eth.src_addr().0))
}

/// One simulated host: NIC, TAP wire and stack.
pub struct SimHost {
    pub nic: Nic<Box<dyn TestDevice>>,
    tap: TapDevice,
    iface: Interface,
    pub sockets: SocketSet<'static>,
    phy: QueuePhy,
    pub mac: [u8; 6],
    pub ip: Ipv4Addr,
    /// IPv4 address → the MAC address its frames last came from.
    neighbours: HashMap<Ipv4Addr, [u8; 6]>,
    pub count: HostCounters,
    /// Cycles since something last moved.
    quiet: u64,
    /// The cycle until which the NIC is still taking in the frames injected so far (one
    /// beat a cycle): it works on them although nothing moves at the host's boundary.
    busy_until: u64,
    epoch: Instant,
    buf: Vec<u8>,
    /// The UDP echo service (port 7).
    echo: SocketHandle,
    /// Every frame on the wire, both ways, when capturing (`--pcap`).
    pcap: Option<PcapWriter<std::io::BufWriter<std::fs::File>>>,
}

impl SimHost {
    /// Sets up the NIC (`dev`) behind `tap`: the host's MAC in the exact-match filter,
    /// broadcast and all multicast taken (neighbour discovery), and a stack with
    /// `ip`/`prefix` and an IPv6 link-local address.
    pub fn new(dev: Box<dyn TestDevice>, tap: TapDevice, ip: Ipv4Addr, prefix: u8, mac: [u8; 6]) -> Result<SimHost> {
        let cfg = NicConfig { tx_queues: 1, rx_ring_log2: 9, tx_ring_log2: 9, ..NicConfig::default() };
        let mut nic = Nic::open_with(dev, cfg).context("opening the NIC")?;
        nic.set_mac(mac)?;
        nic.set_mac_filter(0, Some(MacFilter { addr: mac, steer_queue: None }))?;
        nic.set_rx_filter_mode(RxFilterMode { promisc: false, allmulti: true, broadcast: true })?;
        nic.device_mut().take_dma_faults();
        let mut phy = QueuePhy::default();
        let mut config = Config::new(HardwareAddress::Ethernet(EthernetAddress(mac)));
        config.random_seed = u64::from(u32::from(ip)) ^ u64::from(std::process::id()) << 32 ^ 0x5eed;
        let epoch = Instant::now();
        let mut iface = Interface::new(config, &mut phy, NetInstant::from_micros(0));
        let o = ip.octets();
        let ll = IpAddress::Ipv6(link_local(mac));
        iface.update_ip_addrs(|a| {
            a.push(IpCidr::new(IpAddress::v4(o[0], o[1], o[2], o[3]), prefix)).expect("room for two addresses");
            a.push(IpCidr::new(ll, 64)).expect("room for two addresses");
        });
        let mut sockets = SocketSet::new(Vec::new());
        let mut echo = udp::Socket::new(
            udp::PacketBuffer::new(vec![udp::PacketMetadata::EMPTY; 16], vec![0; 16 << 10]),
            udp::PacketBuffer::new(vec![udp::PacketMetadata::EMPTY; 16], vec![0; 16 << 10]),
        );
        echo.bind(ECHO_PORT).expect("a fresh socket binds");
        let echo = sockets.add(echo);
        Ok(SimHost {
            nic,
            tap,
            iface,
            sockets,
            echo,
            phy,
            mac,
            ip,
            neighbours: HashMap::new(),
            count: HostCounters::default(),
            quiet: 0,
            busy_until: 0,
            epoch,
            buf: vec![0u8; virtio_net::HEADER_LEN + dev::MAX_FRAME_LEN],
            pcap: None,
        })
    }

    /// Writes every frame that crosses the wire from now on, both ways, to `path` (pcap,
    /// wall-clock timestamps, without FCS).
    pub fn capture(&mut self, path: &std::path::Path) -> Result<()> {
        let f = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
        self.pcap = Some(PcapWriter::new(std::io::BufWriter::new(f), LINKTYPE_ETHERNET)?);
        Ok(())
    }

    fn record(pcap: &mut Option<PcapWriter<std::io::BufWriter<std::fs::File>>>, frame: &[u8]) -> Result<()> {
        if let Some(p) = pcap {
            let ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
            p.write(ns, frame)?;
        }
        Ok(())
    }

    /// Flushes the capture.
    pub fn finish_capture(&mut self) -> Result<()> {
        if let Some(p) = self.pcap.take() {
            use std::io::Write as _;
            p.into_inner().flush().context("flushing the capture")?;
        }
        Ok(())
    }

    /// Creates the TAP interface `name` as this host's wire (no offloads announced: the
    /// kernel hands over whole frames with their checksums).
    pub fn create_tap(name: &str) -> Result<TapDevice, dev::TapError> {
        TapDevice::create(name, Offloads { csum: false, tso: false })
    }

    pub fn tap_name(&self) -> &str {
        self.tap.name()
    }

    fn now(&self) -> NetInstant {
        NetInstant::from_micros(self.epoch.elapsed().as_micros() as i64)
    }

    /// A TCP socket with buffers of `bytes` each way.
    pub fn add_tcp_socket(&mut self, bytes: usize) -> SocketHandle {
        let s = tcp::Socket::new(tcp::SocketBuffer::new(vec![0; bytes]), tcp::SocketBuffer::new(vec![0; bytes]));
        self.sockets.add(s)
    }

    pub fn tcp(&mut self, h: SocketHandle) -> &mut tcp::Socket<'static> {
        self.sockets.get_mut::<tcp::Socket>(h)
    }

    /// Starts a TCP connection from socket `h` to `to:port`.
    pub fn tcp_connect(&mut self, h: SocketHandle, to: Ipv4Addr, port: u16) -> Result<()> {
        let local = 49152 + (std::process::id() % 16384) as u16;
        let o = to.octets();
        let cx = self.iface.context();
        self.sockets.get_mut::<tcp::Socket>(h).connect(cx, (IpAddress::v4(o[0], o[1], o[2], o[3]), port), local).map_err(|e| anyhow::anyhow!("connecting to {to}:{port}: {e}"))
    }

    /// The MAC address frames from `ip` came from, once one did.
    pub fn neighbour(&self, ip: Ipv4Addr) -> Option<[u8; 6]> {
        self.neighbours.get(&ip).copied()
    }

    /// Waits (pumping) until the wire's link is up and running (the TAP up, its
    /// operational state up): a host does not transmit before link up, and the kernel
    /// takes no frames from a TAP that is down.
    pub fn wait_link(&mut self, limit: Duration) -> Result<()> {
        let name = self.tap.name().to_string();
        let mut last_check = Instant::now() - Duration::from_secs(1);
        self.pump_until(&format!("the link of {name} (set it up, e.g. `ip link set {name} up`)"), limit, |h| {
            if last_check.elapsed() < Duration::from_millis(20) {
                return Ok(false);
            }
            last_check = Instant::now();
            h.tap.running().with_context(|| format!("reading the state of {name}"))
        })
    }

    /// Whether simulated time has stood still for lack of work (`QUIET_CYCLES`).
    pub fn is_quiet(&self) -> bool {
        self.quiet >= QUIET_CYCLES
    }

    /// One pass: the kernel's frames into the NIC, the stack's frames onto the TX
    /// queue, `STEP` cycles, the NIC's frames to the kernel and its received ones to the
    /// stack. When nothing moved for `QUIET_CYCLES` it waits in poll(2) for the kernel or the
    /// stack's next timer instead of running idle cycles (at most `MAX_WAIT_MS`).
    /// Returns frames moved.
    pub fn pump(&mut self) -> Result<usize> {
        let mut moved = 0;
        // wire → NIC
        while let Some(n) = self.tap.recv(&mut self.buf).with_context(|| format!("reading from {}", self.tap.name()))? {
            let ok = VirtioNetHeader::new_checked(&self.buf[..n]).ok().and_then(|h| VirtioNetRepr::parse(&h).ok()).is_some_and(|r| matches!(r, VirtioNetRepr::Plain | VirtioNetRepr::DataValid));
            let frame = &self.buf[virtio_net::HEADER_LEN.min(n)..n];
            Self::record(&mut self.pcap, frame)?;
            self.count.wire_in_frames += 1;
            // as on the wire: a kernel may strip the padding of a short frame it forwards
            self.count.wire_in_bytes += frame.len().max(fcs::MIN_FRAME) as u64;
            if !ok {
                self.count.wire_in_malformed += 1;
                continue;
            }
            // a real wire pads to the 60-byte minimum; a TAP hands over the bare frame
            let wire = fcs::with_fcs(&fcs::padded(frame));
            let now = self.nic.device().cycles();
            self.busy_until = self.busy_until.max(now) + (wire.len() as u64).div_ceil(8) + 2;
            self.nic.device_mut().inject_rx(&wire, false);
            moved += 1;
        }
        // stack → NIC
        self.serve_echo();
        let now = self.now();
        self.iface.poll(now, &mut self.phy, &mut self.sockets);
        moved += self.post_stack_frames()?;
        self.nic.device_mut().idle(STEP);
        // NIC → wire
        for (f, _) in self.nic.device_mut().take_tx_frames() {
            let frame = &f[..f.len().saturating_sub(4)];
            Self::record(&mut self.pcap, frame)?;
            moved += 1;
            if self.tap.send(&VirtioNetRepr::Plain.to_bytes(), frame).with_context(|| format!("writing to {}", self.tap.name()))? {
                self.count.wire_out_frames += 1;
                self.count.wire_out_bytes += frame.len() as u64;
            } else {
                self.count.wire_out_refused += 1;
            }
        }
        // NIC → stack
        let frames = self.nic.rx_burst_all(64).context("the NIC's RX queues")?;
        for f in frames {
            moved += 1;
            self.count.stack_rx_frames += 1;
            if let Some((ip, mac)) = ipv4_source(&f.data) {
                if ip != self.ip && mac[0] & 1 == 0 {
                    self.neighbours.insert(ip, mac);
                }
            }
            self.phy.rx.push_back(f.data);
        }
        if !self.phy.rx.is_empty() {
            let now = self.now();
            self.iface.poll(now, &mut self.phy, &mut self.sockets);
            moved += self.post_stack_frames()?;
        }
        if let Some(fault) = self.nic.device_mut().take_dma_faults().first() {
            bail!("the NIC behind {}: DMA fault {fault:?}", self.tap.name());
        }
        let busy = self.nic.tx_in_flight(0) > 0 || self.nic.device().cycles() < self.busy_until;
        self.quiet = if moved > 0 || busy { 0 } else { self.quiet + STEP };
        if self.quiet >= QUIET_CYCLES {
            let now = self.now();
            let delay = self.iface.poll_delay(now, &self.sockets).map_or(MAX_WAIT_MS, |d| d.total_millis().min(MAX_WAIT_MS));
            if delay > 0 {
                dev::wait_readable(&[self.tap.raw_fd()], delay as i32);
            }
        }
        Ok(moved)
    }

    /// Answers what came to the UDP echo port (RFC 862), datagram for datagram.
    fn serve_echo(&mut self) {
        let s = self.sockets.get_mut::<udp::Socket>(self.echo);
        while s.can_send() {
            let Ok((data, meta)) = s.recv() else { break };
            let (data, to) = (data.to_vec(), meta.endpoint);
            if s.send_slice(&data, to).is_ok() {
                self.count.udp_echoed += 1;
            }
        }
    }

    /// Puts the stack's frames on TX queue 0 (reaping what the NIC sent). A frame that
    /// finds the ring full waits for the next pass.
    fn post_stack_frames(&mut self) -> Result<usize> {
        if self.nic.tx_in_flight(0) > 0 {
            self.nic.tx_reap_on(0).context("reaping TX queue 0")?;
        }
        let mut posted = 0;
        while !self.phy.tx.is_empty() {
            let frames: Vec<TxFrame> = self.phy.tx.iter().take(32).map(|f| TxFrame::new(f)).collect();
            let n = self.nic.tx_burst_on(0, &frames).context("the stack's frames onto TX queue 0")?;
            drop(frames);
            if n == 0 {
                break;
            }
            self.phy.tx.drain(..n);
            posted += n;
        }
        self.count.stack_tx_frames += posted as u64;
        Ok(posted)
    }

    /// Pumps until `done` says so or `limit` of wall time passed (`Err` naming `what`).
    pub fn pump_until(&mut self, what: &str, limit: Duration, mut done: impl FnMut(&mut SimHost) -> Result<bool>) -> Result<()> {
        let start = Instant::now();
        loop {
            if done(self)? {
                return Ok(());
            }
            if crate::rdma_perf::stopped() {
                bail!("interrupted while waiting for {what}");
            }
            if start.elapsed() > limit {
                bail!("timed out after {:.1} s waiting for {what}", limit.as_secs_f64());
            }
            self.pump()?;
        }
    }
}
