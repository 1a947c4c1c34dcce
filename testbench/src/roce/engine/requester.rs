//! The requester: send queue WQEs into request packets (rxe_req.c's role).
//!
//! A QP in RTS takes its next WQE when the doorbell has posted one and fewer than
//! `MAX_OUTSTANDING` of its WQEs wait for completion; a READ WQE also waits while
//! MAX_RD_ATOMIC READs of the QP are outstanding (if not 0). The WQE's local scatter-gather
//! list is checked whole before its first packet (a bad lkey, another PD's region, a
//! range outside the region, or a READ into a region without LOCAL_WRITE completes
//! the WQE with an error and moves the QP to ERR: nothing is sent). SEND and WRITE
//! are cut at the path MTU into First/Middle/Last or Only packets, the RETH on the
//! first, the immediate data on the last, AckReq on the last; a READ is one request
//! whose response takes one PSN per MTU of data.

use super::tables::{pmtu_bytes, Outstanding, SendJob};
use super::{Cqe, HostPort, RdmaEngine, Station, MAX_OUTSTANDING};
use crate::roce::opcode::{self, OpClass};
use crate::roce::{position_of, psn_add, psn_cmp, RoceRepr};
use std::cmp::Ordering;
use crate::wire::reth::RethRepr;
use nic_regmap::rdma::{cqe, qpc, wqe, QpState, WcStatus};

/// The CQE opcode of a send WQE's completion.
pub fn completion_opcode(wqe_opcode: u8) -> u8 {
    match wqe_opcode {
        wqe::OP_WRITE | wqe::OP_WRITE_IMM => cqe::OP_RDMA_WRITE,
        wqe::OP_READ => cqe::OP_RDMA_READ,
        _ => cqe::OP_SEND,
    }
}

/// The QP's local ACK timeout in core cycles (4.096 us x 2^TIMEOUT: `unit` cycles a unit,
/// TIMER_UNIT, 640 at 156.25 MHz; 0 acts as 1), `None` for TIMEOUT 0 (no timer).
pub fn transport_timeout(words: &[u32], unit: u32) -> Option<u64> {
    match qpc::TIMEOUT.get(words) {
        0 => None,
        t => Some(u64::from(unit.max(1)) << t),
    }
}

/// Packets a message of `len` bytes takes at path MTU `mtu`.
pub fn packets(len: u32, mtu: u32) -> u32 {
    crate::roce::packet_count(len as usize, mtu as usize) as u32
}

impl RdmaEngine {
    /// The next request packet of QP `q`, if it has one to send.
    pub(crate) fn requester_packet(&mut self, q: usize, host: &mut dyn HostPort, st: Station) -> Option<(RoceRepr, Vec<u8>)> {
        if self.qp_state(q) != QpState::Rts || self.qp_run[q].rnr_wait.is_some() {
            return None;
        }
        let packet = if self.qp_run[q].current.is_none() { self.start_wqe(q, host, st) } else { self.next_segment(q, host, st) };
        if let Some((repr, _)) = &packet {
            self.sent_request(q, repr, st.now);
        }
        packet
    }

    /// Books a request packet sent: the retransmit timer runs from the first packet a
    /// WQE waits on, and a PSN sent before is counted resent.
    fn sent_request(&mut self, q: usize, repr: &RoceRepr, now: u64) {
        let words = self.qp[q];
        let psn = repr.bth.psn;
        // a READ request takes a PSN per response packet
        let span = match repr.reth {
            Some(reth) if repr.bth.opcode == opcode::RDMA_READ_REQUEST => packets(reth.dma_len, pmtu_bytes(qpc::PMTU.get(&words))),
            _ => 1,
        };
        let run = &mut self.qp_run[q];
        if run.timer.is_none() {
            run.timer = transport_timeout(&words, self.timer_unit).map(|t| now + t);
        }
        let end = psn_add(psn, span);
        match run.next_new_psn {
            Some(n) if psn_cmp(psn, n) == Ordering::Less => {
                self.count(nic_regmap::rdma::TX_RESENT, 1);
                if psn_cmp(end, n) == Ordering::Greater {
                    self.qp_run[q].next_new_psn = Some(end);
                }
            }
            _ => run.next_new_psn = Some(end),
        }
    }

