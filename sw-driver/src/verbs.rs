//! RDMA verbs, in the shape people know from ibverbs: protection domains, memory
//! regions, completion queues, reliable connected queue pairs, work requests and
//! work completions.
//!
//! Everything goes through the engine's register block (`nic_regmap::rdma`): the
//! context tables through `TABLE_CMD`/`TABLE_DATA`, work through 128-byte WQEs in host
//! memory and a doorbell per queue, completions through 32-byte CQEs whose owner bit
//! says which pass of the ring wrote them. The same code runs on the RTL and on the
//! behavioural model (`nic_testbench::refnic`). docs/rdma.md describes the engine.
//!
//! Memory regions here are contiguous in bus address space (what `alloc_dma` returns)
//! and their IO virtual address is the bus address unless the caller names another.

use crate::device::{Device, DmaRegion};
use crate::error::DriverError;
use crate::nic::Nic;
use crate::regs::RegisterVerbs;
pub use nic_regmap::rdma::{access, QpState, WcStatus};
use nic_regmap::rdma::{self as map, cqc, cqe, mrc, qpc, wqe};
use std::collections::VecDeque;
use std::fmt;
use std::net::Ipv4Addr;

/// Why a verb was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RdmaError {
    /// The build has no RDMA engine (`FEATURES.RDMA` clear).
    NotSupported,
    /// `rdma_open` has not run.
    NotOpen,
    /// Every entry of a table is in use.
    Exhausted { what: &'static str, count: u32 },
    /// A handle that is not (or no longer) valid.
    BadHandle { what: &'static str, index: u32 },
    /// `modify_qp` to a state the QP's current state does not lead to.
    InvalidTransition { qpn: u32, from: QpState, to: QpState },
    /// `modify_qp` without an attribute the transition needs.
    MissingAttribute { qpn: u32, to: QpState, attribute: &'static str },
    /// A work request the driver refuses before anything is posted.
    InvalidWorkRequest { index: usize, reason: String },
    /// A post to a QP in a state that does not take it.
    WrongState { qpn: u32, state: QpState, verb: &'static str },
    /// The queue has no room for the work requests (none of them was posted).
    QueueFull { qpn: u32, send: bool, free: usize },
    /// A completion queue lost completions: it was full (`CQ_OVERFLOWS`).
    CqOverflow { cqn: u32 },
    /// A bad argument.
    InvalidArgument(String),
    /// The engine did not finish a table command.
    TableTimeout,
}

impl fmt::Display for RdmaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotSupported => f.write_str("this NIC build has no RDMA engine (FEATURES.RDMA is clear)"),
            Self::NotOpen => f.write_str("RDMA is not open on this NIC: call rdma_open first"),
            Self::Exhausted { what, count } => write!(f, "all {count} {what}s are in use"),
            Self::BadHandle { what, index } => write!(f, "{what} {index} does not exist or was destroyed"),
            Self::InvalidTransition { qpn, from, to } => write!(f, "QP {qpn}: no transition from {from:?} to {to:?}"),
            Self::MissingAttribute { qpn, to, attribute } => write!(f, "QP {qpn}: moving to {to:?} needs the attribute {attribute}"),
            Self::InvalidWorkRequest { index, reason } => write!(f, "work request {index} refused: {reason}"),
            Self::WrongState { qpn, state, verb } => write!(f, "QP {qpn} is in state {state:?}, which does not take {verb}"),
            Self::QueueFull { qpn, send, free } => write!(f, "QP {qpn}: {} queue has room for {free} more work requests", if *send { "send" } else { "receive" }),
            Self::CqOverflow { cqn } => write!(f, "CQ {cqn} overflowed and lost completions; destroy and recreate it"),
            Self::InvalidArgument(s) => write!(f, "{s}"),
            Self::TableTimeout => f.write_str("the engine did not finish a table command (TABLE_STATUS.BUSY stuck)"),
        }
    }
}

impl std::error::Error for RdmaError {}

/// A protection domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pd(pub u32);

/// A registered memory region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mr {
    pub pd: Pd,
    /// The key local work requests name it by, and remote ones (the same value).
    pub lkey: u32,
    pub rkey: u32,
    /// Its first address as work requests and remote peers name it.
    pub addr: u64,
    pub len: u32,
    pub access: u32,
}

/// A completion queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cq {
    pub cqn: u32,
}

/// A reliable connected queue pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Qp {
    pub qpn: u32,
}

/// Path MTU (IB encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Mtu {
    M256 = 1,
    M512 = 2,
    M1024 = 3,
    M2048 = 4,
    M4096 = 5,
}

impl Mtu {
    pub fn bytes(self) -> u32 {
        128 << self as u32
    }
    pub fn from_bytes(b: u32) -> Option<Mtu> {
        Some(match b {
            256 => Mtu::M256,
            512 => Mtu::M512,
            1024 => Mtu::M1024,
            2048 => Mtu::M2048,
            4096 => Mtu::M4096,
            _ => return None,
        })
    }
}

/// Queue sizes of a new QP.
#[derive(Clone, Copy, Debug)]
pub struct QpCaps {
    /// log2 of the send queue's WQEs (1..=15).
    pub sq_log2: u32,
    /// log2 of the receive queue's WQEs (1..=15).
    pub rq_log2: u32,
    /// Every send WQE completes with a CQE, signalled or not.
    pub sig_all: bool,
}

impl Default for QpCaps {
    fn default() -> Self {
        QpCaps { sq_log2: 6, rq_log2: 6, sig_all: false }
    }
}

