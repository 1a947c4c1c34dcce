//! The behavioural model of the RDMA engine: what the RTL engine must do, read off the
//! register block, the table layouts and the WQE/CQE formats declared in
//! `nic_regmap::rdma` (docs/rdma.md). `RefNic` embeds it when its configuration has
//! `FEATURES.RDMA`; the driver's verbs run on it as they will on the RTL.
//!
//! Split by role as Linux's rdma_rxe is:
//! * [`tables`]: the QP, MR and CQ context tables and the protection checks;
//! * [`requester`]: send queue WQEs into request packets (segmentation by path MTU);
//! * [`responder`]: request packets into memory, receive WQEs, READ responses, ACKs;
//! * [`completer`]: ACKs, NAKs and READ responses back at the requester, and CQEs.
//!
//! Timing is the refnic's: DMA is instantaneous, a packet holds the wire for a cycle per
//! 8 bytes. The responder answers duplicates and gaps (`responder::out_of_sequence`);
//! the requester goes back on timeouts, sequence NAKs, READ response gaps and RNR NAKs
//! (`completer::go_back`, `rewind`, `requester_timers`; `CAPS.RETRANSMIT`).

pub mod completer;
pub mod requester;
pub mod responder;
pub mod tables;

use crate::roce::packet::RoceRepr;
use crate::wire::EthernetAddress;
use nic_regmap::rdma::{self as map, cqc, qpc, QpState, WcStatus};
use std::collections::{BTreeMap, VecDeque};
use tables::{CqRun, QpRun};

/// The engine's view of host memory: reads and writes that an IOMMU may refuse (the
/// caller logs the fault).
pub trait HostPort {
    fn read(&mut self, addr: u64, len: usize) -> Option<Vec<u8>>;
    fn write(&mut self, addr: u64, data: &[u8]) -> bool;
}

/// Table sizes of a build.
#[derive(Clone, Copy, Debug)]
pub struct EngineConfig {
    pub qps: u32,
    pub mrs: u32,
    pub cqs: u32,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig { qps: nic_regmap::reset_of("rdma", "QP_COUNT"), mrs: nic_regmap::reset_of("rdma", "MR_COUNT"), cqs: nic_regmap::reset_of("rdma", "CQ_COUNT") }
    }
}

/// Send WQEs a QP may have on the wire awaiting their ACK or READ response; the
/// requester waits beyond that.
pub const MAX_OUTSTANDING: usize = 16;

/// The engine.
pub struct RdmaEngine {
    pub cfg: EngineConfig,
    control: u32,
    local_ipv4: u32,
    /// ACK_EVERY.N.
    pub(crate) ack_every: u8,
    /// TIMER_UNIT.CYCLES: the transport timer's unit.
    pub(crate) timer_unit: u32,
    table_data: [u32; 16],
    table_status: u32,
    pub(crate) qp: Vec<[u32; qpc::WORDS]>,
    pub(crate) mr: Vec<[u32; map::mrc::WORDS]>,
    pub(crate) cq: Vec<[u32; cqc::WORDS]>,
    pub(crate) qp_run: Vec<QpRun>,
    pub(crate) cq_run: Vec<CqRun>,
    counters: BTreeMap<u32, u32>,
    /// QP visited last by the transmit scheduler.
    rr_last: usize,
    /// Interrupt vectors raised since the caller last looked.
    irq: u32,
}

/// What a packet send needs to know of the NIC around the engine.
#[derive(Clone, Copy, Debug)]
pub struct Station {
    pub mac: EthernetAddress,
    pub now: u64,
}

impl RdmaEngine {
    pub fn new(cfg: EngineConfig) -> RdmaEngine {
        RdmaEngine {
            cfg,
            control: 0,
            local_ipv4: 0,
            ack_every: 0,
            timer_unit: nic_regmap::reset_of("rdma", "TIMER_UNIT"),
            table_data: [0; 16],
            table_status: 0,
            qp: vec![[0; qpc::WORDS]; cfg.qps as usize],
            mr: vec![[0; map::mrc::WORDS]; cfg.mrs as usize],
            cq: vec![[0; cqc::WORDS]; cfg.cqs as usize],
            qp_run: (0..cfg.qps).map(|_| QpRun::default()).collect(),
            cq_run: (0..cfg.cqs).map(|_| CqRun::default()).collect(),
            counters: BTreeMap::new(),
            rr_last: 0,
            irq: 0,
        }
    }