    /// Takes the next WQE: checks it, and sends a READ's request or a SEND/WRITE's
    /// first packet.
    fn start_wqe(&mut self, q: usize, host: &mut dyn HostPort, st: Station) -> Option<(RoceRepr, Vec<u8>)> {
        let words = self.qp[q];
        let sq_ci = qpc::SQ_CI.get(&words) as u16;
        let run = &self.qp_run[q];
        if sq_ci == run.sq_pi || run.outstanding.len() >= MAX_OUTSTANDING {
            return None;
        }
        // a READ waits at the head while MAX_RD_ATOMIC READs are outstanding (0: no bound
        // of its own)
        let ord = qpc::MAX_RD_ATOMIC.get(&words) as usize;
        if ord > 0 && run.outstanding.iter().filter(|o| o.wqe.opcode == wqe::OP_READ).count() >= ord && self.read_wqe(host, &words, true, sq_ci).is_some_and(|w| w.opcode == wqe::OP_READ) {
            return None;
        }
        let send_cq = qpc::SEND_CQ.get(&words) as usize;
        qpc::SQ_CI.set(&mut self.qp[q], u32::from(sq_ci.wrapping_add(1)));
        // going back: the WQE it went back to starts where its acknowledged part ends
        let resume = self.qp_run[q].resume.take().filter(|r| r.sq_index == sq_ci);
        let Some(w) = self.read_wqe(host, &words, true, sq_ci) else {
            // the WQE itself could not be read: nothing names it but its place
            self.post_cqe(host, send_cq, &Cqe { qpn: q as u32, status: WcStatus::LocQpOpErr, ..Cqe::default() }, st.now);
            self.to_error(q, host, st.now);
            return None;
        };
        let fail = |e: &mut RdmaEngine, host: &mut dyn HostPort, status: WcStatus| {
            e.post_cqe(host, send_cq, &Cqe { wr_id: w.wr_id, qpn: q as u32, status, opcode: completion_opcode(w.opcode), ..Cqe::default() }, st.now);
            e.to_error(q, host, st.now);
        };
        if w.opcode > wqe::OP_READ {
            fail(self, host, WcStatus::LocQpOpErr);
            return None;
        }
        let local = match self.resolve_local(q, &w, w.opcode == wqe::OP_READ) {
            Ok(l) => l,
            Err(status) => {
                fail(self, host, status);
                return None;
            }
        };
        let len = local.len() as u32;
        let offset = resume.map_or(0, |r| r.offset.min(len));
        let first_psn = resume.map_or(qpc::SQ_PSN.get(&words), |r| r.first_psn);
        let n = packets(len, pmtu_bytes(qpc::PMTU.get(&words)));
        let last_psn = psn_add(first_psn, n - 1);
        if w.opcode == wqe::OP_READ {
            // (going back, the READ asks for the rest of its range at the PSN of the
            // first response packet it lacks)
            let psn = qpc::SQ_PSN.get(&words);
            qpc::SQ_PSN.set(&mut self.qp[q], psn_add(first_psn, n));
            let mut repr = self.packet_header(q, st, opcode::RDMA_READ_REQUEST, psn, true, false);
            repr.reth = Some(RethRepr { virtual_addr: w.remote_addr.wrapping_add(u64::from(offset)), rkey: w.rkey, dma_len: len - offset });
            self.qp_run[q].outstanding.push_back(Outstanding { wqe: w, local, len, first_psn, last_psn, received: offset, sq_index: sq_ci });
            return Some((repr, Vec::new()));
        }
        // outstanding from its first packet on, so that a NAK for any of its packets
        // finds it (its last PSN is known from the length)
        self.qp_run[q].outstanding.push_back(Outstanding { wqe: w.clone(), local: local.clone(), len, first_psn, last_psn, received: 0, sq_index: sq_ci });
        self.qp_run[q].current = Some(SendJob { wqe: w, local, len, sent: offset, first_psn });
        self.next_segment(q, host, st)
    }

    /// The next packet of the SEND or WRITE in progress.
    fn next_segment(&mut self, q: usize, host: &mut dyn HostPort, st: Station) -> Option<(RoceRepr, Vec<u8>)> {
        let words = self.qp[q];
        let mtu = pmtu_bytes(qpc::PMTU.get(&words));
        let job = self.qp_run[q].current.clone().expect("a job in progress");
        let n = packets(job.len, mtu);
        let position = position_of((job.sent / mtu) as usize, n as usize);
        let chunk = mtu.min(job.len - job.sent);
        let mut payload = Vec::with_capacity(chunk as usize);
        for (bus, len) in job.local.slice(u64::from(job.sent), u64::from(chunk)) {
            match host.read(bus, len) {
                Some(b) => payload.extend_from_slice(&b),
                None => {
                    // the host refused a read mid-message: the WQE fails, the QP stops
                    // (the WQEs before it are still waiting for their ACKs: they
                    // complete flushed, as in any move to ERR)
                    let send_cq = qpc::SEND_CQ.get(&words) as usize;
                    self.qp_run[q].current = None;
                    self.qp_run[q].outstanding.pop_back();
                    let e = Cqe { wr_id: job.wqe.wr_id, qpn: q as u32, status: WcStatus::LocProtErr, opcode: completion_opcode(job.wqe.opcode), ..Cqe::default() };
                    self.post_cqe(host, send_cq, &e, st.now);
                    self.to_error(q, host, st.now);
                    return None;
                }
            }
        }
        let (class, imm) = match job.wqe.opcode {
            wqe::OP_SEND => (OpClass::Send, false),
            wqe::OP_SEND_IMM => (OpClass::Send, true),
            wqe::OP_WRITE => (OpClass::Write, false),
            _ => (OpClass::Write, true),
        };
        let imm_here = imm && position.ends();
        let op = opcode::lookup(class, position, imm_here).expect("the table has every send and write position");
        let psn = qpc::SQ_PSN.get(&words);
        qpc::SQ_PSN.set(&mut self.qp[q], psn_add(psn, 1));
        let solicited = position.ends() && job.wqe.flags & wqe::FLAG_SOLICITED != 0;
        let mut repr = self.packet_header(q, st, op, psn, position.ends(), solicited);
        if class == OpClass::Write && position.starts() {
            repr.reth = Some(RethRepr { virtual_addr: job.wqe.remote_addr, rkey: job.wqe.rkey, dma_len: job.len });
        }
        if imm_here {
            repr.immdt = Some(job.wqe.imm);
        }
        let run = &mut self.qp_run[q];
        if position.ends() {
            run.current = None;
        } else {
            run.current.as_mut().unwrap().sent += chunk;
        }
        Some((repr, payload))
    }
}
