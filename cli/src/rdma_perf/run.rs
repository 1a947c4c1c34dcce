//! The benchmark of `nic rdma-perf`, perftest's way: resources, the connection exchange
//! over TCP, the QPs connected, the run (the client issues WRITEs, READs or SENDs; the
//! server posts receives for SENDs and otherwise waits for the final sync), the figures
//! in perftest's table, and the check of every byte that landed.
//!
//! Memory per QP, in one region registered for every access: `slots` landing slots of
//! `size` bytes (the target of the peer's WRITEs, the source of its READs, the client's
//! READ landings, the server's SEND landings) and one source slot. A sender's bytes are
//! a pattern seeded by its QPN and PSN, which its peer learns in the exchange, so each
//! side can check what landed without another message: the server every WRITE slot after
//! the final sync and every SEND as it completes, the client every READ as it completes.

use super::exchange::{self, QpInfo};
use super::link::Link;
use super::host::SimHost;
use super::{mac_str, secs, Op, RdmaPerfArgs};
use crate::line_rate::{self, Target};
use anyhow::{bail, Context, Result};
use nic_driver::verbs::{access, Cq, Mr, Mtu, Qp, QpAttr, QpCaps, QpState, RecvWr, SendOp, SendWr, Sge, Wc, WcOpcode, WcStatus};
use nic_driver::Device;
use std::net::Ipv4Addr;
use std::time::Instant;

/// What simulated time is read against: the `full` configuration's wire and core clock
/// (10 GbE at 156.25 MHz, `line_rate`).
pub fn target() -> Target {
    line_rate::target(nic_hw::Config::Full)
}
/// perftest's MB: 2^20 bytes.
const MB: f64 = 1_048_576.0;
/// READs a QP may have outstanding (advertised as perftest's `out_reads`).
const OUT_READS: u16 = 15;
/// Landing slots per QP for WRITE and READ: both sides derive the same count from
/// `--size` (up to 1 MiB of them, at most 64).
pub fn remote_slots(size: u32) -> u32 {
    ((1 << 20) / size).clamp(1, 64)
}

/// The sender's bytes: a xorshift stream seeded by its QPN and first PSN.
pub fn pattern(qpn: u32, psn: u32, len: usize) -> Vec<u8> {
    let mut x = (u64::from(qpn) << 24 | u64::from(psn)) ^ 0x9e37_79b9_7f4a_7c15;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// One QP and its memory.
struct Lane {
    qp: Qp,
    psn: u32,
    /// Bus address (= IOVA) of the landing slots, and of the source slot.
    land: u64,
    src: u64,
    peer: Option<QpInfo>,
    /// The peer's bytes (its pattern), what every message from it must land as.
    expect: Vec<u8>,
    posted: u32,
    done: u32,
    /// Next landing slot a READ (client) or receive (server) takes.
    next_slot: u32,
}

/// What the run measured.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub messages: u64,
    pub bytes: u64,
    /// Simulated cycles from the first post to the last completion (client), and wall
    /// seconds.
    pub cycles: u64,
    pub wall: f64,
    /// Bytes checked against the sender's pattern, and messages.
    pub verified_bytes: u64,
    pub verified_messages: u64,
    pub mtu: u32,
    /// Per message (latency runs): wall microseconds and simulated cycles.
    pub lat_us: Vec<f64>,
    pub lat_cycles: Vec<u64>,
}

impl Outcome {
    /// Records a bandwidth run's end: `want` messages of `size` bytes since `start_cycles`
    /// and `start`.
    fn finish(&mut self, h: &SimHost, start_cycles: u64, start: Instant, want: u64, size: u32) {
        self.cycles = h.nic.cycles() - start_cycles;
        self.wall = start.elapsed().as_secs_f64();
        self.messages = want;
        self.bytes = want * u64::from(size);
    }

    /// Seconds of simulated time the run took.
    pub fn sim_seconds(&self) -> f64 {
        target().seconds(self.cycles)
    }

