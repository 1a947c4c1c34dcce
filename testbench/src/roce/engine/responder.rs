//! The responder: request packets into memory and receive WQEs, READ responses, ACKs
//! and NAKs (rxe_resp.c's role).
//!
//! A request is taken only at the expected PSN and in a legal opcode sequence (a
//! duplicate is answered again without being executed, a request ahead of a gap gets
//! one NAK PSN sequence error: `out_of_sequence`). Every
//! access is checked before a byte moves: a WRITE's or READ's RETH against the MR its
//! rkey names (key current, same PD, REMOTE_WRITE / REMOTE_READ granted by both the MR
//! and the QP, the whole range inside the region), a SEND against the receive WQE's
//! scatter-gather list. A refused request gets a NAK (remote access error, invalid
//! request, remote operational error) and moves the QP to ERR, as rdma_rxe's class
//! A/C errors do; a SEND with no receive WQE posted gets an RNR NAK and leaves the QP
//! as it is. An ACK answers every packet with AckReq.

use super::tables::{pmtu_bytes, RecvInProgress, WriteInProgress};
use super::requester::packets;
use super::{Cqe, HostPort, RdmaEngine, Response, Station};
use crate::roce::opcode::{self, OpClass, OpInfo};
use crate::roce::{position_of, psn_add, psn_cmp, RoceRepr};
use std::cmp::Ordering;
use crate::wire::aeth::{AethRepr, Syndrome};
use nic_regmap::rdma::{access, cqe, qpc, syndrome, QpState, WcStatus};

impl RdmaEngine {
    /// Queues a NAK for `psn`; a NAK other than RNR moves the QP to ERR (after which
    /// the NAK still leaves).
    fn nak(&mut self, q: usize, psn: u32, syn: u8, host: &mut dyn HostPort, now: u64) {
        self.count(nic_regmap::rdma::TX_NAKS, 1);
        if syn & 0xe0 != syndrome::RNR_NAK {
            self.to_error(q, host, now);
        }
        let msn = self.qp_run[q].msn;
        self.qp_run[q].resp.push_back(Response::Ack { psn, syndrome: syn, msn });
    }

    /// Writes `data` at offset `at` of the receive WQE in progress; false if the host
    /// refused a write.
    fn write_pieces(host: &mut dyn HostPort, pieces: Vec<(u64, usize)>, data: &[u8]) -> bool {
        let mut at = 0;
        for (bus, len) in pieces {
            if !host.write(bus, &data[at..at + len]) {
                return false;
            }
            at += len;
        }
        true
    }

    /// Fails the receive WQE in progress with `status` and NAKs the packet.
    fn fail_recv(&mut self, q: usize, psn: u32, status: WcStatus, syn: u8, host: &mut dyn HostPort, now: u64) {
        if let Some(r) = self.qp_run[q].recv.take() {
            let cq = qpc::RECV_CQ.get(&self.qp[q]) as usize;
            self.post_cqe(host, cq, &Cqe { wr_id: r.wr_id, qpn: q as u32, status, opcode: cqe::OP_RECV, ..Cqe::default() }, now);
        }
        self.nak(q, psn, syn, host, now);
    }

    /// Takes the next receive WQE for a SEND or a WRITE with immediate; `None` if none
    /// is posted (the caller sends an RNR NAK) or it is unusable (the caller has failed
    /// the packet).
    fn take_recv_wqe(&mut self, q: usize, psn: u32, host: &mut dyn HostPort, now: u64) -> Option<RecvInProgress> {
        let words = self.qp[q];
        let rq_ci = qpc::RQ_CI.get(&words) as u16;
        if rq_ci == self.qp_run[q].rq_pi {
            let timer = qpc::MIN_RNR_TIMER.get(&self.qp[q]) as u8;
            self.nak(q, psn, syndrome::RNR_NAK | timer, host, now);
            return None;
        }
        qpc::RQ_CI.set(&mut self.qp[q], u32::from(rq_ci.wrapping_add(1)));
        let Some(w) = self.read_wqe(host, &words, false, rq_ci) else {
            self.nak(q, psn, syndrome::NAK_REMOTE_OPERATIONAL, host, now);
            return None;
        };
        match self.resolve_local(q, &w, true) {
            Ok(local) => Some(RecvInProgress { wr_id: w.wr_id, local, received: 0 }),
            Err(status) => {
                self.qp_run[q].recv = Some(RecvInProgress { wr_id: w.wr_id, local: Default::default(), received: 0 });
                self.fail_recv(q, psn, status, syndrome::NAK_REMOTE_OPERATIONAL, host, now);
                None
            }
        }
    }