    pub fn enabled(&self) -> bool {
        self.control & 1 != 0
    }

    pub fn local_ipv4(&self) -> u32 {
        self.local_ipv4
    }

    pub(crate) fn count(&mut self, reg: u32, by: u32) {
        let c = self.counters.entry(reg).or_insert(0);
        *c = c.wrapping_add(by);
    }

    /// Interrupt vectors raised since the last call (global IRQ_STATUS bits).
    pub fn take_irq(&mut self) -> u32 {
        std::mem::take(&mut self.irq)
    }

    // ---- registers ----------------------------------------------------------------

    /// A register read at an offset inside the block.
    pub fn reg_read(&self, off: u32) -> u32 {
        match off {
            map::ID => map::ID_VALUE,
            map::VERSION => nic_regmap::reset_of("rdma", "VERSION"),
            map::NEXT => 0,
            map::QP_COUNT => self.cfg.qps,
            map::MR_COUNT => self.cfg.mrs,
            map::CQ_COUNT => self.cfg.cqs,
            // the model's requester retransmits (timeouts, go-back-N, RNR waits)
            map::CAPS => nic_regmap::reset_of("rdma", "CAPS"),
            map::CONTROL => self.control,
            map::LOCAL_IPV4 => self.local_ipv4,
            map::ACK_EVERY => u32::from(self.ack_every),
            map::TIMER_UNIT => self.timer_unit,
            map::TABLE_STATUS => self.table_status,
            o if (map::TABLE_DATA..map::TABLE_DATA + 64).contains(&o) => self.table_data[((o - map::TABLE_DATA) / 4) as usize],
            o if (map::TX_PACKETS..=map::RX_DROP_STATE).contains(&o) => self.counters.get(&o).copied().unwrap_or(0),
            _ => 0,
        }
    }

    /// A register write at an offset inside the block.
    pub fn reg_write(&mut self, off: u32, v: u32, host: &mut dyn HostPort, now: u64) {
        match off {
            map::CONTROL => self.control = v & 1,
            map::LOCAL_IPV4 => self.local_ipv4 = v,
            map::ACK_EVERY => self.ack_every = (v & 7) as u8,
            map::TIMER_UNIT => self.timer_unit = v & 0xffff,
            map::TABLE_CMD => self.table_cmd(v, host, now),
            o if (map::TABLE_DATA..map::TABLE_DATA + 64).contains(&o) => self.table_data[((o - map::TABLE_DATA) / 4) as usize] = v,
            map::SQ_DOORBELL | map::RQ_DOORBELL => {
                let (q, pi) = ((v & 0xff) as usize, (v >> 16) as u16);
                if q < self.qp_run.len() && self.enabled() {
                    let run = &mut self.qp_run[q];
                    *(if off == map::SQ_DOORBELL { &mut run.sq_pi } else { &mut run.rq_pi }) = pi;
                    // a QP in ERR completes what is posted to it flushed
                    if self.qp_state(q) == QpState::Err {
                        self.flush(q, host, now);
                    }
                }
            }
            map::CQ_DOORBELL => {
                let c = (v & 0xf) as usize;
                if c < self.cq_run.len() {
                    let run = &mut self.cq_run[c];
                    run.ci = (v >> 16) as u16;
                    if v & map::CQ_DOORBELL_ARM != 0 {
                        run.armed = Some(v & map::CQ_DOORBELL_SOLICITED != 0);
                        run.pending = 0;
                        run.pending_since = None;
                    }
                }
            }
            _ => {}
        }
    }

    fn table_cmd(&mut self, v: u32, host: &mut dyn HostPort, now: u64) {
        let index = (v & 0xff) as usize;
        let table = (v >> 8) & 3;
        let write = v & map::TABLE_CMD_WRITE != 0;
        let mask = v >> 16;
        let words: &mut [u32] = match table {
            map::TABLE_QP if index < self.qp.len() => &mut self.qp[index],
            map::TABLE_MR if index < self.mr.len() => &mut self.mr[index],
            map::TABLE_CQ if index < self.cq.len() => &mut self.cq[index],
            _ => {
                self.table_status = map::TABLE_STATUS_BAD_INDEX;
                return;
            }
        };
        self.table_status = 0;
        if !write {
            self.table_data = [0; 16];
            self.table_data[..words.len()].copy_from_slice(words);
            return;
        }
        let before: Vec<u32> = words.to_vec();
        for (w, word) in words.iter_mut().enumerate() {
            if mask & (1 << w) != 0 {
                *word = self.table_data[w];
            }
        }
        match table {
            map::TABLE_QP => {
                let old = QpState::from_code(qpc::STATE.get(&before));
                match self.qp_state(index) {
                    QpState::Reset => {
                        qpc::SQ_CI.set(&mut self.qp[index], 0);
                        qpc::RQ_CI.set(&mut self.qp[index], 0);
                        self.qp_run[index] = QpRun::default();
                    }
                    QpState::Err if old != Some(QpState::Err) => self.flush(index, host, now),
                    _ => {}
                }
            }
            map::TABLE_CQ if mask & (1 << cqc::ENABLE.word) != 0 => {
                cqc::PI.set(&mut self.cq[index], 0);
                cqc::OVERFLOW.set(&mut self.cq[index], 0);
                self.cq_run[index] = CqRun::default();
            }
            _ => {}
        }
    }