/// `modify_qp`'s attributes; `None` leaves one as it is. RESET → INIT takes `access`;
/// INIT → RTR needs the path (`path_mtu`, `dest_qpn`, `rq_psn`, `dest_mac`,
/// `dest_ipv4`; `udp_sport` defaults to 0xC000 | QPN); RTR → RTS needs `sq_psn`.
#[derive(Clone, Copy, Debug, Default)]
pub struct QpAttr {
    pub access: Option<u32>,
    pub path_mtu: Option<Mtu>,
    pub dest_qpn: Option<u32>,
    pub rq_psn: Option<u32>,
    pub sq_psn: Option<u32>,
    pub dest_mac: Option<[u8; 6]>,
    pub dest_ipv4: Option<Ipv4Addr>,
    pub udp_sport: Option<u16>,
    /// The RNR timer code this QP's RNR NAKs carry (0..=31, IBTA table 45; ibverbs'
    /// `min_rnr_timer`).
    pub min_rnr_timer: Option<u8>,
    /// Local ACK timeout code (0..=31: 4.096 us x 2^timeout; 0: none), retries after a
    /// timeout or a PSN sequence NAK (0..=7), and after an RNR NAK (0..=7, 7: for ever):
    /// ibverbs' `timeout`, `retry_cnt`, `rnr_retry`. Only an engine with CAPS.RETRANSMIT
    /// takes values other than 0.
    pub timeout: Option<u8>,
    pub retry_cnt: Option<u8>,
    pub rnr_retry: Option<u8>,
    /// READs this QP may have outstanding at once (ibverbs' `max_rd_atomic`, the
    /// initiator depth: at most the remote's `max_dest_rd_atomic`), 0..=15; 0, as after
    /// create_qp: no bound but the engine's 14 outstanding WQEs.
    pub max_rd_atomic: Option<u8>,
}

/// Whether the engine retransmits (CAPS.RETRANSMIT), as `rdma_open` read it.
impl<D: Device> Nic<D> {
    pub fn rdma_retransmits(&mut self) -> Result<bool, DriverError> {
        Ok(self.rdma_state()?.retransmit)
    }

    /// ACK coalescing (ACK_EVERY): the responder ACKs a QP's requests at least every
    /// `n` it takes (1..=7), besides those asking; 0: only those asking.
    pub fn rdma_set_ack_every(&mut self, n: u8) -> Result<(), DriverError> {
        if n > 7 {
            return Err(RdmaError::InvalidArgument(format!("ACK_EVERY {n}: at most 7")).into());
        }
        let base = self.rdma_state()?.base;
        self.dev.set_reg32(base + map::ACK_EVERY, u32::from(n))?;
        Ok(())
    }

    /// The transport timer's unit (TIMER_UNIT): a QP's timer runs `cycles << timeout`
    /// core cycles (640, IBTA's 4.096 us at 156.25 MHz, after reset). A smaller unit makes
    /// a simulation's timeouts come sooner.
    pub fn rdma_set_timer_unit(&mut self, cycles: u16) -> Result<(), DriverError> {
        if cycles == 0 {
            return Err(RdmaError::InvalidArgument("TIMER_UNIT 0: at least one cycle".into()).into());
        }
        let base = self.rdma_state()?.base;
        self.dev.set_reg32(base + map::TIMER_UNIT, u32::from(cycles))?;
        Ok(())
    }
}

/// One scatter-gather entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sge {
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

/// What a send work request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendOp {
    Send,
    SendImm { imm: u32 },
    Write { remote_addr: u64, rkey: u32 },
    WriteImm { remote_addr: u64, rkey: u32, imm: u32 },
    Read { remote_addr: u64, rkey: u32 },
}

/// A send work request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendWr {
    pub wr_id: u64,
    pub op: SendOp,
    pub sg_list: Vec<Sge>,
    /// Write a CQE on success (errors always do).
    pub signaled: bool,
    /// Set the solicited event bit (the receiver's CQ armed for solicited events fires).
    pub solicited: bool,
}

/// A receive work request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecvWr {
    pub wr_id: u64,
    pub sg_list: Vec<Sge>,
}

/// What a completion completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WcOpcode {
    Send,
    RdmaWrite,
    RdmaRead,
    Recv,
    RecvRdmaWithImm,
}

/// A work completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wc {
    pub wr_id: u64,
    pub status: WcStatus,
    pub opcode: WcOpcode,
    pub byte_len: u32,
    pub imm: Option<u32>,
    pub qpn: u32,
    pub solicited: bool,
    /// The AETH syndrome of the NAK that failed the work request (0 otherwise).
    pub syndrome: u8,
}

#[derive(Clone, Debug)]
struct CqShadow {
    ring: DmaRegion,
    log2: u32,
    ci: u16,
}

#[derive(Clone, Debug)]
struct QpShadow {
    send_cq: Cq,
    recv_cq: Cq,
    caps: QpCaps,
    sq: DmaRegion,
    rq: DmaRegion,
    /// The table words as last stored (the engine-owned ones re-read when needed).
    words: [u32; qpc::WORDS],
    state: QpState,
    sq_pi: u16,
    rq_pi: u16,
    /// Send WQEs posted and not yet completed: (wr_id, signalled); a signalled CQE
    /// retires the unsignalled ones before it.
    sq_pending: VecDeque<(u64, bool)>,
    rq_pending: usize,
}

