//! The context tables' run-time state beside their words, the WQE format, and the
//! protection checks every byte the engine moves passes first (rxe_mr.c's role).

use super::{RdmaEngine, ResponseQueue};
use nic_regmap::rdma::{self as map, access, mrc, qpc, wqe, WcStatus};
use std::collections::VecDeque;

/// A WQE as read from a send or receive queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wqe {
    pub wr_id: u64,
    pub opcode: u8,
    pub flags: u8,
    pub num_sge: u8,
    pub imm: u32,
    pub remote_addr: u64,
    pub rkey: u32,
    /// (address, length, lkey) of the first `min(num_sge, MAX_SGE)` entries.
    pub sges: Vec<(u64, u32, u32)>,
}

impl Wqe {
    pub fn parse(b: &[u8]) -> Wqe {
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
        let num_sge = b[wqe::NUM_SGE];
        let sges = (0..usize::from(num_sge).min(wqe::MAX_SGE))
            .map(|i| {
                let o = wqe::SGE + wqe::SGE_SIZE * i;
                (u64_at(o + wqe::SGE_ADDR), u32_at(o + wqe::SGE_LENGTH), u32_at(o + wqe::SGE_LKEY))
            })
            .collect();
        Wqe { wr_id: u64_at(wqe::WR_ID), opcode: b[wqe::OPCODE], flags: b[wqe::FLAGS], num_sge, imm: u32_at(wqe::IMM), remote_addr: u64_at(wqe::REMOTE_ADDR), rkey: u32_at(wqe::RKEY), sges }
    }

    /// Total bytes of its scatter-gather list.
    pub fn total_len(&self) -> u64 {
        self.sges.iter().map(|s| u64::from(s.1)).sum()
    }
}

/// A scatter-gather list resolved to bus addresses: pieces `(bus, len)` in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BusList(pub Vec<(u64, u32)>);

impl BusList {
    pub fn len(&self) -> u64 {
        self.0.iter().map(|p| u64::from(p.1)).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The pieces covering bytes `[offset, offset + len)` of the list.
    pub fn slice(&self, mut offset: u64, mut len: u64) -> Vec<(u64, usize)> {
        let mut out = Vec::new();
        for &(bus, plen) in &self.0 {
            let plen = u64::from(plen);
            if len == 0 {
                break;
            }
            if offset >= plen {
                offset -= plen;
                continue;
            }
            let take = (plen - offset).min(len);
            out.push((bus + offset, take as usize));
            len -= take;
            offset = 0;
        }
        out
    }
}

/// A send WQE the requester is cutting into packets.
#[derive(Clone, Debug)]
pub struct SendJob {
    pub wqe: Wqe,
    pub local: BusList,
    pub len: u32,
    /// Bytes already sent.
    pub sent: u32,
    pub first_psn: u32,
}

/// A send WQE on the wire, waiting for its ACK or its READ response.
#[derive(Clone, Debug)]
pub struct Outstanding {
    pub wqe: Wqe,
    /// READ: where the response lands.
    pub local: BusList,
    pub len: u32,
    /// PSNs the WQE used: `first_psn ..= last_psn`.
    pub first_psn: u32,
    pub last_psn: u32,
    /// READ: bytes of the response received so far (and the next PSN expected is
    /// `first_psn + received / mtu`).
    pub received: u32,
    /// Its place in the send queue (SQ_CI when it was taken): where the requester goes
    /// back to.
    pub sq_index: u16,
}

/// Where the requester starts again after going back: the WQE at `sq_index` (the first
/// not wholly acknowledged), from byte `offset` (a whole number of path MTUs), whose
/// first PSN was `first_psn`.
#[derive(Clone, Copy, Debug)]
pub struct Resume {
    pub sq_index: u16,
    pub offset: u32,
    pub first_psn: u32,
}

/// A SEND (or the RQ WQE of a WRITE with immediate) the responder is filling.
#[derive(Clone, Debug)]
pub struct RecvInProgress {
    pub wr_id: u64,
    pub local: BusList,
    pub received: u32,
}

/// A WRITE the responder is carrying out: where its next byte goes, and under which
/// rkey and virtual address it is checked again.
#[derive(Clone, Debug)]
pub struct WriteInProgress {
    pub bus: u64,
    pub rkey: u32,
    pub va: u64,
    /// Bytes of the RETH's DMA length still to come.
    pub remaining: u32,
    pub total: u32,
}

/// What the engine keeps of a QP beside its table words.
#[derive(Clone, Debug, Default)]
pub struct QpRun {
    /// Doorbell producer indices.
    pub sq_pi: u16,
    pub rq_pi: u16,
    /// Requester: the WQE being sent, and those sent and not yet completed.
    pub current: Option<SendJob>,
    pub outstanding: VecDeque<Outstanding>,
    /// Responder: the message in progress, the last request opcode taken (for the
    /// sequence rules), the message sequence number, and what it owes the requester.
    pub recv: Option<RecvInProgress>,
    pub write: Option<WriteInProgress>,
    pub last_opcode: Option<u8>,
    pub msn: u32,
    pub resp: ResponseQueue,
    /// A NAK PSN sequence error was sent for the gap before RQ_PSN: the packets behind
    /// the gap are dropped silently until the expected PSN arrives.
    pub nak_seq_sent: bool,
    /// Requests taken since the last ACK (modulo 8, as the RTL's 3-bit count).
    pub unacked: u8,
    /// Requester, going back (go-back-N): the retransmit timer's deadline (running while
    /// WQEs are outstanding, restarted by every progress), the times it went back since
    /// the last progress after a timeout or sequence NAK and after an RNR NAK, an RNR
    /// NAK's wait (until the cycle, then back to the PSN), where to start again, the PSN
    /// it last went back to (a second cue for the same gap is not a new loss), the
    /// latest PSN acknowledged, and the PSN after the highest ever sent (what is sent
    /// before it again is counted resent).
    pub timer: Option<u64>,
    pub retries: u8,
    pub rnr_retries: u8,
    pub rnr_wait: Option<(u64, u32)>,
    pub resume: Option<Resume>,
    pub went_back_to: Option<u32>,
    pub acked: Option<u32>,
    pub next_new_psn: Option<u32>,
}

/// What the engine keeps of a CQ beside its table words.
#[derive(Clone, Debug, Default)]
pub struct CqRun {
    pub ci: u16,
    /// Armed for an event (`Some(solicited_only)`).
    pub armed: Option<bool>,
    pub pending: u32,
    pub pending_since: Option<u64>,
}

/// Path MTU in bytes from the QP's IB encoding (1: 256 .. 5: 4096); a value outside
/// is taken as 256, the smallest.
pub fn pmtu_bytes(code: u32) -> u32 {
    if (1..=5).contains(&code) {
        128 << code
    } else {
        256
    }
}

impl RdmaEngine {
    /// The MR a key names, if the key is current: (entry words).
    fn mr_of(&self, key: u32) -> Option<[u32; mrc::WORDS]> {
        let w = *self.mr.get((key & 0xff) as usize)?;
        (mrc::VALID.get(&w) == 1 && mrc::KEY.get(&w) == key).then_some(w)
    }