    /// perftest's figures: MiB/s (2^20 bytes a second) and millions of messages a second,
    /// in simulated time.
    pub fn report(&self, size: u32) -> exchange::BwReport {
        let t = self.sim_seconds().max(1e-12);
        let bw = self.bytes as f64 / t / MB;
        exchange::BwReport { size: size.into(), iters: self.messages, bw_peak: bw, bw_avg: bw, msg_rate: self.messages as f64 / t / 1e6 }
    }
}

struct Ctx {
    cq_send: Cq,
    cq_recv: Cq,
    mr: Mr,
    lanes: Vec<Lane>,
    slots: u32,
    size: u32,
    depth: u32,
    /// Bytes of each lane's landing area.
    land_len: u64,
    /// What the opening of the exchange agreed on.
    agreed: Option<exchange::Agreed>,
}

/// The smallest landing area per QP: perftest's cycle buffer on hosts with 64 KiB pages.
const LAND_MIN: u64 = 64 << 10;

impl Ctx {
    fn agreed(&self) -> exchange::Agreed {
        self.agreed.expect("the exchange opened")
    }

    /// perftest's offset of message `n` in the peer's (or, for the checks, this side's)
    /// landing area.
    fn remote_offset(&self, n: u64) -> u64 {
        let g = self.agreed();
        exchange::remote_offset(n, self.size, g.cycle_buffer, g.cache_line)
    }

    /// The offsets messages 0..iters reach (at most one cycle's worth).
    fn offsets_used(&self, iters: u32) -> Vec<u64> {
        let g = self.agreed();
        // the walk repeats within cycle / line messages
        let period = u64::from(g.cycle_buffer / g.cache_line).max(1);
        let set: std::collections::BTreeSet<u64> = (0..u64::from(iters).min(period)).map(|n| self.remote_offset(n)).collect();
        set.into_iter().collect()
    }
}

fn setup(a: &RdmaPerfArgs, h: &mut SimHost) -> Result<Ctx> {
    let nic = &mut h.nic;
    if !nic.has_rdma() {
        bail!("this NIC has no RDMA engine (FEATURES.RDMA is clear)");
    }
    nic.rdma_open(h.ip).context("opening the RDMA engine")?;
    let pd = nic.alloc_pd()?;
    let depth = a.tx_depth.min(1 << 14);
    // a SEND server keeps twice the client's window posted (fewer RNR NAKs)
    let slots = if a.op == Op::Send { (2 * depth).clamp(2, 512).min(((32 << 20) / a.qps / a.size).max(2)) } else { remote_slots(a.size) };
    // room for perftest's addressing of the peer's messages too (a cycle buffer of up
    // to 64 KiB, or one message)
    let land_len = (u64::from(slots) * u64::from(a.size)).max(LAND_MIN);
    let per_qp = land_len + u64::from(a.size);
    let total = per_qp * u64::from(a.qps);
    if total > 64 << 20 {
        bail!("{total} bytes of buffers ({} QPs x {} slots of {} bytes): at most 64 MiB", a.qps, slots + 1, a.size);
    }
    let buf = nic.device_mut().alloc_dma(total as usize).context("host memory for the buffers")?;
    let mr = nic.reg_mr(pd, buf.bus_addr, total as usize, access::LOCAL_WRITE | access::REMOTE_WRITE | access::REMOTE_READ)?;
    let cq_log2 = (a.qps * depth.max(slots) + 1).next_power_of_two().trailing_zeros().clamp(4, 15);
    let cq_send = nic.create_cq(cq_log2)?;
    let cq_recv = nic.create_cq(cq_log2)?;
    let q_log2 = (depth.max(slots) + 1).next_power_of_two().trailing_zeros().clamp(2, 15);
    let caps = QpCaps { sq_log2: q_log2, rq_log2: q_log2, sig_all: false };
    let mut lanes = Vec::new();
    for i in 0..a.qps {
        let qp = nic.create_qp(pd, cq_send, cq_recv, caps).context("creating a QP")?;
        let land = buf.bus_addr + u64::from(i) * per_qp;
        let psn = rand::random::<u32>() & 0xff_ffff;
        lanes.push(Lane { qp, psn, land, src: land + land_len, peer: None, expect: Vec::new(), posted: 0, done: 0, next_slot: 0 });
    }
    Ok(Ctx { cq_send, cq_recv, mr, lanes, slots, size: a.size, depth, land_len, agreed: None })
}