/// The verbs' state inside a [`Nic`].
#[derive(Clone, Debug)]
pub struct RdmaState {
    base: u32,
    qps: u32,
    mrs: u32,
    cqs: u32,
    next_pd: u32,
    /// Bumped at every registration so a stale key misses (MR.KEY bits 31:8).
    key_tag: u32,
    mr: Vec<Option<Mr>>,
    cq: Vec<Option<CqShadow>>,
    qp: Vec<Option<QpShadow>>,
    /// CAPS.RETRANSMIT: the engine honours TIMEOUT, RETRY_CNT and RNR_RETRY.
    retransmit: bool,
}

/// Most register polls a table command may take.
const TABLE_POLLS: u32 = 1000;

impl<D: Device> Nic<D> {
    fn rdma_state(&mut self) -> Result<&mut RdmaState, RdmaError> {
        self.rdma.as_mut().ok_or(RdmaError::NotOpen)
    }

    /// Whether this build has the RDMA engine.
    pub fn has_rdma(&self) -> bool {
        self.layout.rdma.is_some()
    }

    /// Opens the RDMA engine with the NIC's own IPv4 address: every table entry is
    /// reset (QPs to RESET, MRs invalid, CQs off), then the engine is enabled.
    pub fn rdma_open(&mut self, local_ipv4: Ipv4Addr) -> Result<(), DriverError> {
        let base = self.layout.rdma.ok_or(RdmaError::NotSupported)?;
        let qps = self.dev.get_reg32(base + map::QP_COUNT)?;
        let mrs = self.dev.get_reg32(base + map::MR_COUNT)?;
        let cqs = self.dev.get_reg32(base + map::CQ_COUNT)?;
        if qps > 256 || mrs > 256 || cqs > map::MAX_CQS || qps <= map::FIRST_QPN || mrs == 0 || cqs == 0 {
            return Err(DriverError::NicMisbehaved(format!("RDMA table sizes QP {qps}, MR {mrs}, CQ {cqs} outside the map's room")));
        }
        let retransmit = self.dev.get_reg32(base + map::CAPS)? & map::CAPS_RETRANSMIT != 0;
        self.dev.set_reg32(base + map::CONTROL, 0)?;
        self.rdma = Some(RdmaState { base, qps, mrs, cqs, next_pd: 1, key_tag: 0, mr: vec![None; mrs as usize], cq: vec![None; cqs as usize], qp: vec![None; qps as usize], retransmit });
        let zero = [0u32; 16];
        for q in 0..qps {
            self.table_store(map::TABLE_QP, q, &zero[..qpc::WORDS], u32::MAX)?;
        }
        for m in 0..mrs {
            self.table_store(map::TABLE_MR, m, &zero[..mrc::WORDS], u32::MAX)?;
        }
        for c in 0..cqs {
            self.table_store(map::TABLE_CQ, c, &zero[..cqc::WORDS], u32::MAX)?;
        }
        self.dev.set_reg32(base + map::LOCAL_IPV4, u32::from(local_ipv4))?;
        self.dev.set_reg32(base + map::CONTROL, 1)?;
        Ok(())
    }

    fn table_wait(&mut self, base: u32) -> Result<(), DriverError> {
        for _ in 0..TABLE_POLLS {
            let st = self.dev.get_reg32(base + map::TABLE_STATUS)?;
            if st & map::TABLE_STATUS_BUSY == 0 {
                if st & map::TABLE_STATUS_BAD_INDEX != 0 {
                    return Err(DriverError::NicMisbehaved("the RDMA engine refused a table index its counts allow".into()));
                }
                return Ok(());
            }
        }
        Err(RdmaError::TableTimeout.into())
    }

    /// Stores the words `mask` selects into entry `index` of `table`.
    fn table_store(&mut self, table: u32, index: u32, words: &[u32], mask: u32) -> Result<(), DriverError> {
        let base = self.rdma_state()?.base;
        for (w, &v) in words.iter().enumerate() {
            if mask & (1 << w) != 0 {
                self.dev.set_reg32(base + map::TABLE_DATA + 4 * w as u32, v)?;
            }
        }
        let mask = mask & ((1 << words.len()) - 1);
        self.dev.set_reg32(base + map::TABLE_CMD, index | table << 8 | map::TABLE_CMD_WRITE | mask << 16)?;
        self.table_wait(base)
    }

    /// Loads entry `index` of `table`.
    fn table_load(&mut self, table: u32, index: u32, words: usize) -> Result<Vec<u32>, DriverError> {
        let base = self.rdma_state()?.base;
        self.dev.set_reg32(base + map::TABLE_CMD, index | table << 8)?;
        self.table_wait(base)?;
        (0..words).map(|w| self.dev.get_reg32(base + map::TABLE_DATA + 4 * w as u32)).collect()
    }

    /// A new protection domain.
    pub fn alloc_pd(&mut self) -> Result<Pd, DriverError> {
        let st = self.rdma_state()?;
        let pd = Pd(st.next_pd & 0xffff);
        st.next_pd = (st.next_pd % 0xffff) + 1;
        Ok(pd)
    }

    /// Registers `len` bytes at bus address `bus_addr` (memory from `alloc_dma`) for
    /// `access` (`access::*` bits), named by its bus address.
    pub fn reg_mr(&mut self, pd: Pd, bus_addr: u64, len: usize, access: u32) -> Result<Mr, DriverError> {
        self.reg_mr_iova(pd, bus_addr, len, bus_addr, access)
    }

