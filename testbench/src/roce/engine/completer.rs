//! The completer: ACKs, NAKs and READ responses back at the requester, and the send
//! queue's CQEs (rxe_comp.c's role).
//!
//! WQEs complete in the order they were posted. An ACK completes every outstanding
//! SEND and WRITE up to its PSN (ACKs coalesce); a READ completes when its last
//! response has landed, and a READ response also acknowledges the requests before it.
//! A NAK completes the WQEs before it successfully; a PSN sequence NAK, a READ response
//! after a gap and the retransmit timer make the requester go back (go-back-N, RETRY_CNT
//! times, then RETRY_EXC_ERR), an RNR NAK makes it wait the NAK's timer and go back
//! (RNR_RETRY times, 7 for ever, then RNR_RETRY_EXC_ERR); any other NAK completes the
//! WQE it names with the matching error (remote invalid request, remote access, remote
//! operational) and moves the QP to ERR, which flushes the rest. A successful WQE writes a CQE only if it was signalled (or the QP
//! signals all); an error always does.

use super::requester::{completion_opcode, transport_timeout};
use super::tables::pmtu_bytes;
use super::{Cqe, HostPort, RdmaEngine};
use crate::roce::opcode::{OpClass, OpInfo};
use crate::roce::{psn_add, psn_cmp, RoceRepr};
use crate::wire::aeth::{NakCode, Syndrome};
use nic_regmap::rdma::{qpc, syndrome, wqe, QpState, WcStatus};

/// The RNR NAK timer codes' waits (IBTA table 45), in core cycles at 156.25 MHz.
pub fn rnr_wait_cycles(code: u8) -> u64 {
    // hundredths of a millisecond
    const TABLE: [u64; 32] = [
        65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576,
        32768, 49152,
    ];
    TABLE[usize::from(code & 31)] * 15_625 / 10
}
use std::cmp::Ordering;

impl RdmaEngine {
    /// Progress on QP `q`: its retry counts start again, and so does its timer (stopped
    /// when nothing is outstanding).
    fn progress(&mut self, q: usize, now: u64) {
        let words = self.qp[q];
        let unit = self.timer_unit;
        let run = &mut self.qp_run[q];
        run.retries = 0;
        run.rnr_retries = 0;
        run.went_back_to = None;
        run.timer = if run.outstanding.is_empty() { None } else { transport_timeout(&words, unit).map(|t| now + t) };
    }

    /// The first PSN of QP `q` not acknowledged: inside the head WQE past the latest
    /// ACK that fell in it, past a READ's landed packets (an ACK never covers a READ's
    /// data), else the head's first.
    fn first_unacked(&self, q: usize) -> Option<u32> {
        let run = &self.qp_run[q];
        let o = run.outstanding.front()?;
        let mtu = pmtu_bytes(qpc::PMTU.get(&self.qp[q]));
        let mut una = psn_add(o.first_psn, o.received / mtu);
        if let Some(a) = run.acked.filter(|_| o.wqe.opcode != wqe::OP_READ) {
            if psn_cmp(a, una) != Ordering::Less && psn_cmp(a, o.last_psn) == Ordering::Less {
                una = psn_add(a, 1);
            }
        }
        Some(una)
    }

    /// Goes back to `psn` after a timeout or a sequence NAK (`syn`: the NAK's syndrome,
    /// 0 for a timeout), or fails the head WQE with RETRY_EXC_ERR when RETRY_CNT times
    /// in a row did not help.
    pub(crate) fn go_back(&mut self, q: usize, psn: u32, syn: u8, host: &mut dyn HostPort, now: u64) {
        if self.qp_run[q].outstanding.is_empty() {
            return;
        }
        if u32::from(self.qp_run[q].retries) >= qpc::RETRY_CNT.get(&self.qp[q]) {
            return self.fail_head(q, WcStatus::RetryExcErr, syn, host, now);
        }
        self.qp_run[q].retries += 1;
        self.rewind(q, psn, now);
    }

    /// Go-back-N: the requester starts again at `psn`, inside the head WQE (every WQE
    /// before it is complete), and resends every WQE after it; they are outstanding again
    /// as they go out.
    pub(crate) fn rewind(&mut self, q: usize, psn: u32, now: u64) {
        use super::tables::Resume;
        let words = self.qp[q];
        let mtu = pmtu_bytes(qpc::PMTU.get(&words));
        let Some(head) = self.qp_run[q].outstanding.front().cloned() else { return };
        // never past what the head lacks (a sequence NAK names request PSNs: one past a
        // READ whose response was lost says nothing of that response)
        let una = self.first_unacked(q).unwrap_or(psn);
        let psn = if psn_cmp(psn, una) == Ordering::Greater { una } else { psn };
        let k = if psn_cmp(psn, head.first_psn) == Ordering::Less { 0 } else { psn.wrapping_sub(head.first_psn) & 0xff_ffff };
        let offset = (k * mtu).min(head.len);
        let resume_psn = psn_add(head.first_psn, offset / mtu);
        self.count(nic_regmap::rdma::TX_RETRIES, 1);
        qpc::SQ_CI.set(&mut self.qp[q], u32::from(head.sq_index));
        qpc::SQ_PSN.set(&mut self.qp[q], resume_psn);
        let run = &mut self.qp_run[q];
        run.current = None;
        run.outstanding.clear();
        run.resume = Some(Resume { sq_index: head.sq_index, offset, first_psn: head.first_psn });
        run.went_back_to = Some(resume_psn);
        run.timer = transport_timeout(&words, self.timer_unit).map(|t| now + t);
    }

