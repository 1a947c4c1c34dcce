//! Two NICs back to back for RDMA: each with its own host memory behind its IOMMU,
//! joined by a wire that carries every frame either sends to the other (RDMA and
//! ordinary Ethernet alike), driven only through the driver's verbs. The suites,
//! `nic sim rdma` and `nic bench rdma` build on it.

use crate::impair::{ImpairConfig, ImpairStats, Impairment};
use crate::traffic::WireAccess;
use nic_driver::verbs::{Cq, Mr, Mtu, Pd, Qp, QpAttr, QpCaps, QpState, Wc};
use nic_driver::{Device, DmaRegion, DriverError, MacFilter, Nic, NicConfig};
use std::net::Ipv4Addr;

/// One side: its NIC, a protection domain, a send and a receive CQ, a buffer
/// registered for every access, and its QPs.
pub struct Side<D: Device + WireAccess> {
    pub nic: Nic<D>,
    pub mac: [u8; 6],
    pub ip: Ipv4Addr,
    pub pd: Pd,
    pub send_cq: Cq,
    pub recv_cq: Cq,
    pub buf: DmaRegion,
    pub mr: Mr,
    pub qps: Vec<Qp>,
}

/// How a pair is set up.
#[derive(Clone, Copy, Debug)]
pub struct PairConfig {
    pub mtu: Mtu,
    pub qps: usize,
    /// Bytes of each side's registered buffer.
    pub buf_len: usize,
    /// log2 of each QP's send and receive queue.
    pub queue_log2: u32,
    /// log2 of each CQ.
    pub cq_log2: u32,
    /// Cycles both NICs run between two passes over the wire.
    pub step: u64,
    /// The first PSN of every QP both ways (else PSNs differ per QP and direction).
    pub psn_start: Option<u32>,
    /// ACK coalescing on both sides (the driver's `rdma_set_ack_every`; else 0).
    pub ack_every: Option<u8>,
    /// The QPs' retransmission attributes, set where both engines have CAPS.RETRANSMIT
    /// (`Pair::retransmits` says whether they were).
    pub retransmit: Option<Retransmit>,
}

/// ibverbs' `timeout`, `retry_cnt`, `rnr_retry` and `min_rnr_timer` of every QP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retransmit {
    pub timeout: u8,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    pub min_rnr_timer: u8,
}

impl Default for PairConfig {
    fn default() -> Self {
        PairConfig { mtu: Mtu::M1024, qps: 1, buf_len: 1 << 20, queue_log2: 6, cq_log2: 10, step: 16, psn_start: None, retransmit: None, ack_every: None }
    }
}

/// A frame that crossed the wire: from A to B (`a_to_b`) or back, with its FCS.
#[derive(Clone, Debug)]
pub struct WireFrame {
    pub a_to_b: bool,
    pub frame: Vec<u8>,
    /// Cycles of side A when it crossed.
    pub cycle: u64,
}

/// The pair.
pub struct Pair<A: Device + WireAccess, B: Device + WireAccess> {
    pub a: Side<A>,
    pub b: Side<B>,
    pub cfg: PairConfig,
    /// Every frame that crossed, when `capture` is set.
    pub capture: bool,
    pub wire: Vec<WireFrame>,
    /// What the wire does to frames from A to B (`[0]`) and from B to A (`[1]`).
    pub impair: [Impairment; 2],
    /// The AETH syndromes of the Acknowledge packets delivered (either way), by syndrome.
    pub acks: std::collections::BTreeMap<u8, u64>,
}

/// The AETH syndrome of a RoCEv2 Acknowledge packet (untagged IPv4), else `None`.
fn ack_syndrome(frame: &[u8]) -> Option<u8> {
    use crate::roce::opcode::ACKNOWLEDGE;
    if frame.len() < 14 + 20 + 8 + 16 || frame[12..14] != [0x08, 0x00] {
        return None;
    }
    let ihl = usize::from(frame[14] & 0xf) * 4;
    let udp = 14 + ihl;
    let bth = udp + 8;
    (frame.get(23) == Some(&17) && frame.get(udp + 2..udp + 4) == Some(&4791u16.to_be_bytes()[..]) && frame.get(bth) == Some(&ACKNOWLEDGE)).then(|| frame.get(bth + 12).copied()).flatten()
}