/// The local half of the exchange for each QP.
fn local_infos(c: &Ctx, ip: Ipv4Addr, op: Op) -> Vec<QpInfo> {
    // perftest advertises the device's READ depth for READ tests, else 1
    let out_reads = if op == Op::Read { OUT_READS } else { 1 };
    c.lanes.iter().map(|l| QpInfo { lid: 0, out_reads, qpn: l.qp.qpn, psn: l.psn, rkey: c.mr.rkey, vaddr: l.land, gid: exchange::gid_of(ip) }).collect()
}

/// Fills memory before the exchange: the source slot with this side's pattern; the
/// landing slots with it too where the peer READs them (server of a READ test), else
/// zeroes.
fn fill(a: &RdmaPerfArgs, h: &mut SimHost, c: &Ctx) -> Result<()> {
    for l in &c.lanes {
        let mine = pattern(l.qp.qpn, l.psn, c.size as usize);
        h.nic.device_mut().mem_write(l.src, &mine)?;
        h.nic.device_mut().mem_write(l.land, &vec![0; c.land_len as usize])?;
        if a.server && a.op == Op::Read {
            for off in c.offsets_used(a.iters) {
                h.nic.device_mut().mem_write(l.land + off, &mine)?;
            }
        }
    }
    Ok(())
}

fn connect(h: &mut SimHost, c: &mut Ctx, tcp_peer: Ipv4Addr, retransmit: bool) -> Result<u32> {
    let mtu = Mtu::from_bytes(c.agreed().mtu).expect("agreed from ibv_mtu codes");
    for l in &mut c.lanes {
        let p = l.peer.expect("exchanged");
        let peer_ip = exchange::gid_ipv4(&p.gid).with_context(|| format!("the peer's GID {} is not an IPv4-mapped address: this NIC speaks RoCEv2 over IPv4 only", exchange::gid_str(&p.gid)))?;
        let mac = h.neighbour(peer_ip).or_else(|| h.neighbour(tcp_peer)).with_context(|| format!("no MAC address known for the peer {peer_ip} (no frame came from it)"))?;
        let nic = &mut h.nic;
        nic.modify_qp(l.qp, QpState::Init, &QpAttr { access: Some(access::LOCAL_WRITE | access::REMOTE_WRITE | access::REMOTE_READ), ..QpAttr::default() })?;
        let rtr = QpAttr { path_mtu: Some(mtu), dest_qpn: Some(p.qpn), rq_psn: Some(p.psn), dest_mac: Some(mac), dest_ipv4: Some(peer_ip), min_rnr_timer: retransmit.then_some(1), ..QpAttr::default() };
        nic.modify_qp(l.qp, QpState::Rtr, &rtr).with_context(|| format!("QP {:#x} to RTR (peer QPN {:#x} at {peer_ip}, {})", l.qp.qpn, p.qpn, mac_str(mac)))?;
        let rd = (p.out_reads.min(OUT_READS) as u8).max(1);
        let rts = QpAttr {
            sq_psn: Some(l.psn),
            timeout: retransmit.then_some(10),
            retry_cnt: retransmit.then_some(7),
            rnr_retry: retransmit.then_some(7),
            max_rd_atomic: Some(rd),
            ..QpAttr::default()
        };
        nic.modify_qp(l.qp, QpState::Rts, &rts)?;
    }
    Ok(c.agreed().mtu)
}

fn post_recv(h: &mut SimHost, c: &mut Ctx, i: usize) -> Result<()> {
    let l = &mut c.lanes[i];
    let slot = l.next_slot;
    l.next_slot = (l.next_slot + 1) % c.slots;
    let addr = l.land + u64::from(slot) * u64::from(c.size);
    let wr = RecvWr { wr_id: (i as u64) << 32 | u64::from(slot), sg_list: vec![Sge { addr, length: c.size, lkey: c.mr.lkey }] };
    h.nic.post_recv(l.qp, &[wr])?;
    Ok(())
}