    /// As [`Nic::reg_mr`], with the region named from `iova` on.
    pub fn reg_mr_iova(&mut self, pd: Pd, bus_addr: u64, len: usize, iova: u64, access: u32) -> Result<Mr, DriverError> {
        let bits = self.layout.dma_addr_bits;
        let len32 = u32::try_from(len).map_err(|_| RdmaError::InvalidArgument(format!("a region of {len} bytes: at most 4 GiB - 1")))?;
        if access & !(access::LOCAL_WRITE | access::REMOTE_WRITE | access::REMOTE_READ) != 0 {
            return Err(RdmaError::InvalidArgument(format!("access bits {access:#x}: only LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ")).into());
        }
        if access & access::REMOTE_WRITE != 0 && access & access::LOCAL_WRITE == 0 {
            // ibverbs' rule: remote write access needs local write access
            return Err(RdmaError::InvalidArgument("REMOTE_WRITE needs LOCAL_WRITE".into()).into());
        }
        if bits < 64 && (bus_addr + len as u64) > (1u64 << bits) {
            return Err(RdmaError::InvalidArgument(format!("region at {bus_addr:#x} beyond the NIC's {bits} address bits")).into());
        }
        iova.checked_add(len as u64).ok_or_else(|| RdmaError::InvalidArgument("IOVA range wraps".into()))?;
        let st = self.rdma_state()?;
        let index = st.mr.iter().position(|m| m.is_none()).ok_or(RdmaError::Exhausted { what: "memory region", count: st.mrs })? as u32;
        st.key_tag = st.key_tag.wrapping_add(1) & 0xff_ffff;
        let key = index | st.key_tag << 8;
        let mr = Mr { pd, lkey: key, rkey: key, addr: iova, len: len32, access };
        let mut w = [0u32; mrc::WORDS];
        mrc::VALID.set(&mut w, 1);
        mrc::ACCESS.set(&mut w, access);
        mrc::PD.set(&mut w, pd.0);
        mrc::KEY.set(&mut w, key);
        mrc::IOVA_LO.set(&mut w, iova as u32);
        mrc::IOVA_HI.set(&mut w, (iova >> 32) as u32);
        mrc::LENGTH.set(&mut w, len32);
        mrc::BUS_LO.set(&mut w, bus_addr as u32);
        mrc::BUS_HI.set(&mut w, (bus_addr >> 32) as u32);
        self.table_store(map::TABLE_MR, index, &w, u32::MAX)?;
        self.rdma_state()?.mr[index as usize] = Some(mr);
        Ok(mr)
    }

    /// Deregisters a region: its keys miss from now on.
    pub fn dereg_mr(&mut self, mr: Mr) -> Result<(), DriverError> {
        let index = mr.lkey & 0xff;
        let st = self.rdma_state()?;
        if st.mr.get(index as usize).copied().flatten() != Some(mr) {
            return Err(RdmaError::BadHandle { what: "memory region", index }.into());
        }
        self.table_store(map::TABLE_MR, index, &[0; mrc::WORDS], u32::MAX)?;
        self.rdma_state()?.mr[index as usize] = None;
        Ok(())
    }

    /// A completion queue of 2^`log2` CQEs (1..=15).
    pub fn create_cq(&mut self, log2: u32) -> Result<Cq, DriverError> {
        if !(1..=15).contains(&log2) {
            return Err(RdmaError::InvalidArgument(format!("CQ size log2 {log2} not in 1..=15")).into());
        }
        let st = self.rdma_state()?;
        let cqn = st.cq.iter().position(|c| c.is_none()).ok_or(RdmaError::Exhausted { what: "completion queue", count: st.cqs })? as u32;
        let ring = self.dev.alloc_dma(cqe::SIZE << log2)?;
        let mut w = [0u32; cqc::WORDS];
        cqc::BASE_LO.set(&mut w, ring.bus_addr as u32);
        cqc::BASE_HI.set(&mut w, (ring.bus_addr >> 32) as u32);
        cqc::LOG2.set(&mut w, log2);
        cqc::ENABLE.set(&mut w, 1);
        cqc::IRQ_COUNT.set(&mut w, 1);
        self.table_store(map::TABLE_CQ, cqn, &w, u32::MAX)?;
        self.rdma_state()?.cq[cqn as usize] = Some(CqShadow { ring, log2, ci: 0 });
        Ok(Cq { cqn })
    }

    /// Interrupt moderation of a CQ's events: after `count` CQEs, or `timer` cycles
    /// after the first (0: off).
    pub fn modify_cq(&mut self, cq: Cq, count: u16, timer: u32) -> Result<(), DriverError> {
        self.cq_shadow(cq)?;
        let mut w = [0u32; cqc::WORDS];
        cqc::IRQ_COUNT.set(&mut w, u32::from(count));
        cqc::IRQ_TIMER.set(&mut w, timer);
        self.table_store(map::TABLE_CQ, cq.cqn, &w, 1 << cqc::IRQ_COUNT.word | 1 << cqc::IRQ_TIMER.word)
    }

    fn cq_shadow(&mut self, cq: Cq) -> Result<&mut CqShadow, RdmaError> {
        self.rdma_state()?.cq.get_mut(cq.cqn as usize).and_then(|c| c.as_mut()).ok_or(RdmaError::BadHandle { what: "completion queue", index: cq.cqn })
    }

    fn qp_shadow(&mut self, qp: Qp) -> Result<&mut QpShadow, RdmaError> {
        self.rdma_state()?.qp.get_mut(qp.qpn as usize).and_then(|q| q.as_mut()).ok_or(RdmaError::BadHandle { what: "queue pair", index: qp.qpn })
    }