    /// A request packet for QP `q` (in RTR or RTS).
    pub(crate) fn responder_receive(&mut self, q: usize, repr: &RoceRepr, info: &OpInfo, payload: &[u8], host: &mut dyn HostPort, now: u64) {
        let words = self.qp[q];
        let psn = repr.bth.psn;
        let expected = qpc::RQ_PSN.get(&words);
        if psn != expected {
            return self.out_of_sequence(q, repr, info, expected, host, now);
        }
        let prev = self.qp_run[q].last_opcode.and_then(opcode::info);
        if !opcode::sequence_ok(prev, info) {
            return self.nak(q, psn, syndrome::NAK_INVALID_REQUEST, host, now);
        }
        let mtu = pmtu_bytes(qpc::PMTU.get(&words));
        let len = payload.len() as u32;
        // First and Middle packets carry exactly the path MTU (IBTA C9-90)
        if info.class != OpClass::ReadRequest && !info.position.ends() && len != mtu {
            return self.nak(q, psn, syndrome::NAK_INVALID_REQUEST, host, now);
        }
        let recv_cq = qpc::RECV_CQ.get(&words) as usize;
        let mut next_psn = psn_add(psn, 1);
        match info.class {
            OpClass::Send => {
                if info.position.starts() {
                    let Some(r) = self.take_recv_wqe(q, psn, host, now) else { return };
                    self.qp_run[q].recv = Some(r);
                }
                let r = self.qp_run[q].recv.as_ref().expect("a receive in progress").clone();
                if u64::from(r.received) + u64::from(len) > r.local.len() {
                    return self.fail_recv(q, psn, WcStatus::LocLenErr, syndrome::NAK_INVALID_REQUEST, host, now);
                }
                if !Self::write_pieces(host, r.local.slice(u64::from(r.received), u64::from(len)), payload) {
                    return self.fail_recv(q, psn, WcStatus::LocProtErr, syndrome::NAK_REMOTE_OPERATIONAL, host, now);
                }
                let received = r.received + len;
                if info.position.ends() {
                    self.qp_run[q].recv = None;
                    self.qp_run[q].msn = psn_add(self.qp_run[q].msn, 1);
                    let e = Cqe { wr_id: r.wr_id, byte_len: received, imm: repr.immdt, qpn: q as u32, opcode: cqe::OP_RECV, solicited: repr.bth.solicited, ..Cqe::default() };
                    self.post_cqe(host, recv_cq, &e, now);
                } else {
                    self.qp_run[q].recv.as_mut().unwrap().received = received;
                }
            }
            OpClass::Write => {
                if info.position.starts() {
                    let reth = repr.reth.expect("parse gave the RETH");
                    match self.check_remote(q, reth.rkey, reth.virtual_addr, reth.dma_len, access::REMOTE_WRITE) {
                        Some(bus) => self.qp_run[q].write = Some(WriteInProgress { bus, rkey: reth.rkey, va: reth.virtual_addr, remaining: reth.dma_len, total: reth.dma_len }),
                        None => return self.nak(q, psn, syndrome::NAK_REMOTE_ACCESS, host, now),
                    }
                }
                let w = self.qp_run[q].write.clone().expect("a write in progress");
                // every later packet is checked again, its own bytes under the message's
                // rkey: a region deregistered (or its QP's access taken away) mid-message
                // takes no byte more
                if !info.position.starts() && self.check_remote(q, w.rkey, w.va, len, access::REMOTE_WRITE).is_none() {
                    return self.nak(q, psn, syndrome::NAK_REMOTE_ACCESS, host, now);
                }
                if len > w.remaining || (info.position.ends() && len != w.remaining) {
                    return self.nak(q, psn, syndrome::NAK_INVALID_REQUEST, host, now);
                }
                if info.immdt && self.qp_run[q].recv.is_none() {
                    // the receive WQE is taken before the last bytes land
                    let Some(r) = self.take_recv_wqe(q, psn, host, now) else { return };
                    self.qp_run[q].recv = Some(r);
                }
                if len > 0 && !host.write(w.bus, payload) {
                    return self.nak(q, psn, syndrome::NAK_REMOTE_OPERATIONAL, host, now);
                }
                if info.position.ends() {
                    self.qp_run[q].write = None;
                    self.qp_run[q].msn = psn_add(self.qp_run[q].msn, 1);
                    if let Some(r) = self.qp_run[q].recv.take() {
                        let e = Cqe { wr_id: r.wr_id, byte_len: w.total, imm: repr.immdt, qpn: q as u32, opcode: cqe::OP_RECV_RDMA_WITH_IMM, solicited: repr.bth.solicited, ..Cqe::default() };
                        self.post_cqe(host, recv_cq, &e, now);
                    }
                } else {
                    let wp = self.qp_run[q].write.as_mut().unwrap();
                    wp.bus += u64::from(len);
                    wp.va = wp.va.wrapping_add(u64::from(len));
                    wp.remaining -= len;
                }
            }
            OpClass::ReadRequest => {
                let reth = repr.reth.expect("parse gave the RETH");
                let Some(bus) = self.check_remote(q, reth.rkey, reth.virtual_addr, reth.dma_len, access::REMOTE_READ) else {
                    return self.nak(q, psn, syndrome::NAK_REMOTE_ACCESS, host, now);
                };
                let run = &mut self.qp_run[q];
                run.msn = psn_add(run.msn, 1);
                let msn = run.msn;
                run.resp.push_back(Response::Read { psn, bus, len: reth.dma_len, sent: 0, msn });
                next_psn = psn_add(psn, packets(reth.dma_len, mtu));
            }
            _ => unreachable!("requests only"),
        }
        qpc::RQ_PSN.set(&mut self.qp[q], next_psn);
        self.qp_run[q].last_opcode = Some(repr.bth.opcode);
        self.qp_run[q].nak_seq_sent = false;
        // ACKed when it asks, or as the ACK_EVERY-th request since the last ACK (a READ
        // is answered by its response and counts none)
        if info.class != OpClass::ReadRequest {
            let n = self.ack_every;
            let run = &mut self.qp_run[q];
            let inc = (run.unacked + 1) & 7;
            let due = repr.bth.ack_req || (n > 0 && inc >= n);
            run.unacked = if due { 0 } else { inc };
            if due {
                let msn = run.msn;
                run.resp.push_back(Response::Ack { psn, syndrome: syndrome::ACK, msn });
            }
        }
    }