fn open_side<D: Device + WireAccess>(dev: D, index: u8, cfg: &PairConfig) -> Result<Side<D>, DriverError> {
    let mut nic = Nic::open_with(dev, NicConfig::default())?;
    let mac = [0x02, 0, 0, 0, 0, index + 1];
    let ip = Ipv4Addr::new(10, 0, 0, index + 1);
    nic.set_mac(mac)?;
    nic.set_mac_filter(0, Some(MacFilter { addr: mac, steer_queue: None }))?;
    nic.rdma_open(ip)?;
    if let Some(n) = cfg.ack_every {
        nic.rdma_set_ack_every(n)?;
    }
    let pd = nic.alloc_pd()?;
    let send_cq = nic.create_cq(cfg.cq_log2)?;
    let recv_cq = nic.create_cq(cfg.cq_log2)?;
    let buf = nic.device_mut().alloc_dma(cfg.buf_len)?;
    use nic_driver::verbs::access::*;
    let mr = nic.reg_mr(pd, buf.bus_addr, cfg.buf_len, LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ)?;
    let caps = QpCaps { sq_log2: cfg.queue_log2, rq_log2: cfg.queue_log2, sig_all: false };
    let qps = (0..cfg.qps).map(|_| nic.create_qp(pd, send_cq, recv_cq, caps)).collect::<Result<Vec<_>, _>>()?;
    Ok(Side { nic, mac, ip, pd, send_cq, recv_cq, buf, mr, qps })
}

/// Moves one QP through INIT and RTR to RTS, connected to `peer` at `peer_mac`/`peer_ip`.
#[allow(clippy::too_many_arguments)]
pub fn connect<D: Device>(nic: &mut Nic<D>, qp: Qp, peer: Qp, peer_mac: [u8; 6], peer_ip: Ipv4Addr, mtu: Mtu, psn_out: u32, psn_in: u32, retransmit: Option<Retransmit>) -> Result<(), DriverError> {
    use nic_driver::verbs::access::*;
    nic.modify_qp(qp, QpState::Init, &QpAttr { access: Some(REMOTE_WRITE | REMOTE_READ), ..QpAttr::default() })?;
    let rtr = QpAttr {
        path_mtu: Some(mtu),
        dest_qpn: Some(peer.qpn),
        rq_psn: Some(psn_in),
        dest_mac: Some(peer_mac),
        dest_ipv4: Some(peer_ip),
        min_rnr_timer: retransmit.map(|r| r.min_rnr_timer),
        ..QpAttr::default()
    };
    nic.modify_qp(qp, QpState::Rtr, &rtr)?;
    let rts = QpAttr { sq_psn: Some(psn_out), timeout: retransmit.map(|r| r.timeout), retry_cnt: retransmit.map(|r| r.retry_cnt), rnr_retry: retransmit.map(|r| r.rnr_retry), ..QpAttr::default() };
    nic.modify_qp(qp, QpState::Rts, &rts)
}

impl<A: Device + WireAccess, B: Device + WireAccess> Pair<A, B> {
    /// Opens both NICs, sets each up ([`Side`]) and connects QP i of A to QP i of B;
    /// starting PSNs differ per QP and per direction (and some wrap the 24-bit circle).
    pub fn new(dev_a: A, dev_b: B, cfg: PairConfig) -> Result<Self, DriverError> {
        let mut a = open_side(dev_a, 0, &cfg)?;
        let mut b = open_side(dev_b, 1, &cfg)?;
        // retransmission where the engine has it (CAPS.RETRANSMIT), on both sides alike
        let retransmit = cfg.retransmit.filter(|_| a.nic.rdma_retransmits().unwrap_or(false) && b.nic.rdma_retransmits().unwrap_or(false));
        for i in 0..cfg.qps {
            let psn_ab = cfg.psn_start.unwrap_or((0xff_fff0 + 0x1_2345 * i as u32) & 0xff_ffff);
            let psn_ba = cfg.psn_start.unwrap_or((0x10 + 0x5_4321 * i as u32) & 0xff_ffff);
            connect(&mut a.nic, a.qps[i], b.qps[i], b.mac, b.ip, cfg.mtu, psn_ab, psn_ba, retransmit)?;
            connect(&mut b.nic, b.qps[i], a.qps[i], a.mac, a.ip, cfg.mtu, psn_ba, psn_ab, retransmit)?;
        }
        let clean = || Impairment::new(ImpairConfig::clean());
        Ok(Pair { a, b, cfg, capture: false, wire: Vec::new(), impair: [clean(), clean()], acks: Default::default() })
    }