fn post_send(a: &RdmaPerfArgs, h: &mut SimHost, c: &mut Ctx, i: usize) -> Result<()> {
    let l = &c.lanes[i];
    let p = l.peer.expect("exchanged");
    let n = l.posted;
    let slot = n % c.slots;
    let (op, local) = match a.op {
        Op::Write => (SendOp::Write { remote_addr: p.vaddr + c.remote_offset(n.into()), rkey: p.rkey }, l.src),
        Op::Read => (SendOp::Read { remote_addr: p.vaddr + c.remote_offset(n.into()), rkey: p.rkey }, l.land + u64::from(slot) * u64::from(c.size)),
        Op::Send => (SendOp::Send, l.src),
    };
    let wr = SendWr { wr_id: (i as u64) << 32 | u64::from(slot), op, sg_list: vec![Sge { addr: local, length: c.size, lkey: c.mr.lkey }], signaled: true, solicited: false };
    h.nic.post_send(l.qp, &[wr])?;
    c.lanes[i].posted += 1;
    Ok(())
}

fn check_wc(w: &Wc, what: &str) -> Result<()> {
    if w.status != WcStatus::Success {
        bail!("{what} completed with {:?} (QPN {:#x}, NAK syndrome {:#04x})", w.status, w.qpn, w.syndrome);
    }
    Ok(())
}

/// Checks (and clears) landing slot `slot` of lane `i` against the peer's pattern.
fn verify_slot(h: &mut SimHost, c: &Ctx, i: usize, slot: u32, len: u32, out: &mut Outcome) -> Result<()> {
    let l = &c.lanes[i];
    let want = &l.expect;
    let at = l.land + u64::from(slot) * u64::from(c.size);
    let mut got = vec![0u8; c.size as usize];
    h.nic.device_mut().mem_read(at, &mut got)?;
    if len != c.size {
        bail!("a message of {len} bytes landed where {} were sent", c.size);
    }
    if let Some(k) = got.iter().zip(want).position(|(g, w)| g != w) {
        bail!("QP {:#x}, slot {slot}: byte {k} of {} is {:#04x}, the peer's pattern has {:#04x}", l.qp.qpn, c.size, got[k], want[k]);
    }
    h.nic.device_mut().mem_write(at, &vec![0; c.size as usize])?;
    out.verified_bytes += u64::from(c.size);
    out.verified_messages += 1;
    Ok(())
}

/// The client's bandwidth run: up to `depth` messages outstanding per QP.
fn client_bw(a: &RdmaPerfArgs, h: &mut SimHost, c: &mut Ctx, out: &mut Outcome) -> Result<()> {
    let start_cycles = h.nic.cycles();
    let start = Instant::now();
    let mut last_progress = Instant::now();
    let want = u64::from(a.iters) * c.lanes.len() as u64;
    let mut done = 0u64;
    while done < want {
        for i in 0..c.lanes.len() {
            while c.lanes[i].posted < a.iters && c.lanes[i].posted - c.lanes[i].done < c.depth {
                post_send(a, h, c, i)?;
            }
        }
        h.pump()?;
        let wcs = h.nic.poll_cq(c.cq_send, 256)?;
        if !wcs.is_empty() {
            last_progress = Instant::now();
        }
        for w in wcs {
            check_wc(&w, "a work request")?;
            let (i, slot) = ((w.wr_id >> 32) as usize, w.wr_id as u32);
            if a.op == Op::Read && !a.no_verify {
                verify_slot(h, c, i, slot, w.byte_len, out)?;
            }
            c.lanes[i].done += 1;
            done += 1;
        }
        give_up_if_stuck(a, h, last_progress, done, want, "completion")?;
    }
    out.finish(h, start_cycles, start, want, c.size);
    Ok(())
}