    /// A request whose PSN is not the expected one (IBTA 9.7.5.1.2, rdma_rxe's
    /// `duplicate_request` and `check_psn`).
    ///
    /// * A duplicate (a PSN in the half of the circle before `expected`) is never
    ///   executed twice: a SEND or WRITE packet is answered by an ACK of the last PSN
    ///   received (`expected - 1`), so a requester whose ACK was lost learns that all
    ///   arrived; a READ request is executed again from its RETH, checked again, its
    ///   response starting at its own PSN (a requester resuming a READ half-way sends
    ///   the remaining range at the PSN of the first response it lacks). Neither moves
    ///   RQ_PSN, the MSN or the message in progress.
    /// * A request ahead of `expected` means packets were lost: the first one after
    ///   the gap is answered by a NAK PSN sequence error for `expected` (which the
    ///   requester takes as an ACK of everything before it, and a cue to resend from
    ///   there), the rest dropped silently until the expected PSN arrives.
    fn out_of_sequence(&mut self, q: usize, repr: &RoceRepr, info: &OpInfo, expected: u32, host: &mut dyn HostPort, now: u64) {
        use nic_regmap::rdma::{RX_DROP_PSN, RX_DUPLICATES, TX_NAKS};
        let psn = repr.bth.psn;
        let msn = self.qp_run[q].msn;
        if psn_cmp(psn, expected) == Ordering::Less {
            self.count(RX_DUPLICATES, 1);
            if info.class == OpClass::ReadRequest {
                let reth = repr.reth.expect("parse gave the RETH");
                let Some(bus) = self.check_remote(q, reth.rkey, reth.virtual_addr, reth.dma_len, access::REMOTE_READ) else {
                    return self.nak(q, psn, syndrome::NAK_REMOTE_ACCESS, host, now);
                };
                // the READ this PSN falls in is asked for again (from this PSN on): what is
                // still owed of its earlier response is dropped, and the new response goes
                // before those of later READs (even one being sent), in PSN order, as
                // rdma_rxe restarts the READ's resource: a requester that went back waits
                // for this one first and discards the rest meanwhile
                let mtu = pmtu_bytes(qpc::PMTU.get(&self.qp[q]));
                let resp = &mut self.qp_run[q].resp;
                resp.retain(|r| match *r {
                    Response::Read { psn: p, len, .. } => !(psn_cmp(psn, p) != Ordering::Less && psn_cmp(psn, psn_add(p, packets(len, mtu))) == Ordering::Less),
                    Response::Ack { .. } => true,
                });
                let at = resp.iter().position(|r| matches!(*r, Response::Read { psn: p, .. } if psn_cmp(p, psn) == Ordering::Greater)).unwrap_or(resp.len());
                resp.insert(at, Response::Read { psn, bus, len: reth.dma_len, sent: 0, msn });
            } else {
                self.qp_run[q].resp.push_back(Response::Ack { psn: psn_add(expected, 0xff_ffff), syndrome: syndrome::ACK, msn });
            }
            return;
        }
        self.count(RX_DROP_PSN, 1);
        if !self.qp_run[q].nak_seq_sent {
            self.qp_run[q].nak_seq_sent = true;
            self.count(TX_NAKS, 1);
            self.qp_run[q].resp.push_back(Response::Ack { psn: expected, syndrome: syndrome::NAK_PSN_SEQUENCE, msn });
        }
    }

