//! The completer: ACKs, NAKs and READ responses back at the requester, and the send
//! queue's CQEs (rxe_comp.c's role).
//!
//! WQEs complete in the order they were posted. An ACK completes every outstanding
//! SEND and WRITE up to its PSN (ACKs coalesce); a READ completes when its last
//! response has landed, and a READ response also acknowledges the requests before it.
//! A NAK completes the WQE it names with the matching error (remote invalid request,
//! remote access, remote operational; an RNR NAK, until issue 19 retries, as RNR
//! retries exceeded), the WQEs before it successfully, and moves the QP to ERR, which
//! flushes the rest. A successful WQE writes a CQE only if it was signalled (or the QP
//! signals all); an error always does.

use super::requester::completion_opcode;
use super::tables::pmtu_bytes;
use super::{Cqe, HostPort, RdmaEngine};
use crate::roce::opcode::{OpClass, OpInfo};
use crate::roce::{psn_add, psn_cmp, RoceRepr};
use crate::wire::aeth::{NakCode, Syndrome};
use nic_regmap::rdma::{qpc, wqe, WcStatus};
use std::cmp::Ordering;

impl RdmaEngine {
    /// Completes the head outstanding WQE of QP `q` successfully.
    fn complete_head(&mut self, q: usize, host: &mut dyn HostPort, now: u64) {
        let words = self.qp[q];
        let Some(o) = self.qp_run[q].outstanding.pop_front() else { return };
        if o.wqe.flags & wqe::FLAG_SIGNALED != 0 || qpc::SIG_ALL.get(&words) != 0 {
            let e = Cqe { wr_id: o.wqe.wr_id, byte_len: o.len, qpn: q as u32, opcode: completion_opcode(o.wqe.opcode), ..Cqe::default() };
            self.post_cqe(host, qpc::SEND_CQ.get(&words) as usize, &e, now);
        }
    }

    /// Completes outstanding SENDs and WRITEs whose last PSN is at or before `psn`,
    /// stopping at a READ (its data is still to come).
    fn complete_through(&mut self, q: usize, psn: u32, host: &mut dyn HostPort, now: u64) {
        while let Some(o) = self.qp_run[q].outstanding.front() {
            if o.wqe.opcode == wqe::OP_READ || psn_cmp(o.last_psn, psn) == Ordering::Greater {
                break;
            }
            self.complete_head(q, host, now);
        }
    }

    /// Fails the head outstanding WQE with `status` and moves the QP to ERR.
    fn fail_head(&mut self, q: usize, status: WcStatus, syn: u8, host: &mut dyn HostPort, now: u64) {
        let words = self.qp[q];
        if let Some(o) = self.qp_run[q].outstanding.pop_front() {
            let e = Cqe { wr_id: o.wqe.wr_id, qpn: q as u32, opcode: completion_opcode(o.wqe.opcode), status, syndrome: syn, ..Cqe::default() };
            self.post_cqe(host, qpc::SEND_CQ.get(&words) as usize, &e, now);
        }
        self.to_error(q, host, now);
    }