    /// Destroys a CQ no QP uses any more.
    pub fn destroy_cq(&mut self, cq: Cq) -> Result<(), DriverError> {
        let ring = self.cq_shadow(cq)?.ring;
        if self.rdma_state()?.qp.iter().flatten().any(|q| q.send_cq == cq || q.recv_cq == cq) {
            return Err(RdmaError::InvalidArgument(format!("CQ {} is still used by a QP", cq.cqn)).into());
        }
        self.table_store(map::TABLE_CQ, cq.cqn, &[0; cqc::WORDS], u32::MAX)?;
        self.rdma_state()?.cq[cq.cqn as usize] = None;
        self.dev.free_dma(ring);
        Ok(())
    }

    /// A reliable connected QP in RESET.
    pub fn create_qp(&mut self, pd: Pd, send_cq: Cq, recv_cq: Cq, caps: QpCaps) -> Result<Qp, DriverError> {
        for l in [caps.sq_log2, caps.rq_log2] {
            if !(1..=15).contains(&l) {
                return Err(RdmaError::InvalidArgument(format!("queue size log2 {l} not in 1..=15")).into());
            }
        }
        self.cq_shadow(send_cq)?;
        self.cq_shadow(recv_cq)?;
        let st = self.rdma_state()?;
        let qpn = (map::FIRST_QPN as usize..st.qp.len()).find(|&q| st.qp[q].is_none()).ok_or(RdmaError::Exhausted { what: "queue pair", count: st.qps - map::FIRST_QPN })? as u32;
        let sq = self.dev.alloc_dma(wqe::SIZE << caps.sq_log2)?;
        let rq = self.dev.alloc_dma(wqe::SIZE << caps.rq_log2)?;
        let mut w = [0u32; qpc::WORDS];
        qpc::STATE.set(&mut w, QpState::Reset as u32);
        qpc::PMTU.set(&mut w, Mtu::M1024 as u32);
        qpc::SIG_ALL.set(&mut w, u32::from(caps.sig_all));
        qpc::SEND_CQ.set(&mut w, send_cq.cqn);
        qpc::RECV_CQ.set(&mut w, recv_cq.cqn);
        qpc::PD.set(&mut w, pd.0);
        qpc::UDP_SPORT.set(&mut w, 0xc000 | qpn);
        qpc::SQ_BASE_LO.set(&mut w, sq.bus_addr as u32);
        qpc::SQ_BASE_HI.set(&mut w, (sq.bus_addr >> 32) as u32);
        qpc::SQ_LOG2.set(&mut w, caps.sq_log2);
        qpc::RQ_BASE_LO.set(&mut w, rq.bus_addr as u32);
        qpc::RQ_BASE_HI.set(&mut w, (rq.bus_addr >> 32) as u32);
        qpc::RQ_LOG2.set(&mut w, caps.rq_log2);
        self.table_store(map::TABLE_QP, qpn, &w, u32::MAX)?;
        let shadow = QpShadow { send_cq, recv_cq, caps, sq, rq, words: w, state: QpState::Reset, sq_pi: 0, rq_pi: 0, sq_pending: VecDeque::new(), rq_pending: 0 };
        self.rdma_state()?.qp[qpn as usize] = Some(shadow);
        Ok(Qp { qpn })
    }

    /// The QP's state as the engine has it (it moves a QP to ERR on a fatal error).
    pub fn query_qp(&mut self, qp: Qp) -> Result<QpState, DriverError> {
        self.qp_shadow(qp)?;
        let w = self.table_load(map::TABLE_QP, qp.qpn, qpc::WORDS)?;
        let state = QpState::from_code(qpc::STATE.get(&w)).ok_or_else(|| DriverError::NicMisbehaved(format!("QP {} state code {}", qp.qpn, qpc::STATE.get(&w))))?;
        self.qp_shadow(qp)?.state = state;
        Ok(state)
    }