    /// Checks `[addr, addr + len)` against the MR `key` names for protection domain `pd`
    /// and the `need` access bits (`access::*`); the bus address of `addr` if allowed.
    /// A zero-length access needs no key (IBTA 9.4.1.1: the R_Key of a zero-length
    /// RDMA is not checked).
    pub fn check_mr(&self, key: u32, pd: u32, addr: u64, len: u64, need: u32) -> Option<u64> {
        if len == 0 {
            return Some(0);
        }
        let w = self.mr_of(key)?;
        if mrc::PD.get(&w) != pd {
            return None;
        }
        let granted = mrc::ACCESS.get(&w);
        if granted & need != need {
            return None;
        }
        let iova = u64::from(mrc::IOVA_LO.get(&w)) | u64::from(mrc::IOVA_HI.get(&w)) << 32;
        // the region's end may lie past 2^64 (an IOVA near the top): compare in 128 bits
        let end = addr.checked_add(len)?;
        if addr < iova || u128::from(end) > u128::from(iova) + u128::from(mrc::LENGTH.get(&w)) {
            return None;
        }
        let bus = u64::from(mrc::BUS_LO.get(&w)) | u64::from(mrc::BUS_HI.get(&w)) << 32;
        Some(bus + (addr - iova))
    }

    /// The words of entry `index` of table `table` (`TABLE_QP`, `TABLE_MR`, `TABLE_CQ`).
    pub fn entry(&self, table: u32, index: usize) -> Vec<u32> {
        match table {
            map::TABLE_QP => self.qp[index].to_vec(),
            map::TABLE_MR => self.mr[index].to_vec(),
            _ => self.cq[index].to_vec(),
        }
    }

    /// What one of the engine's roles does to a context as it runs (advance a PSN, a
    /// ring index, move a QP to ERR): store `data` where `mask` has ones, bit by bit,
    /// without the side effects of a driver's `TABLE_CMD`. Returns the entry before.
    pub fn engine_store(&mut self, table: u32, index: usize, mask: &[u32], data: &[u32]) -> Vec<u32> {
        let words: &mut [u32] = match table {
            map::TABLE_QP => &mut self.qp[index],
            map::TABLE_MR => &mut self.mr[index],
            _ => &mut self.cq[index],
        };
        let old = words.to_vec();
        for (w, word) in words.iter_mut().enumerate() {
            *word = (*word & !mask[w]) | (data[w] & mask[w]);
        }
        old
    }

    /// The send WQEs of QP `q` waiting for completion, oldest first: (wr_id, first PSN,
    /// last PSN, length).
    pub fn outstanding_wqes(&self, q: usize) -> Vec<(u64, u32, u32, u32)> {
        self.qp_run[q].outstanding.iter().map(|o| (o.wqe.wr_id, o.first_psn, o.last_psn, o.len)).collect()
    }

    /// Resolves a WQE's scatter-gather list for QP `q` (its PD); `write`: the engine
    /// will write into it (receive, READ landing), which needs LOCAL_WRITE.
    pub fn resolve_local(&self, q: usize, w: &Wqe, write: bool) -> Result<BusList, WcStatus> {
        if usize::from(w.num_sge) > wqe::MAX_SGE {
            return Err(WcStatus::LocQpOpErr);
        }
        if w.total_len() > wqe::MAX_MESSAGE {
            return Err(WcStatus::LocLenErr);
        }
        let pd = qpc::PD.get(&self.qp[q]);
        let need = if write { access::LOCAL_WRITE } else { 0 };
        let mut pieces = Vec::new();
        for &(addr, len, lkey) in &w.sges {
            let bus = self.check_mr(lkey, pd, addr, u64::from(len), need).ok_or(WcStatus::LocProtErr)?;
            if len > 0 {
                pieces.push((bus, len));
            }
        }
        Ok(BusList(pieces))
    }

    /// Checks a remote request's RETH for QP `q`: the QP must accept the operation and
    /// the MR must allow it over the whole range. The bus address of the first byte.
    pub fn check_remote(&self, q: usize, rkey: u32, va: u64, len: u32, need: u32) -> Option<u64> {
        let w = &self.qp[q];
        if len > 0 && qpc::ACCESS.get(w) & need != need {
            return None;
        }
        self.check_mr(rkey, qpc::PD.get(w), va, u64::from(len), need)
    }
}