    pub(crate) fn qp_state(&self, q: usize) -> QpState {
        QpState::from_code(qpc::STATE.get(&self.qp[q])).unwrap_or(QpState::Err)
    }

    /// Moves a QP to ERR and completes every WQE it holds with WR_FLUSH_ERR (the one
    /// that failed has had its CQE already).
    pub(crate) fn to_error(&mut self, q: usize, host: &mut dyn HostPort, now: u64) {
        qpc::STATE.set(&mut self.qp[q], QpState::Err as u32);
        self.flush(q, host, now);
    }

    /// Completes a QP's posted and outstanding WQEs with WR_FLUSH_ERR, send queue in
    /// order, then receive queue in order.
    fn flush(&mut self, q: usize, host: &mut dyn HostPort, now: u64) {
        let words = self.qp[q];
        let mut run = std::mem::take(&mut self.qp_run[q]);
        let send_cq = qpc::SEND_CQ.get(&words) as usize;
        let recv_cq = qpc::RECV_CQ.get(&words) as usize;
        // every WQE taken is outstanding from its first packet on (the one being cut
        // into packets too)
        let mut flushed_sq: Vec<u64> = run.outstanding.drain(..).map(|o| o.wqe.wr_id).collect();
        run.current = None;
        run.timer = None;
        run.rnr_wait = None;
        run.resume = None;
        let mut sq_ci = qpc::SQ_CI.get(&words) as u16;
        while sq_ci != run.sq_pi {
            if let Some(w) = self.read_wqe(host, &words, true, sq_ci) {
                flushed_sq.push(w.wr_id);
            }
            sq_ci = sq_ci.wrapping_add(1);
        }
        let mut flushed_rq = Vec::new();
        if let Some(recv) = run.recv.take() {
            flushed_rq.push(recv.wr_id);
        }
        let mut rq_ci = qpc::RQ_CI.get(&words) as u16;
        while rq_ci != run.rq_pi {
            if let Some(w) = self.read_wqe(host, &words, false, rq_ci) {
                flushed_rq.push(w.wr_id);
            }
            rq_ci = rq_ci.wrapping_add(1);
        }
        qpc::SQ_CI.set(&mut self.qp[q], u32::from(sq_ci));
        qpc::RQ_CI.set(&mut self.qp[q], u32::from(rq_ci));
        run.resp.clear();
        run.write = None;
        self.qp_run[q] = run;
        for wr_id in flushed_sq {
            self.post_cqe(host, send_cq, &Cqe { wr_id, qpn: q as u32, status: WcStatus::WrFlushErr, ..Cqe::default() }, now);
        }
        for wr_id in flushed_rq {
            self.post_cqe(host, recv_cq, &Cqe { wr_id, qpn: q as u32, status: WcStatus::WrFlushErr, opcode: nic_regmap::rdma::cqe::OP_RECV, ..Cqe::default() }, now);
        }
    }

    // ---- completion queues ----------------------------------------------------------