    /// Moves a QP through RESET → INIT → RTR → RTS, or to ERR or RESET from any state.
    pub fn modify_qp(&mut self, qp: Qp, to: QpState, attr: &QpAttr) -> Result<(), DriverError> {
        let from = self.query_qp(qp)?;
        let legal = matches!((from, to), (QpState::Reset, QpState::Init) | (QpState::Init, QpState::Init) | (QpState::Init, QpState::Rtr) | (QpState::Rtr, QpState::Rts) | (QpState::Rts, QpState::Rts) | (_, QpState::Err) | (_, QpState::Reset));
        if !legal {
            return Err(RdmaError::InvalidTransition { qpn: qp.qpn, from, to }.into());
        }
        let qpn = qp.qpn;
        let need = |v: bool, attribute: &'static str| if v { Ok(()) } else { Err(RdmaError::MissingAttribute { qpn, to, attribute }) };
        if (from, to) == (QpState::Init, QpState::Rtr) {
            need(attr.path_mtu.is_some(), "path_mtu")?;
            need(attr.dest_qpn.is_some(), "dest_qpn")?;
            need(attr.rq_psn.is_some(), "rq_psn")?;
            need(attr.dest_mac.is_some(), "dest_mac")?;
            need(attr.dest_ipv4.is_some(), "dest_ipv4")?;
        }
        if (from, to) == (QpState::Rtr, QpState::Rts) {
            need(attr.sq_psn.is_some(), "sq_psn")?;
        }
        if let Some(t) = attr.min_rnr_timer.filter(|&t| t > 31) {
            return Err(RdmaError::InvalidArgument(format!("QP {qpn}: min_rnr_timer {t} is not a 5-bit timer code (0..=31)")).into());
        }
        if let Some(n) = attr.max_rd_atomic.filter(|&n| n > 15) {
            return Err(RdmaError::InvalidArgument(format!("QP {qpn}: max_rd_atomic {n} is past its field (0..=15)")).into());
        }
        for (name, v, max) in [("timeout", attr.timeout, 31), ("retry_cnt", attr.retry_cnt, 7), ("rnr_retry", attr.rnr_retry, 7)] {
            match v {
                Some(v) if v > max => return Err(RdmaError::InvalidArgument(format!("QP {qpn}: {name} {v} is past its field (0..={max})")).into()),
                Some(v) if v > 0 && !self.rdma_state()?.retransmit => {
                    return Err(RdmaError::InvalidArgument(format!("QP {qpn}: {name} {v}: this engine does not retransmit (CAPS.RETRANSMIT clear)")).into())
                }
                _ => {}
            }
        }
        let sh = self.qp_shadow(qp)?;
        let mut w = sh.words;
        let mut mask = 1u32 << qpc::STATE.word;
        let mut set = |f: nic_regmap::rdma::TableField, v: u32, mask: &mut u32| {
            f.set(&mut w, v);
            *mask |= 1 << f.word;
        };
        if let Some(a) = attr.access {
            set(qpc::ACCESS, a & (access::REMOTE_WRITE | access::REMOTE_READ), &mut mask);
        }
        if let Some(m) = attr.path_mtu {
            set(qpc::PMTU, m as u32, &mut mask);
        }
        if let Some(d) = attr.dest_qpn {
            set(qpc::DEST_QPN, d & 0xff_ffff, &mut mask);
        }
        if let Some(p) = attr.rq_psn {
            set(qpc::RQ_PSN, p & 0xff_ffff, &mut mask);
        }
        if let Some(p) = attr.sq_psn {
            set(qpc::SQ_PSN, p & 0xff_ffff, &mut mask);
        }
        if let Some(ip) = attr.dest_ipv4 {
            set(qpc::DEST_IPV4, u32::from(ip), &mut mask);
        }
        if let Some(m) = attr.dest_mac {
            set(qpc::DEST_MAC_LO, u32::from_le_bytes([m[0], m[1], m[2], m[3]]), &mut mask);
            set(qpc::DEST_MAC_HI, u32::from(u16::from_le_bytes([m[4], m[5]])), &mut mask);
        }
        if let Some(p) = attr.udp_sport {
            set(qpc::UDP_SPORT, u32::from(p), &mut mask);
        }
        if let Some(t) = attr.min_rnr_timer {
            set(qpc::MIN_RNR_TIMER, u32::from(t), &mut mask);
        }
        if let Some(t) = attr.timeout {
            set(qpc::TIMEOUT, u32::from(t), &mut mask);
        }
        if let Some(r) = attr.retry_cnt {
            set(qpc::RETRY_CNT, u32::from(r), &mut mask);
        }
        if let Some(r) = attr.rnr_retry {
            set(qpc::RNR_RETRY, u32::from(r), &mut mask);
        }
        if let Some(n) = attr.max_rd_atomic {
            set(qpc::MAX_RD_ATOMIC, u32::from(n), &mut mask);
        }
        qpc::STATE.set(&mut w, to as u32);
        if to == QpState::Reset {
            // back to the state create_qp left: rings empty, every word rewritten
            qpc::SQ_CI.set(&mut w, 0);
            qpc::RQ_CI.set(&mut w, 0);
            mask = u32::MAX;
        }
        // the state word also holds configuration; store it whole from the shadow
        self.table_store(map::TABLE_QP, qpn, &w, mask)?;
        let sh = self.qp_shadow(qp)?;
        sh.words = w;
        sh.state = to;
        if to == QpState::Reset {
            sh.sq_pi = 0;
            sh.rq_pi = 0;
            sh.sq_pending.clear();
            sh.rq_pending = 0;
        }
        Ok(())
    }

    /// Destroys a QP (moved to RESET first) and frees its queues.
    pub fn destroy_qp(&mut self, qp: Qp) -> Result<(), DriverError> {
        self.modify_qp(qp, QpState::Reset, &QpAttr::default())?;
        let sh = self.qp_shadow(qp)?.clone();
        self.table_store(map::TABLE_QP, qp.qpn, &[0; qpc::WORDS], u32::MAX)?;
        self.rdma_state()?.qp[qp.qpn as usize] = None;
        self.dev.free_dma(sh.sq);
        self.dev.free_dma(sh.rq);
        Ok(())
    }

    fn check_sges(index: usize, sg: &[Sge]) -> Result<(), RdmaError> {
        if sg.len() > wqe::MAX_SGE {
            return Err(RdmaError::InvalidWorkRequest { index, reason: format!("{} scatter-gather entries, at most {}", sg.len(), wqe::MAX_SGE) });
        }
        let total: u64 = sg.iter().map(|s| u64::from(s.length)).sum();
        if total > wqe::MAX_MESSAGE {
            return Err(RdmaError::InvalidWorkRequest { index, reason: format!("{total} bytes, a message holds at most {}", wqe::MAX_MESSAGE) });
        }
        Ok(())
    }