    /// The timers of QP `q` at cycle `now`: the transport timer ran out (back to the
    /// first PSN not acknowledged), or an RNR NAK's wait is over (back to its PSN).
    pub(crate) fn requester_timers(&mut self, q: usize, host: &mut dyn HostPort, now: u64) {
        if self.qp_state(q) != QpState::Rts {
            return;
        }
        if let Some((until, psn)) = self.qp_run[q].rnr_wait {
            if now >= until {
                self.qp_run[q].rnr_wait = None;
                self.rewind(q, psn, now);
            }
            return;
        }
        if let Some(t) = self.qp_run[q].timer {
            if now >= t {
                match self.first_unacked(q) {
                    Some(una) => {
                        // a timeout is a new loss even at the PSN gone back to before
                        self.qp_run[q].went_back_to = None;
                        self.go_back(q, una, 0, host, now)
                    }
                    None => self.qp_run[q].timer = None,
                }
            }
        }
    }

    /// Completes the head outstanding WQE of QP `q` successfully.
    fn complete_head(&mut self, q: usize, host: &mut dyn HostPort, now: u64) {
        let words = self.qp[q];
        let Some(o) = self.qp_run[q].outstanding.pop_front() else { return };
        self.progress(q, now);
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

    /// Everything of QP `q` up to `psn` was received (an ACK, or what a PSN sequence NAK
    /// says): the WQEs it covers complete, and the first PSN not acknowledged moves (inside
    /// a WQE too), which is progress.
    fn acknowledge_through(&mut self, q: usize, psn: u32, host: &mut dyn HostPort, now: u64) {
        let before = self.first_unacked(q);
        if self.qp_run[q].acked.is_none_or(|a| psn_cmp(psn, a) == Ordering::Greater) {
            self.qp_run[q].acked = Some(psn);
        }
        self.complete_through(q, psn, host, now);
        if before.is_some() && self.first_unacked(q) != before {
            self.progress(q, now);
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
                Syndrome::Ack { .. } => self.acknowledge_through(q, psn, host, now),
                Syndrome::Nak(NakCode::PsnSequenceError) => {
                    // everything before the PSN arrived; back to it, unless already there
                    self.count(RX_NAKS, 1);
                    self.acknowledge_through(q, psn_add(psn, 0xff_ffff), host, now);
                    if self.qp_run[q].went_back_to != Some(psn) {
                        self.go_back(q, psn, syn, host, now);
                    }
                }
                Syndrome::RnrNak { timer } if self.qp_run[q].rnr_retries < 7 && u32::from(self.qp_run[q].rnr_retries) < qpc::RNR_RETRY.get(&self.qp[q]) => {
                    // the SEND is sent again once the NAK's timer has run (RNR_RETRY 7:
                    // for ever, so the count stops short of it)
                    self.count(RX_NAKS, 1);
                    self.complete_through(q, psn_add(psn, 0xff_ffff), host, now);
                    if qpc::RNR_RETRY.get(&self.qp[q]) != 7 {
                        self.qp_run[q].rnr_retries += 1;
                    }
                    self.qp_run[q].timer = None;
                    self.qp_run[q].rnr_wait = Some((now + rnr_wait_cycles(timer), psn));
                }
                Syndrome::RnrNak { .. } | Syndrome::Nak(_) => {
                    self.count(RX_NAKS, 1);
                    // the WQEs before the one the NAK names were received whole
                    self.complete_through(q, psn_add(psn, 0xff_ffff), host, now);
                    let status = match aeth.syndrome {
                        Syndrome::RnrNak { .. } => WcStatus::RnrRetryExcErr,
                        Syndrome::Nak(NakCode::PsnSequenceError) => WcStatus::RetryExcErr,
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
        if o.wqe.opcode == wqe::OP_READ && psn_cmp(psn, expected) == Ordering::Greater && self.qp_run[q].went_back_to != Some(expected) {
            // a response packet was lost: the READ is asked again from the one it lacks
            self.count(RX_DROP_PSN, 1);
            return self.go_back(q, expected, syndrome::NAK_PSN_SEQUENCE, host, now);
        }
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
            self.progress(q, now);
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
        // (its place in the send queue matters only to going back, which the RTL's
        // completer does not do yet: CAPS.RETRANSMIT clear, RETRY_CNT 0)
        self.qp_run[q].outstanding.push_back(Outstanding { wqe, local: BusList::default(), len, first_psn, last_psn, received: 0, sq_index: 0 });
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