    /// Writes a CQE and raises the CQ's vector if it is armed (after moderation). Public
    /// for the CQ writer's block test.
    pub fn post_cqe(&mut self, host: &mut dyn HostPort, c: usize, e: &Cqe, now: u64) {
        use nic_regmap::rdma::cqe;
        let Some(words) = self.cq.get(c).copied() else { return };
        if cqc::ENABLE.get(&words) == 0 || cqc::OVERFLOW.get(&words) != 0 {
            return self.count(map::CQ_OVERFLOWS, 1);
        }
        let log2 = cqc::LOG2.get(&words);
        let size = 1u32 << log2;
        let pi = cqc::PI.get(&words) as u16;
        if u32::from(pi.wrapping_sub(self.cq_run[c].ci)) >= size {
            cqc::OVERFLOW.set(&mut self.cq[c], 1);
            return self.count(map::CQ_OVERFLOWS, 1);
        }
        let base = u64::from(cqc::BASE_LO.get(&words)) | u64::from(cqc::BASE_HI.get(&words)) << 32;
        let addr = base + cqe::SIZE as u64 * u64::from(u32::from(pi) & (size - 1));
        let owner = if (u32::from(pi) >> log2) & 1 == 0 { cqe::FLAG_OWNER } else { 0 };
        let mut b = e.bytes();
        b[cqe::FLAGS] |= owner;
        // a refused CQE write loses the completion; the CQ stops as on overflow
        if !host.write(addr, &b) {
            cqc::OVERFLOW.set(&mut self.cq[c], 1);
            return self.count(map::CQ_OVERFLOWS, 1);
        }
        cqc::PI.set(&mut self.cq[c], u32::from(pi.wrapping_add(1)));
        let run = &mut self.cq_run[c];
        if let Some(solicited_only) = run.armed {
            if !solicited_only || e.solicited || e.status != WcStatus::Success {
                run.pending += 1;
                if run.pending >= cqc::IRQ_COUNT.get(&words).max(1) {
                    self.irq |= 1 << (map::CQ_IRQ_BASE + c as u32);
                    run.armed = None;
                    run.pending = 0;
                    run.pending_since = None;
                } else if cqc::IRQ_TIMER.get(&words) > 0 && run.pending_since.is_none() {
                    run.pending_since = Some(now);
                }
            }
        }
    }

    /// The requesters' retransmit and RNR timers at cycle `now`, every QP.
    pub fn requester_timers_all(&mut self, host: &mut dyn HostPort, now: u64) {
        for q in 0..self.qp_run.len() {
            self.requester_timers(q, host, now);
        }
    }

    /// Fires the CQ vectors whose moderation timer ran out by `now`.
    pub fn tick(&mut self, now: u64) {
        for (c, run) in self.cq_run.iter_mut().enumerate() {
            if let Some(t) = run.pending_since {
                if now >= t + u64::from(cqc::IRQ_TIMER.get(&self.cq[c])) {
                    self.irq |= 1 << (map::CQ_IRQ_BASE + c as u32);
                    run.armed = None;
                    run.pending = 0;
                    run.pending_since = None;
                }
            }
        }
    }

    // ---- the wire -------------------------------------------------------------------

    /// The next packet to send, the transmit scheduler's pick: QPs take turns, a packet
    /// each (round-robin), so one long message never holds the wire; within a QP,
    /// responses (ACKs, READ responses) go before new requests.
    pub fn next_packet(&mut self, host: &mut dyn HostPort, st: Station) -> Option<Vec<u8>> {
        if !self.enabled() {
            return None;
        }
        let n = self.qp_run.len();
        for i in 1..=n {
            let q = (self.rr_last + i) % n;
            let packet = self.responder_packet(q, host, st).or_else(|| self.requester_packet(q, host, st));
            if let Some((repr, payload)) = packet {
                self.rr_last = q;
                self.count(map::TX_PACKETS, 1);
                self.count(map::TX_BYTES, payload.len() as u32);
                return Some(repr.emit_frame(&payload));
            }
        }
        None
    }

    /// A frame the classifier diverted (UDP 4791 to LOCAL_IPV4), FCS removed.
    pub fn receive(&mut self, frame: &[u8], host: &mut dyn HostPort, now: u64) {
        use crate::roce::RoceError;
        let (repr, range) = match RoceRepr::parse_frame(frame) {
            Ok(p) => p,
            Err(RoceError::BadIcrc) => return self.count(map::RX_DROP_ICRC, 1),
            Err(RoceError::UnknownOpcode(_)) | Err(_) => return self.count(map::RX_DROP_MALFORMED, 1),
        };
        let payload = &frame[range];
        let q = repr.bth.dest_qp as usize;
        if q < map::FIRST_QPN as usize || q >= self.qp.len() {
            return self.count(map::RX_DROP_QP, 1);
        }
        let info = crate::roce::opcode::info(repr.bth.opcode).expect("parse checked the opcode");
        let state = self.qp_state(q);
        let ok = if info.is_request() { matches!(state, QpState::Rtr | QpState::Rts) } else { state == QpState::Rts };
        if !ok {
            return self.count(map::RX_DROP_STATE, 1);
        }
        self.count(map::RX_PACKETS, 1);
        self.count(map::RX_BYTES, payload.len() as u32);
        if info.is_request() {
            self.responder_receive(q, &repr, info, payload, host, now);
        } else {
            self.completer_receive(q, &repr, info, payload, host, now);
        }
    }