/// The client's latency run: one message at a time on QP 0.
fn client_lat(a: &RdmaPerfArgs, h: &mut SimHost, c: &mut Ctx, out: &mut Outcome) -> Result<()> {
    for _ in 0..a.iters {
        let (c0, t0) = (h.nic.cycles(), Instant::now());
        post_send(a, h, c, 0)?;
        let mut got = None;
        h.pump_until("a completion", secs(a.stall_timeout), |h| {
            let w = h.nic.poll_cq(c.cq_send, 1)?;
            got = w.into_iter().next();
            Ok(got.is_some())
        })?;
        let w = got.expect("waited for");
        check_wc(&w, "a work request")?;
        out.lat_cycles.push(h.nic.cycles() - c0);
        out.lat_us.push(t0.elapsed().as_secs_f64() * 1e6);
        if a.op == Op::Read && !a.no_verify {
            verify_slot(h, c, 0, w.wr_id as u32, w.byte_len, out)?;
        }
        c.lanes[0].done += 1;
    }
    out.messages = u64::from(a.iters);
    out.bytes = out.messages * u64::from(c.size);
    out.cycles = out.lat_cycles.iter().sum();
    out.wall = out.lat_us.iter().sum::<f64>() / 1e6;
    Ok(())
}

/// The server's side of a SEND run: every receive checked, cleared and posted again,
/// until each QP took `iters`.
fn server_recv(a: &RdmaPerfArgs, h: &mut SimHost, c: &mut Ctx, out: &mut Outcome) -> Result<()> {
    let want = u64::from(a.iters) * c.lanes.len() as u64;
    let mut got = 0u64;
    let mut last_progress = Instant::now();
    let start_cycles = h.nic.cycles();
    let start = Instant::now();
    while got < want {
        h.pump()?;
        let wcs = h.nic.poll_cq(c.cq_recv, 256)?;
        if !wcs.is_empty() {
            last_progress = Instant::now();
        }
        for w in wcs {
            check_wc(&w, "a receive")?;
            if w.opcode != WcOpcode::Recv {
                bail!("a receive completed as {:?}", w.opcode);
            }
            let (i, slot) = ((w.wr_id >> 32) as usize, w.wr_id as u32);
            if !a.no_verify {
                verify_slot(h, c, i, slot, w.byte_len, out)?;
            }
            c.lanes[i].done += 1;
            got += 1;
            // keep the window: a receive goes back for each one taken, up to iters
            if c.lanes[i].posted < a.iters {
                post_recv(h, c, i)?;
                c.lanes[i].posted += 1;
            }
        }
        give_up_if_stuck(a, h, last_progress, got, want, "receive")?;
    }
    out.finish(h, start_cycles, start, want, c.size);
    Ok(())
}

/// Fails a run that was interrupted, or saw no `what` (completion, receive) for
/// `--stall-timeout` seconds.
fn give_up_if_stuck(a: &RdmaPerfArgs, h: &mut SimHost, last_progress: Instant, done: u64, want: u64, what: &str) -> Result<()> {
    if super::stopped() {
        bail!("interrupted after {done} of {want} {what}s");
    }
    if last_progress.elapsed() > secs(a.stall_timeout) {
        bail!("no {what} for {:.1} s ({done} of {want} arrived); the engine's counters: {}", a.stall_timeout, rdma_counter_text(h));
    }
    Ok(())
}

/// After the final sync: each offset the client's WRITEs reached holds its pattern,
/// every other byte of the landing area is still zero.
fn server_check_writes(a: &RdmaPerfArgs, h: &mut SimHost, c: &Ctx, out: &mut Outcome) -> Result<()> {
    let offsets = c.offsets_used(a.iters);
    for l in &c.lanes {
        let sent = &l.expect;
        let mut want = vec![0u8; c.land_len as usize];
        for &o in &offsets {
            want[o as usize..o as usize + c.size as usize].copy_from_slice(sent);
        }
        let mut got = vec![0u8; c.land_len as usize];
        h.nic.device_mut().mem_read(l.land, &mut got)?;
        if let Some(k) = got.iter().zip(&want).position(|(g, w)| g != w) {
            let inside = offsets.iter().any(|&o| (o..o + u64::from(c.size)).contains(&(k as u64)));
            bail!(
                "QP {:#x}: byte {k} of the landing area is {:#04x} where {} {:#04x}",
                l.qp.qpn,
                got[k],
                if inside { "the client's pattern has" } else { "no WRITE reaches, so it should still be" },
                want[k]
            );
        }
        out.verified_bytes += offsets.len() as u64 * u64::from(c.size);
        out.verified_messages += offsets.len() as u64;
    }
    out.messages = u64::from(a.iters) * c.lanes.len() as u64;
    out.bytes = out.messages * u64::from(c.size);
    Ok(())
}