    /// The QPs were given `PairConfig::retransmit` (both engines retransmit).
    pub fn retransmits(&mut self) -> bool {
        self.cfg.retransmit.is_some() && self.a.nic.rdma_retransmits().unwrap_or(false) && self.b.nic.rdma_retransmits().unwrap_or(false)
    }

    /// Impairs the wire: each direction gets `cfg` with a seed of its own.
    pub fn set_impairment(&mut self, cfg: ImpairConfig) {
        self.impair = [Impairment::new(cfg), Impairment::new(ImpairConfig { seed: cfg.seed ^ 0x5eed_b2a0, ..cfg })];
    }

    /// What the wire did, both directions summed.
    pub fn impair_stats(&self) -> ImpairStats {
        let mut s = self.impair[0].stats;
        s.add(&self.impair[1].stats);
        s
    }

    /// Runs both NICs `cycles` cycles, in steps, carrying frames across after each step.
    /// Returns the frames carried.
    pub fn run(&mut self, cycles: u64) -> usize {
        let mut moved = 0;
        let mut left = cycles;
        while left > 0 {
            let s = left.min(self.cfg.step);
            self.a.nic.device_mut().idle(s);
            self.b.nic.device_mut().idle(s);
            moved += self.carry();
            left -= s;
        }
        moved
    }

    /// Carries what each NIC sent since the last call to the other, through the wire's
    /// impairment (frames it holds back arrive at a later call). Returns the frames sent.
    pub fn carry(&mut self) -> usize {
        let cycle = self.a.nic.device().cycles();
        let sent_a = self.a.nic.device_mut().take_tx_frames();
        let sent_b = self.b.nic.device_mut().take_tx_frames();
        let n = sent_a.len() + sent_b.len();
        for (f, err) in sent_a {
            self.impair[0].offer(&f, err, cycle);
        }
        for (f, err) in sent_b {
            self.impair[1].offer(&f, err, cycle);
        }
        let from_a = self.impair[0].deliver(cycle);
        let from_b = self.impair[1].deliver(cycle);
        for (f, _) in from_a.iter().chain(from_b.iter()) {
            if let Some(s) = ack_syndrome(f) {
                *self.acks.entry(s).or_default() += 1;
            }
        }
        for (f, err) in from_a {
            self.b.nic.device_mut().inject_rx(&f, err);
            if self.capture {
                self.wire.push(WireFrame { a_to_b: true, frame: f, cycle });
            }
        }
        for (f, err) in from_b {
            self.a.nic.device_mut().inject_rx(&f, err);
            if self.capture {
                self.wire.push(WireFrame { a_to_b: false, frame: f, cycle });
            }
        }
        n
    }

    /// Runs until `want` completions arrived on the CQs named (side A: `true`),
    /// polling every step; gives up after `stall` cycles without a completion.
    pub fn collect(&mut self, cqs: &[(bool, Cq)], want: usize, stall: u64) -> Result<Vec<(bool, Wc)>, DriverError> {
        let mut got = Vec::new();
        let mut quiet = 0;
        while got.len() < want {
            let before = got.len();
            for &(on_a, cq) in cqs {
                let wcs = if on_a { self.a.nic.poll_cq(cq, 64)? } else { self.b.nic.poll_cq(cq, 64)? };
                got.extend(wcs.into_iter().map(|w| (on_a, w)));
            }
            if got.len() == before {
                if quiet >= stall {
                    // the engines' counters say where it stopped
                    let text = |c: Vec<(&str, u32)>| c.iter().filter(|(_, v)| *v != 0).map(|(n, v)| format!("{n} {v}")).collect::<Vec<_>>().join(", ");
                    let (ca, cb) = (text(self.a.nic.rdma_counters().unwrap_or_default()), text(self.b.nic.rdma_counters().unwrap_or_default()));
                    return Err(DriverError::Timeout { what: format!("{want} RDMA completions ({} arrived; NIC A: {ca}; NIC B: {cb})", got.len()), cycles: stall });
                }
                self.run(self.cfg.step);
                quiet += self.cfg.step;
            } else {
                quiet = 0;
            }
        }
        Ok(got)
    }
}