    pub(crate) fn packet_header(&self, q: usize, st: Station, opcode: u8, psn: u32, ack_req: bool, solicited: bool) -> RoceRepr {
        use crate::wire::bth::{BthRepr, DEFAULT_PKEY};
        use std::net::{IpAddr, Ipv4Addr};
        let w = &self.qp[q];
        let mac = (u64::from(qpc::DEST_MAC_LO.get(w)) | u64::from(qpc::DEST_MAC_HI.get(w)) << 32).to_le_bytes();
        RoceRepr {
            eth_src: st.mac,
            eth_dst: EthernetAddress([mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]]),
            ip_src: IpAddr::V4(Ipv4Addr::from(self.local_ipv4)),
            ip_dst: IpAddr::V4(Ipv4Addr::from(qpc::DEST_IPV4.get(w))),
            traffic_class: 0,
            ttl: 64,
            udp_src_port: qpc::UDP_SPORT.get(w) as u16,
            bth: BthRepr { opcode, solicited, mig_req: false, pad_count: 0, pkey: DEFAULT_PKEY, fecn: false, becn: false, dest_qp: qpc::DEST_QPN.get(w), ack_req, psn },
            reth: None,
            aeth: None,
            immdt: None,
        }
    }

    /// Reads WQE `index` of a QP's send (`sq`) or receive queue.
    pub(crate) fn read_wqe(&self, host: &mut dyn HostPort, words: &[u32], sq: bool, index: u16) -> Option<tables::Wqe> {
        let (lo, hi, log2) = if sq { (qpc::SQ_BASE_LO, qpc::SQ_BASE_HI, qpc::SQ_LOG2) } else { (qpc::RQ_BASE_LO, qpc::RQ_BASE_HI, qpc::RQ_LOG2) };
        let log2 = log2.get(words);
        if log2 == 0 {
            return None;
        }
        let base = u64::from(lo.get(words)) | u64::from(hi.get(words)) << 32;
        let addr = base + (map::wqe::SIZE as u64) * u64::from(u32::from(index) & ((1 << log2) - 1));
        host.read(addr, map::wqe::SIZE).map(|b| tables::Wqe::parse(&b))
    }
}

/// A completion as the engine reports it.
#[derive(Clone, Debug, Default)]
pub struct Cqe {
    pub wr_id: u64,
    pub byte_len: u32,
    pub imm: Option<u32>,
    pub qpn: u32,
    pub opcode: u8,
    pub status: WcStatus,
    pub solicited: bool,
    pub syndrome: u8,
}

impl Cqe {
    /// The CQE's 32 bytes in its ring, owner bit clear (`nic_regmap::rdma::cqe`).
    pub fn bytes(&self) -> [u8; nic_regmap::rdma::cqe::SIZE] {
        use nic_regmap::rdma::cqe;
        let mut b = [0u8; cqe::SIZE];
        b[cqe::WR_ID..cqe::WR_ID + 8].copy_from_slice(&self.wr_id.to_le_bytes());
        b[cqe::BYTE_LEN..cqe::BYTE_LEN + 4].copy_from_slice(&self.byte_len.to_le_bytes());
        b[cqe::IMM..cqe::IMM + 4].copy_from_slice(&self.imm.unwrap_or(0).to_le_bytes());
        b[cqe::QPN..cqe::QPN + 4].copy_from_slice(&self.qpn.to_le_bytes());
        b[cqe::OPCODE] = self.opcode;
        b[cqe::STATUS] = self.status as u8;
        b[cqe::FLAGS] = if self.imm.is_some() { cqe::FLAG_IMM } else { 0 } | if self.solicited { cqe::FLAG_SOLICITED } else { 0 };
        b[cqe::SYNDROME] = self.syndrome;
        b
    }
}

/// Work the transmit side holds per QP beside the requests: what the responder owes.
#[derive(Clone, Debug)]
pub enum Response {
    Ack { psn: u32, syndrome: u8, msn: u32 },
    Read { psn: u32, bus: u64, len: u32, sent: u32, msn: u32 },
}

pub type ResponseQueue = VecDeque<Response>;