pub fn rdma_counter_text(h: &mut SimHost) -> String {
    h.nic.rdma_counters().unwrap_or_default().iter().filter(|(_, v)| *v != 0).map(|(n, v)| format!("{n} {v}")).collect::<Vec<_>>().join(", ")
}

/// The whole command after `ready`.
pub fn run(a: &RdmaPerfArgs, h: &mut SimHost) -> Result<Outcome> {
    if a.lat && a.qps != 1 {
        bail!("--lat runs on one QP (as perftest's latency tests); drop --qps");
    }
    let mut c = setup(a, h)?;
    let retransmit = h.nic.rdma_retransmits().unwrap_or(false);
    let sock = h.add_tcp_socket(64 << 10);
    let link = Link::new(sock, secs(a.exchange_timeout));
    let tcp_peer = if let Some(server) = a.client {
        h.wait_link(secs(a.connect_timeout))?;
        h.tcp_connect(sock, server, a.port)?;
        h.pump_until(&format!("the server at {server}:{} (ARP and the TCP handshake)", a.port), secs(a.connect_timeout), |h| {
            let s = h.tcp(sock);
            if !s.is_open() {
                bail!("the server at {server}:{} refused or reset the connection", a.port);
            }
            Ok(s.may_send())
        })?;
        server
    } else {
        // perftest's server says so before it accepts
        println!("\n************************************\n* Waiting for client to connect... *\n************************************");
        h.tcp(sock).listen(a.port).map_err(|e| anyhow::anyhow!("listening on port {}: {e}", a.port))?;
        h.pump_until(&format!("a client on port {}", a.port), secs(a.accept_timeout), |h| Ok(h.tcp(sock).may_send()))?;
        let ep = h.tcp(sock).remote_endpoint().context("a connected socket has a peer")?;
        match ep.addr {
            smoltcp::wire::IpAddress::Ipv4(v4) => v4,
            #[allow(unreachable_patterns)]
            other => bail!("a client at {other}: RoCEv2 here is IPv4 only"),
        }
    };
    eprintln!("connected to {tcp_peer}:{}", if a.server { h.tcp(sock).remote_endpoint().map_or(0, |e| e.port) } else { a.port });
    let agreed = exchange::open(h, &link, a.server, a.mtu).context("perftest's connection exchange (versions, page size, MTU)")?;
    if u64::from(agreed.cycle_buffer.max(c.size)) > c.land_len {
        bail!("the peer's page size {} needs a landing area larger than {} bytes", agreed.cycle_buffer, c.land_len);
    }
    c.agreed = Some(agreed);
    fill(a, h, &c)?;
    let local = local_infos(&c, h.ip, a.op);
    let peers = exchange::keys(h, &link, a.server, &local, a.op).context("perftest's connection exchange (QP information)")?;
    for (l, p) in c.lanes.iter_mut().zip(&peers) {
        l.peer = Some(*p);
        l.expect = pattern(p.qpn, p.psn, c.size as usize);
    }
    let mtu = connect(h, &mut c, tcp_peer, retransmit)?;
    print_banner(a, &local, &peers, mtu, c.slots.min(a.iters));
    let mut out = Outcome { mtu, ..Outcome::default() };
    if a.server && a.op == Op::Send {
        for i in 0..c.lanes.len() {
            let n = c.slots.min(a.iters);
            for _ in 0..n {
                post_recv(h, &mut c, i)?;
            }
            c.lanes[i].posted = n;
        }
    }
    // both sides ready (the server's receives posted) before the first message
    exchange::hand_shake(h, &link, a.server, &local[0], "the hand-shake before the run").context("perftest's connection exchange")?;
    match (a.server, a.op) {
        (false, _) if a.lat => client_lat(a, h, &mut c, &mut out)?,
        (false, _) => client_bw(a, h, &mut c, &mut out)?,
        (true, Op::Send) => server_recv(a, h, &mut c, &mut out)?,
        (true, _) => {}
    }
    // after the client's last completion its WRITEs have landed
    let peer_report = exchange::finish(h, &link, a.server, a.op, &local[0], out.report(c.size)).context("perftest's closing exchange")?;
    if a.server && a.op == Op::Write && !a.no_verify {
        server_check_writes(a, h, &c, &mut out)?;
    } else if a.server && a.op == Op::Read {
        out.messages = u64::from(a.iters) * c.lanes.len() as u64;
        out.bytes = out.messages * u64::from(c.size);
    }
    link.close(h, a.server).context("closing the connection")?;
    print_result(a, &out, peer_report);
    Ok(out)
}

