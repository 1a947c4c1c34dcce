//! `nic sim rdma --attack KIND`: host A tries to reach host B's memory in a way B's
//! registrations do not allow, through the driver's verbs on two simulated NICs. The run
//! succeeds (exit 0) only when B's NIC refused the access (A's work request completes with
//! REM_ACCESS_ERR) and B's memory is byte-identical to what it was (for `dereg`: to what
//! it was when `dereg_mr` returned).

use crate::loopback::{open_device, SimArgs};
use crate::HwArg;
use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use nic_driver::verbs::{access, Mtu, SendOp, SendWr, Sge, WcStatus};
use nic_driver::Device;
use nic_testbench::rdma_pair::{Pair, PairConfig};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum AttackArg {
    /// A WRITE with an rkey whose tag does not match the registration.
    Rkey,
    /// A WRITE into a region of another protection domain than the QP's.
    Pd,
    /// A WRITE that ends one byte past the end of the region.
    Range,
    /// A WRITE into a region registered for remote read only, and a READ of one
    /// registered for remote write only.
    Access,
    /// The target deregisters the region while a 256 KiB WRITE into it is on the wire.
    Dereg,
}

const BUF: usize = 1 << 19;

/// One attempt: what A's completion said and whether B's memory kept its bytes.
struct Attempt {
    what: &'static str,
    status: WcStatus,
    syndrome: u8,
    unchanged: bool,
}

fn read_all<D: Device>(dev: &mut D, addr: u64, len: usize) -> Result<Vec<u8>> {
    let mut b = vec![0; len];
    dev.mem_read(addr, &mut b)?;
    Ok(b)
}