    /// The next response packet QP `q` owes (ACK, NAK or READ response).
    pub(crate) fn responder_packet(&mut self, q: usize, host: &mut dyn HostPort, st: Station) -> Option<(RoceRepr, Vec<u8>)> {
        if self.qp_state(q) == QpState::Reset {
            return None;
        }
        match self.qp_run[q].resp.front().cloned()? {
            Response::Ack { psn, syndrome: syn, msn } => {
                self.qp_run[q].resp.pop_front();
                if syn == syndrome::ACK {
                    self.count(nic_regmap::rdma::TX_ACKS, 1);
                }
                let mut repr = self.packet_header(q, st, opcode::ACKNOWLEDGE, psn, false, false);
                repr.aeth = Some(AethRepr { syndrome: Syndrome::from_byte(syn), msn });
                Some((repr, Vec::new()))
            }
            Response::Read { psn, bus, len, sent, msn } => {
                let mtu = pmtu_bytes(qpc::PMTU.get(&self.qp[q]));
                let n = packets(len, mtu);
                let index = sent / mtu;
                let position = position_of(index as usize, n as usize);
                let chunk = mtu.min(len - sent);
                let this_psn = psn_add(psn, index);
                let Some(data) = (if chunk == 0 { Some(Vec::new()) } else { host.read(bus + u64::from(sent), chunk as usize) }) else {
                    self.qp_run[q].resp.pop_front();
                    self.nak(q, this_psn, syndrome::NAK_REMOTE_OPERATIONAL, host, st.now);
                    return self.responder_packet(q, host, st);
                };
                let op = opcode::lookup(OpClass::ReadResponse, position, false).expect("every READ response position");
                let mut repr = self.packet_header(q, st, op, this_psn, false, false);
                if opcode::info(op).unwrap().aeth {
                    repr.aeth = Some(AethRepr { syndrome: Syndrome::from_byte(syndrome::ACK), msn });
                }
                if position.ends() {
                    self.qp_run[q].resp.pop_front();
                } else if let Some(Response::Read { sent, .. }) = self.qp_run[q].resp.front_mut() {
                    *sent += chunk;
                }
                Some((repr, data))
            }
        }
    }
}