fn print_banner(a: &RdmaPerfArgs, local: &[QpInfo], peers: &[QpInfo], mtu: u32, rx_depth: u32) {
    let line = "-".repeat(87);
    println!("{line}");
    println!("{:>width$}", a.op.title(a.lat), width = 20 + a.op.title(a.lat).len());
    println!(" Dual-port       : OFF\t\tDevice         : nic-sim");
    println!(" Number of qps   : {}\t\tTransport type : IB", a.qps);
    println!(" Connection type : RC\t\tUsing SRQ      : OFF");
    if !a.server {
        println!(" TX depth        : {}", a.tx_depth);
    } else if a.op == Op::Send {
        println!(" RX depth        : {rx_depth}");
    }
    println!(" Mtu             : {mtu}[B]");
    println!(" Link type       : Ethernet");
    println!(" GID index       : 0");
    if a.op == Op::Read {
        println!(" Outstand reads  : {OUT_READS}");
    } else {
        println!(" Max inline data : 0[B]");
    }
    println!(" rdma_cm QPs\t : OFF");
    println!(" Data ex. method : Ethernet");
    println!("{line}");
    for (l, p) in local.iter().zip(peers) {
        println!("{}", exchange::describe("local", l, a.op));
        println!("{}", exchange::describe("remote", p, a.op));
    }
    println!("{line}");
}

/// perftest's column header of a bandwidth test (MiB = 2^20 bytes).
const RESULT_FMT: &str = " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]";
const RESULT_FMT_LAT: &str = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";

/// perftest's REPORT_FMT: `" %-7lu    %-10lu       %-7.2lf            %-7.2lf\t\t     %-7.6lf"`.
fn report_line(r: &exchange::BwReport) -> String {
    format!(" {:<7}    {:<10}       {:<7.2}            {:<7.2}\t\t     {:<7.6}", r.size, r.iters, r.bw_peak, r.bw_avg, r.msg_rate)
}