    fn wqe_bytes(wr_id: u64, opcode: u8, flags: u8, imm: u32, remote: (u64, u32), sg: &[Sge]) -> [u8; wqe::SIZE] {
        let mut b = [0u8; wqe::SIZE];
        b[wqe::WR_ID..wqe::WR_ID + 8].copy_from_slice(&wr_id.to_le_bytes());
        b[wqe::OPCODE] = opcode;
        b[wqe::FLAGS] = flags;
        b[wqe::NUM_SGE] = sg.len() as u8;
        b[wqe::IMM..wqe::IMM + 4].copy_from_slice(&imm.to_le_bytes());
        b[wqe::REMOTE_ADDR..wqe::REMOTE_ADDR + 8].copy_from_slice(&remote.0.to_le_bytes());
        b[wqe::RKEY..wqe::RKEY + 4].copy_from_slice(&remote.1.to_le_bytes());
        for (i, s) in sg.iter().enumerate() {
            let o = wqe::SGE + wqe::SGE_SIZE * i;
            b[o + wqe::SGE_ADDR..o + wqe::SGE_ADDR + 8].copy_from_slice(&s.addr.to_le_bytes());
            b[o + wqe::SGE_LENGTH..o + wqe::SGE_LENGTH + 4].copy_from_slice(&s.length.to_le_bytes());
            b[o + wqe::SGE_LKEY..o + wqe::SGE_LKEY + 4].copy_from_slice(&s.lkey.to_le_bytes());
        }
        b
    }

    /// Posts send work requests (all or none) and rings the doorbell once. The QP must
    /// be in RTS (or ERR, where they complete flushed).
    pub fn post_send(&mut self, qp: Qp, wrs: &[SendWr]) -> Result<(), DriverError> {
        let base = self.rdma_state()?.base;
        let sh = self.qp_shadow(qp)?;
        if !matches!(sh.state, QpState::Rts | QpState::Err) {
            return Err(RdmaError::WrongState { qpn: qp.qpn, state: sh.state, verb: "post_send" }.into());
        }
        let size = 1usize << sh.caps.sq_log2;
        let free = size - sh.sq_pending.len();
        if wrs.len() > free {
            return Err(RdmaError::QueueFull { qpn: qp.qpn, send: true, free }.into());
        }
        for (i, wr) in wrs.iter().enumerate() {
            Self::check_sges(i, &wr.sg_list)?;
        }
        let (ring, log2, mut pi) = (sh.sq.bus_addr, sh.caps.sq_log2, sh.sq_pi);
        for wr in wrs {
            let (op, imm, remote) = match wr.op {
                SendOp::Send => (wqe::OP_SEND, 0, (0, 0)),
                SendOp::SendImm { imm } => (wqe::OP_SEND_IMM, imm, (0, 0)),
                SendOp::Write { remote_addr, rkey } => (wqe::OP_WRITE, 0, (remote_addr, rkey)),
                SendOp::WriteImm { remote_addr, rkey, imm } => (wqe::OP_WRITE_IMM, imm, (remote_addr, rkey)),
                SendOp::Read { remote_addr, rkey } => (wqe::OP_READ, 0, (remote_addr, rkey)),
            };
            let flags = if wr.signaled { wqe::FLAG_SIGNALED } else { 0 } | if wr.solicited { wqe::FLAG_SOLICITED } else { 0 };
            let b = Self::wqe_bytes(wr.wr_id, op, flags, imm, remote, &wr.sg_list);
            self.dev.mem_write(ring + (wqe::SIZE as u64) * u64::from(u32::from(pi) & ((1 << log2) - 1)), &b)?;
            pi = pi.wrapping_add(1);
        }
        let sh = self.qp_shadow(qp)?;
        let sig_all = sh.caps.sig_all;
        sh.sq_pending.extend(wrs.iter().map(|w| (w.wr_id, w.signaled || sig_all)));
        sh.sq_pi = pi;
        self.dev.set_reg32(base + map::SQ_DOORBELL, qp.qpn | u32::from(pi) << 16)?;
        Ok(())
    }

    /// Posts receive work requests (all or none) and rings the doorbell once. The QP
    /// may be in any state but RESET.
    pub fn post_recv(&mut self, qp: Qp, wrs: &[RecvWr]) -> Result<(), DriverError> {
        let base = self.rdma_state()?.base;
        let sh = self.qp_shadow(qp)?;
        if sh.state == QpState::Reset {
            return Err(RdmaError::WrongState { qpn: qp.qpn, state: sh.state, verb: "post_recv" }.into());
        }
        let free = (1usize << sh.caps.rq_log2) - sh.rq_pending;
        if wrs.len() > free {
            return Err(RdmaError::QueueFull { qpn: qp.qpn, send: false, free }.into());
        }
        for (i, wr) in wrs.iter().enumerate() {
            Self::check_sges(i, &wr.sg_list)?;
        }
        let (ring, log2, mut pi) = (sh.rq.bus_addr, sh.caps.rq_log2, sh.rq_pi);
        for wr in wrs {
            let b = Self::wqe_bytes(wr.wr_id, 0, 0, 0, (0, 0), &wr.sg_list);
            self.dev.mem_write(ring + (wqe::SIZE as u64) * u64::from(u32::from(pi) & ((1 << log2) - 1)), &b)?;
            pi = pi.wrapping_add(1);
        }
        let sh = self.qp_shadow(qp)?;
        sh.rq_pending += wrs.len();
        sh.rq_pi = pi;
        self.dev.set_reg32(base + map::RQ_DOORBELL, qp.qpn | u32::from(pi) << 16)?;
        Ok(())
    }