    /// A response packet (ACK, NAK, READ response) for QP `q` in RTS.
    pub(crate) fn completer_receive(&mut self, q: usize, repr: &RoceRepr, info: &OpInfo, payload: &[u8], host: &mut dyn HostPort, now: u64) {
        use nic_regmap::rdma::{RX_DROP_MALFORMED, RX_DROP_PSN, RX_NAKS};
        let psn = repr.bth.psn;
        let aeth = repr.aeth;
        // a response to nothing outstanding, or beyond what was sent
        let Some(last) = self.qp_run[q].outstanding.back().map(|o| o.last_psn) else { return self.count(RX_DROP_PSN, 1) };
        if psn_cmp(psn, last) == Ordering::Greater {
            return self.count(RX_DROP_PSN, 1);
        }
        if info.class == OpClass::Acknowledge {
            let aeth = aeth.expect("parse gave the AETH");
            let syn = aeth.syndrome.to_byte();
            match aeth.syndrome {
                Syndrome::Ack { .. } => self.complete_through(q, psn, host, now),
                Syndrome::RnrNak { .. } | Syndrome::Nak(_) => {
                    self.count(RX_NAKS, 1);
                    // the WQEs before the one the NAK names were received whole
                    self.complete_through(q, psn_add(psn, 0xff_ffff), host, now);
                    let status = match aeth.syndrome {
                        Syndrome::RnrNak { .. } => WcStatus::RnrRetryExcErr,
                        Syndrome::Nak(NakCode::RemoteAccessError) => WcStatus::RemAccessErr,
                        Syndrome::Nak(NakCode::InvalidRequest | NakCode::InvalidRdRequest) => WcStatus::RemInvReqErr,
                        _ => WcStatus::RemOpErr,
                    };
                    self.fail_head(q, status, syn, host, now);
                }
                Syndrome::Reserved(_) => self.count(RX_DROP_MALFORMED, 1),
            }
            return;
        }
        // a READ response: it acknowledges the requests before its READ
        self.complete_through(q, psn_add(psn, 0xff_ffff), host, now);
        let words = self.qp[q];
        let mtu = pmtu_bytes(qpc::PMTU.get(&words));
        let Some(o) = self.qp_run[q].outstanding.front().cloned() else { return self.count(RX_DROP_PSN, 1) };
        let expected = psn_add(o.first_psn, o.received / mtu);
        if o.wqe.opcode != wqe::OP_READ || psn != expected {
            return self.count(RX_DROP_PSN, 1);
        }
        let len = payload.len() as u32;
        let fits = if info.position.ends() { o.received + len == o.len } else { len == mtu && o.received + len < o.len };
        if !fits {
            return self.count(RX_DROP_MALFORMED, 1);
        }
        let mut at = 0;
        for (bus, n) in o.local.slice(u64::from(o.received), u64::from(len)) {
            if !host.write(bus, &payload[at..at + n]) {
                return self.fail_head(q, WcStatus::LocProtErr, 0, host, now);
            }
            at += n;
        }
        if info.position.ends() {
            self.complete_head(q, host, now);
        } else {
            self.qp_run[q].outstanding.front_mut().unwrap().received += len;
        }
    }
}

/// The requester's reports to the completer as the RTL requester makes them (`out_*` of
/// `RdmaRequester`), so that the RTL completer can be tested alone against this model:
/// the model's own requester does the same inside `requester_packet`.
impl RdmaEngine {
    /// A WQE of QP `q` went on the wire: it waits for its ACK.
    #[allow(clippy::too_many_arguments)]
    pub fn report_outstanding(&mut self, q: usize, wr_id: u64, opcode: u8, flags: u8, first_psn: u32, last_psn: u32, len: u32) {
        use super::tables::{BusList, Outstanding, Wqe};
        let wqe = Wqe { wr_id, opcode, flags, num_sge: 0, imm: 0, remote_addr: 0, rkey: 0, sges: Vec::new() };
        self.qp_run[q].outstanding.push_back(Outstanding { wqe, local: BusList::default(), len, first_psn, last_psn, received: 0 });
    }

    /// A WQE of QP `q` failed before it was sent (its CQE, and the QP to ERR), or was
    /// flushed from the send queue of a QP in ERR (`WrFlushErr`: its CQE only).
    pub fn report_failed(&mut self, q: usize, wr_id: u64, opcode: u8, status: WcStatus, host: &mut dyn HostPort, now: u64) {
        let send_cq = qpc::SEND_CQ.get(&self.qp[q]) as usize;
        if status == WcStatus::WrFlushErr {
            return self.post_cqe(host, send_cq, &Cqe { wr_id, qpn: q as u32, status, ..Cqe::default() }, now);
        }
        self.post_cqe(host, send_cq, &Cqe { wr_id, qpn: q as u32, status, opcode: completion_opcode(opcode), ..Cqe::default() }, now);
        self.to_error(q, host, now);
    }
}