fn print_result(a: &RdmaPerfArgs, o: &Outcome, peer: Option<exchange::BwReport>) {
    let line = "-".repeat(87);
    if a.lat {
        println!("{RESULT_FMT_LAT}");
        if !a.server {
            let mut us: Vec<f64> = o.lat_cycles.iter().map(|&c| target().seconds(c) * 1e6).collect();
            us.sort_by(f64::total_cmp);
            let st = LatStats::of(&us);
            println!(" {:<7} {}          {:<7.2}        {:<7.2}      {:<7.2}  \t       {:<7.2}     \t{:<7.2}\t\t{:<7.2} \t\t{:<7.2}", a.size, a.iters, st.min, st.max, st.typical, st.avg, st.stdev, st.p99, st.p999);
            let mut wall = o.lat_us.clone();
            wall.sort_by(f64::total_cmp);
            let w = LatStats::of(&wall);
            println!("{line}");
            println!(" simulated time at {:.2} MHz (above, the requester's post to its completion); wall clock per message: min {:.0} us, typical {:.0} us, max {:.0} us", target().clock_hz / 1e6, w.min, w.typical, w.max);
        }
    } else {
        println!("{RESULT_FMT}");
        // perftest's WRITE and READ server prints the client's figures; a SEND server its own
        let shown = if a.server && a.op != Op::Send { peer } else { Some(o.report(a.size)) };
        if let Some(r) = shown {
            println!("{}", report_line(&r));
        }
        println!("{line}");
        if !a.server || a.op == Op::Send {
            let (t, bps) = (target(), o.bytes as f64 * 8.0 / o.sim_seconds().max(1e-12));
            println!(
                " simulated time at {:.2} MHz: {} cycles, {:.2} Gb/s ({:.1}% of {} line rate); wall clock: {:.2} s, {:.3} Mb/s",
                t.clock_hz / 1e6,
                o.cycles,
                bps / 1e9,
                bps / t.line_bps * 100.0,
                t.wire,
                o.wall,
                o.bytes as f64 * 8.0 / o.wall.max(1e-9) / 1e6
            );
        }
    }
    if o.verified_messages > 0 {
        println!(" checked: {} bytes in {} messages", o.verified_bytes, o.verified_messages);
    }
    println!("{line}");
}

/// perftest's latency figures over sorted samples.
struct LatStats {
    min: f64,
    max: f64,
    typical: f64,
    avg: f64,
    stdev: f64,
    p99: f64,
    p999: f64,
}

impl LatStats {
    fn of(sorted: &[f64]) -> LatStats {
        let n = sorted.len().max(1);
        let at = |q: f64| sorted.get(((n as f64 * q).ceil() as usize).saturating_sub(1).min(n - 1)).copied().unwrap_or(0.0);
        let avg = sorted.iter().sum::<f64>() / n as f64;
        let var = sorted.iter().map(|x| (x - avg) * (x - avg)).sum::<f64>() / n as f64;
        LatStats { min: at(0.0), max: sorted.last().copied().unwrap_or(0.0), typical: sorted.get(n / 2).copied().unwrap_or(0.0), avg, stdev: var.sqrt(), p99: at(0.99), p999: at(0.999) }
    }
}

/// The `summary` line: key=value tokens a test or script reads (the host's frame
/// counters at each boundary, the NIC's Ethernet and RDMA counters, the run's figures).
pub fn summary_line(role: &str, a: &RdmaPerfArgs, h: &mut SimHost, o: Option<&Outcome>) -> String {
    let c = h.count;
    let mut s = format!(
        "summary role={role} ok={} mac={} op={} size={} iters={} qps={} cycles={} wire_in_frames={} wire_in_bytes={} wire_in_malformed={} wire_out_frames={} wire_out_bytes={} wire_out_refused={} stack_tx_frames={} stack_rx_frames={} udp_echoed={}",
        u8::from(o.is_some()),
        mac_str(h.mac),
        a.op.name(),
        a.size,
        a.iters,
        a.qps,
        h.nic.cycles(),
        c.wire_in_frames,
        c.wire_in_bytes,
        c.wire_in_malformed,
        c.wire_out_frames,
        c.wire_out_bytes,
        c.wire_out_refused,
        c.stack_tx_frames,
        c.stack_rx_frames,
        c.udp_echoed
    );
    if let Ok(st) = h.nic.stats() {
        s += &format!(" nic_tx_frames={} nic_rx_frames={} nic_rx_drops={} nic_rx_filter_drops={}", st.tx_frames, st.rx_frames, st.rx_drops(), st.rx_filter_drops());
    }
    for (n, v) in h.nic.rdma_counters().unwrap_or_default() {
        s += &format!(" rdma_{}={v}", n.to_lowercase());
    }
    if let Some(o) = o {
        s += &format!(" mtu={} messages={} bytes={} run_cycles={} wall={:.3} verified_bytes={} verified_messages={}", o.mtu, o.messages, o.bytes, o.cycles, o.wall, o.verified_bytes, o.verified_messages);
    }
    s
}