    /// Takes up to `max` completions from a CQ, oldest first.
    pub fn poll_cq(&mut self, cq: Cq, max: usize) -> Result<Vec<Wc>, DriverError> {
        let base = self.rdma_state()?.base;
        let sh = self.cq_shadow(cq)?.clone();
        let size = 1u32 << sh.log2;
        let mut ci = sh.ci;
        let mut out = Vec::new();
        while out.len() < max {
            let slot = u32::from(ci) & (size - 1);
            let mut b = [0u8; cqe::SIZE];
            self.dev.mem_read(sh.ring.bus_addr + (cqe::SIZE as u64) * u64::from(slot), &mut b)?;
            let owner = if (u32::from(ci) >> sh.log2) & 1 == 0 { cqe::FLAG_OWNER } else { 0 };
            if b[cqe::FLAGS] & cqe::FLAG_OWNER != owner {
                break;
            }
            let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
            let status = WcStatus::from_code(b[cqe::STATUS]).ok_or_else(|| DriverError::NicMisbehaved(format!("CQE status {}", b[cqe::STATUS])))?;
            let opcode = match b[cqe::OPCODE] {
                cqe::OP_SEND => WcOpcode::Send,
                cqe::OP_RDMA_WRITE => WcOpcode::RdmaWrite,
                cqe::OP_RDMA_READ => WcOpcode::RdmaRead,
                cqe::OP_RECV => WcOpcode::Recv,
                cqe::OP_RECV_RDMA_WITH_IMM => WcOpcode::RecvRdmaWithImm,
                o => return Err(DriverError::NicMisbehaved(format!("CQE opcode {o}"))),
            };
            let wc = Wc {
                wr_id: u64::from_le_bytes(b[cqe::WR_ID..cqe::WR_ID + 8].try_into().unwrap()),
                status,
                opcode,
                byte_len: u32_at(cqe::BYTE_LEN),
                imm: (b[cqe::FLAGS] & cqe::FLAG_IMM != 0).then(|| u32_at(cqe::IMM)),
                qpn: u32_at(cqe::QPN),
                solicited: b[cqe::FLAGS] & cqe::FLAG_SOLICITED != 0,
                syndrome: b[cqe::SYNDROME],
            };
            self.retire(cq, &wc);
            out.push(wc);
            ci = ci.wrapping_add(1);
        }
        if ci != sh.ci {
            self.cq_shadow(cq)?.ci = ci;
            self.dev.set_reg32(base + map::CQ_DOORBELL, cq.cqn | u32::from(ci) << 16)?;
        }
        Ok(out)
    }

    /// Frees the queue slots a completion retires.
    fn retire(&mut self, cq: Cq, wc: &Wc) {
        let Ok(sh) = self.qp_shadow(Qp { qpn: wc.qpn }) else { return };
        let recv = matches!(wc.opcode, WcOpcode::Recv | WcOpcode::RecvRdmaWithImm) && sh.recv_cq == cq;
        if recv {
            sh.rq_pending = sh.rq_pending.saturating_sub(1);
        } else if sh.send_cq == cq {
            // a signalled CQE (or any error) retires the unsignalled WQEs before it
            while let Some((id, signaled)) = sh.sq_pending.pop_front() {
                if id == wc.wr_id && (signaled || wc.status != WcStatus::Success) {
                    break;
                }
            }
        }
    }

    /// Whether a CQ lost completions (it is then stopped).
    pub fn cq_overflowed(&mut self, cq: Cq) -> Result<bool, DriverError> {
        self.cq_shadow(cq)?;
        let w = self.table_load(map::TABLE_CQ, cq.cqn, cqc::WORDS)?;
        Ok(cqc::OVERFLOW.get(&w) != 0)
    }

    /// Arms a CQ: its interrupt vector (16 + CQN) rises at the next CQE (with
    /// `solicited_only`, the next solicited or error CQE), and the vector is unmasked.
    pub fn req_notify_cq(&mut self, cq: Cq, solicited_only: bool) -> Result<(), DriverError> {
        let base = self.rdma_state()?.base;
        let ci = self.cq_shadow(cq)?.ci;
        let vector = 1u32 << (map::CQ_IRQ_BASE + cq.cqn);
        let mask = self.dev.get_reg32(self.layout.global_reg(nic_regmap::global::IRQ_MASK))?;
        self.dev.set_reg32(self.layout.global_reg(nic_regmap::global::IRQ_MASK), mask | vector)?;
        let solicited = if solicited_only { map::CQ_DOORBELL_SOLICITED } else { 0 };
        self.dev.set_reg32(base + map::CQ_DOORBELL, cq.cqn | map::CQ_DOORBELL_ARM | solicited | u32::from(ci) << 16)?;
        Ok(())
    }

    /// Waits for an armed CQ's event (or `timeout_cycles`); true if it came. The
    /// vector is cleared; poll the CQ, then arm it again.
    pub fn wait_cq_event(&mut self, cq: Cq, timeout_cycles: u64) -> Result<bool, DriverError> {
        self.cq_shadow(cq)?;
        let vector = 1u32 << (map::CQ_IRQ_BASE + cq.cqn);
        let fired = self.dev.wait_irq(vector, timeout_cycles) & vector != 0;
        if fired {
            self.dev.set_reg32(self.layout.global_reg(nic_regmap::global::IRQ_STATUS), vector)?;
        }
        Ok(fired)
    }

    /// The engine's counters (`nic_regmap::rdma::TX_PACKETS` .. `RX_DROP_NOBUF`), by
    /// register name.
    pub fn rdma_counters(&mut self) -> Result<Vec<(&'static str, u32)>, DriverError> {
        let base = self.rdma_state()?.base;
        let mut out = Vec::new();
        for r in map::REGS.iter().filter(|r| (map::TX_PACKETS..=map::RX_DROP_STATE).contains(&r.offset)) {
            out.push((r.name, self.dev.get_reg32(base + r.offset)?));
        }
        Ok(out)
    }
}