pub fn run_attack(kind: AttackArg, sim: &SimArgs, config: HwArg, seed: u64) -> Result<()> {
    if config == HwArg::Small {
        bail!("the `small` configuration has no RDMA engine (FEATURES.RDMA clear); use --config full");
    }
    let cfg = PairConfig { mtu: Mtu::M1024, buf_len: BUF, ..PairConfig::default() };
    let mut p = Pair::new(open_device(sim, config, None)?, open_device(sim, config, None)?, cfg).map_err(anyhow::Error::new).context("setting up two hosts")?;
    let mut rng = StdRng::seed_from_u64(seed);
    let pattern_a: Vec<u8> = (0..BUF).map(|_| rng.gen()).collect();
    let pattern_b: Vec<u8> = (0..BUF).map(|_| rng.gen()).collect();
    p.a.nic.device_mut().mem_write(p.a.buf.bus_addr, &pattern_a)?;
    p.b.nic.device_mut().mem_write(p.b.buf.bus_addr, &pattern_b)?;
    let (a_buf, b_buf) = (p.a.buf.bus_addr, p.b.buf.bus_addr);
    let lkey = p.a.mr.lkey;
    let a_addr = p.a.mr.addr;
    // one work request from A on QP 0, its completion, and B's (or for a READ, A's
    // landing place's) memory compared with before
    let attempt = |p: &mut Pair<_, _>, what: &'static str, op: SendOp, len: u32| -> Result<Attempt> {
        let sg = vec![Sge { addr: a_addr, length: len, lkey }];
        p.a.nic.post_send(p.a.qps[0], &[SendWr { wr_id: 1, op, sg_list: sg, signaled: true, solicited: false }])?;
        let got = p.collect(&[(true, p.a.send_cq)], 1, 2_000_000)?;
        p.run(2_000);
        let b_now = read_all(p.b.nic.device_mut(), b_buf, BUF)?;
        let a_now = read_all(p.a.nic.device_mut(), a_buf, BUF)?;
        Ok(Attempt { what, status: got[0].1.status, syndrome: got[0].1.syndrome, unchanged: b_now == pattern_b && a_now == pattern_a })
    };
    let mut attempts = Vec::new();
    match kind {
        AttackArg::Rkey => {
            let op = SendOp::Write { remote_addr: p.b.mr.addr, rkey: p.b.mr.rkey ^ 0x100 };
            attempts.push(attempt(&mut p, "WRITE with a stale rkey tag", op, 4096)?);
        }
        AttackArg::Pd => {
            let pd = p.b.nic.alloc_pd()?;
            let mr = p.b.nic.reg_mr(pd, b_buf, 65536, access::LOCAL_WRITE | access::REMOTE_WRITE | access::REMOTE_READ)?;
            let op = SendOp::Write { remote_addr: mr.addr, rkey: mr.rkey };
            attempts.push(attempt(&mut p, "WRITE into another PD's region", op, 4096)?);
        }
        AttackArg::Range => {
            let mr = p.b.nic.reg_mr(p.b.pd, b_buf + 8192, 65536, access::LOCAL_WRITE | access::REMOTE_WRITE)?;
            let op = SendOp::Write { remote_addr: mr.addr + 65536 - 4095, rkey: mr.rkey };
            attempts.push(attempt(&mut p, "WRITE ending one byte past the region", op, 4096)?);
        }
        AttackArg::Access => {
            let ro = p.b.nic.reg_mr(p.b.pd, b_buf, 65536, access::REMOTE_READ)?;
            attempts.push(attempt(&mut p, "WRITE into a remote-read-only region", SendOp::Write { remote_addr: ro.addr, rkey: ro.rkey }, 4096)?);
            // the requester's QP is in ERR after the first: a second pair for the READ
            let cfg2 = PairConfig { mtu: Mtu::M1024, buf_len: BUF, ..PairConfig::default() };
            let mut q = Pair::new(open_device(sim, config, None)?, open_device(sim, config, None)?, cfg2).map_err(anyhow::Error::new)?;
            q.a.nic.device_mut().mem_write(q.a.buf.bus_addr, &pattern_a)?;
            q.b.nic.device_mut().mem_write(q.b.buf.bus_addr, &pattern_b)?;
            let wo = q.b.nic.reg_mr(q.b.pd, q.b.buf.bus_addr, 65536, access::LOCAL_WRITE | access::REMOTE_WRITE)?;
            let (qa, qb) = (q.a.buf.bus_addr, q.b.buf.bus_addr);
            let sg = vec![Sge { addr: q.a.mr.addr, length: 4096, lkey: q.a.mr.lkey }];
            q.a.nic.post_send(q.a.qps[0], &[SendWr { wr_id: 1, op: SendOp::Read { remote_addr: wo.addr, rkey: wo.rkey }, sg_list: sg, signaled: true, solicited: false }])?;
            let got = q.collect(&[(true, q.a.send_cq)], 1, 2_000_000)?;
            q.run(2_000);
            let unchanged = read_all(q.a.nic.device_mut(), qa, BUF)? == pattern_a && read_all(q.b.nic.device_mut(), qb, BUF)? == pattern_b;
            attempts.push(Attempt { what: "READ of a remote-write-only region", status: got[0].1.status, syndrome: got[0].1.syndrome, unchanged });
        }
        AttackArg::Dereg => {
            let len = 256 << 10;
            let at = 128 << 10;
            let mr = p.b.nic.reg_mr(p.b.pd, b_buf + at as u64, len, access::LOCAL_WRITE | access::REMOTE_WRITE)?;
            let sg = vec![Sge { addr: a_addr, length: len as u32, lkey }];
            let op = SendOp::Write { remote_addr: mr.addr, rkey: mr.rkey };
            p.a.nic.post_send(p.a.qps[0], &[SendWr { wr_id: 1, op, sg_list: sg, signaled: true, solicited: false }])?;
            // the region is deregistered once the WRITE's first packet has landed
            let mut waited = 0;
            while read_all(p.b.nic.device_mut(), b_buf + at as u64, 1024)? != pattern_a[..1024] {
                p.run(200);
                waited += 200;
                if waited > 2_000_000 {
                    bail!("the WRITE's first packet never landed");
                }
            }
            p.b.nic.dereg_mr(mr)?;
            let at_dereg = read_all(p.b.nic.device_mut(), b_buf, BUF)?;
            let got = p.collect(&[(true, p.a.send_cq)], 1, 2_000_000)?;
            p.run(5_000);
            let end = read_all(p.b.nic.device_mut(), b_buf, BUF)?;
            let landed = (0..len).find(|&i| end[at + i] != pattern_a[i]).unwrap_or(len);
            println!("  {landed} of {len} bytes had landed when dereg_mr returned");
            attempts.push(Attempt { what: "WRITE into a region deregistered mid-message", status: got[0].1.status, syndrome: got[0].1.syndrome, unchanged: end == at_dereg });
        }
    }
    let mut refused_all = true;
    for a in &attempts {
        let refused = a.status == WcStatus::RemAccessErr;
        println!("  {}: requester completion {:?} (syndrome {:#04x}); target memory unchanged: {}", a.what, a.status, a.syndrome, if a.unchanged { "yes" } else { "NO" });
        refused_all &= refused && a.unchanged;
    }
    let counters = p.b.nic.rdma_counters()?;
    let text: Vec<String> = counters.iter().filter(|(_, v)| *v != 0).map(|(n, v)| format!("{n} {v}")).collect();
    println!("  target NIC: {}", text.join(", "));
    if !refused_all {
        bail!("the {kind:?} attack was not refused cleanly");
    }
    println!("  refused, memory unchanged: ok");
    Ok(())
}
