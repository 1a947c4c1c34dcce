//! `nic sim tx`: hand the frames of a pcap to the driver as an OS would (optionally with
//! full checksum offload and TSO requests, docs/tx-offload.md), transmit them through
//! the simulated NIC with loopback off, and write what left the wire to a pcap.
//!
//! The requests are built from the frames' headers (the testbench's parser,
//! [`txoffload::parse_headers`]: VLAN tags, IPv4 with options, IPv6 without extension
//! headers, TCP with options, UDP); frames it does not recognise go without offload.
//! What the wire must carry is predicted with the golden model ([`txoffload::apply`])
//! and compared with what the NIC sent.

use crate::loopback::{open_device, SimArgs};
use crate::report::grouped;
use crate::HwArg;
use anyhow::{bail, Context, Result};
use clap::Args;
use nic_driver::{IrqMode, Nic, NicConfig, TxFrame};
use nic_testbench::pcap::{self, PcapWriter, LINKTYPE_ETHERNET};
use nic_testbench::txoffload::{self, parse_headers};
use nic_testbench::wire::ip::protocol;
use nic_testbench::wire::{ethernet, ipv4, ipv6, vlan, EthernetFrame, Ipv4Packet, Ipv6Packet, VlanTag};
use nic_testbench::{fcs, toeplitz};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SimTxArgs {
    /// Frames to send as the OS hands them to the driver (pcap or pcapng, Ethernet, without
    /// FCS; a TCP frame may be up to 64 KiB when --tso-mss segments it).
    #[arg(long, value_name = "IN.pcap")]
    pcap: PathBuf,
    /// Where to write what left the wire (without FCS, after checking it).
    #[arg(long, value_name = "OUT.pcap")]
    wire: PathBuf,
    /// Full checksum offload for TCP and UDP over IPv4 and IPv6: the NIC computes the
    /// IPv4 header checksum and the TCP/UDP checksum (the frame's fields may hold anything).
    #[arg(long)]
    csum: bool,
    /// TSO for TCP frames whose payload is longer than N bytes: segments of N payload
    /// bytes, with their checksums (other frames are left to --csum).
    #[arg(long, value_name = "N", value_parser = parse_mss)]
    tso_mss: Option<u16>,
    /// TX queues to spread the frames over by flow (addresses and ports), at most what
    /// the configuration has (small: 1, full: 8).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=8))]
    queues: u32,
    #[arg(long, value_enum, default_value_t = HwArg::Full)]
    config: HwArg,
    #[command(flatten)]
    sim: SimArgs,
}

fn parse_mss(s: &str) -> Result<u16, String> {
    match s.trim().parse::<u32>() {
        Ok(0) => Err("an MSS of 0 bytes cannot carry payload (1..=65535)".into()),
        Ok(n) if n <= u32::from(u16::MAX) => Ok(n as u16),
        Ok(n) => Err(format!("{n} does not fit the context descriptor's 16-bit mss (1..=65535)")),
        Err(_) => Err(format!("`{s}` is not a number of bytes")),
    }
}

/// Bytes per TX buffer: frames longer than that are handed over in several segments.
const TX_BUF_LEN: usize = nic_driver::DEFAULT_BUF_LEN;
/// Cycles without any TX progress after which the run is abandoned.
const STALL_CYCLES: u64 = 2_000_000;
/// Cycles the wire must stay quiet after the last completion before the run ends.
const QUIET_CYCLES: u64 = 20_000;

/// What a frame asks of the NIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    None,
    Csum,
    Tso,
}

/// One frame as the driver gets it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handed {
    pub bytes: Vec<u8>,
    pub offload: Option<nic_driver::TxOffload>,
    pub request: Request,
    /// Bytes after the IP packet (Ethernet padding as captured) were dropped, as a stack
    /// never hands them over.
    pub trimmed: bool,
}

/// The frame and request an OS would hand the driver for `frame` with checksum offload
/// (`csum`) and TSO (`tso_mss`) on.
pub fn hand_over(frame: &[u8], csum: bool, tso_mss: Option<u16>) -> Handed {
    let as_is = Handed { bytes: frame.to_vec(), offload: None, request: Request::None, trimmed: false };
    if !csum && tso_mss.is_none() {
        return as_is;
    }
    let Some(h) = parse_headers(frame) else { return as_is };
    let bytes = frame[..h.ip_end].to_vec();
    let trimmed = h.ip_end < frame.len();
    let payload = h.ip_end - h.hdr_len();
    let (l3, l4) = (h.l3 as u16, h.l4 as u16);
    match tso_mss {
        Some(mss) if !h.udp && payload > usize::from(mss) && h.hdr_len() <= txoffload::MAX_TSO_HDR_LEN => Handed {
            bytes,
            offload: Some(nic_driver::TxOffload::tcp_tso(l3, l4, h.hdr_len() as u16, mss, h.ipv6)),
            request: Request::Tso,
            trimmed,
        },
        _ if csum => Handed { bytes, offload: Some(nic_driver::TxOffload::full_csum(l3, l4, h.ipv6, h.udp)), request: Request::Csum, trimmed },
        _ => as_is,
    }
}

/// The golden model's view of a driver request.
fn model_request(o: &nic_driver::TxOffload) -> txoffload::TxOffload {
    txoffload::TxOffload::from_context_descriptor(&o.context_descriptor())
}

/// What the wire must carry for one handed frame (without FCS, padded to 60 bytes) and,
/// for a refused request, why (docs/tx-offload.md "Refused requests").
fn predict(h: &Handed, max_frame_len: usize, offload_limit: usize) -> (Vec<Vec<u8>>, Option<String>) {
    let Some(o) = h.offload.as_ref().map(model_request) else {
        return (vec![fcs::padded(&h.bytes)], None);
    };
    match txoffload::apply(&h.bytes, &o, max_frame_len) {
        Ok(out) if out.iter().any(|f| f.len() > offload_limit) => {
            (Vec::new(), Some(format!("{} over the offload buffer's limit of {offload_limit} bytes", if o.tso { "TSO segment" } else { "checksummed frame" })))
        }
        Ok(out) => (out.iter().map(|f| fcs::padded(f)).collect(), None),
        Err(e) => (txoffload::sent_before_refusal(&h.bytes, &o, max_frame_len, e).iter().map(|f| fcs::padded(f)).collect(), Some(e.to_string())),
    }
}

/// A frame's flow: the Toeplitz hash (default RSS key) of its IP addresses and, for TCP
/// and UDP (not fragments), its ports; of its MAC addresses when it is not IP.
pub fn flow_hash(f: &[u8]) -> u32 {
    let key = &toeplitz::DEFAULT_KEY;
    let l2 = || toeplitz::hash(key, &f[..f.len().min(12)]);
    let Ok(eth) = EthernetFrame::new_checked(f) else { return l2() };
    let mut ethertype = u16::from(eth.ethertype());
    let mut at = ethernet::HEADER_LEN;
    while vlan::is_tpid(ethertype) {
        match VlanTag::new_checked(&f[at..]) {
            Ok(t) => ethertype = t.ethertype().into(),
            Err(_) => return l2(),
        }
        at += vlan::HEADER_LEN;
    }
    let ports = |proto: u8, l4: &[u8]| {
        ((proto == protocol::TCP || proto == protocol::UDP) && l4.len() >= 4).then(|| (u16::from_be_bytes([l4[0], l4[1]]), u16::from_be_bytes([l4[2], l4[3]])))
    };
    match ethertype {
        ipv4::ETHERTYPE => match Ipv4Packet::new_checked(&f[at..]) {
            Ok(p) => {
                let ports = if p.is_fragment() { None } else { ports(p.protocol(), f.get(at + p.header_len()..).unwrap_or(&[])) };
                toeplitz::hash(key, &toeplitz::ipv4_input(p.src_addr(), p.dst_addr(), ports))
            }
            Err(_) => l2(),
        },
        ipv6::ETHERTYPE => match Ipv6Packet::new_checked(&f[at..]) {
            Ok(p) => toeplitz::hash(key, &toeplitz::ipv6_input(p.src_addr(), p.dst_addr(), ports(p.next_header(), f.get(at + ipv6::HEADER_LEN..).unwrap_or(&[])))),
            Err(_) => l2(),
        },
        _ => l2(),
    }
}

/// The queue of a flow. The Toeplitz hash is linear over GF(2): flows that differ in few
/// bits would share few queues, so the hash is mixed (MurmurHash3's finaliser) first.
pub fn queue_of(hash: u32, queues: u32) -> u32 {
    let mut h = hash;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h % queues
}

/// The driver's frame: segments of at most one TX buffer, behind the context descriptor.
pub(crate) fn tx_frame(h: &Handed) -> TxFrame<'_> {
    let cuts: Vec<usize> = (1..).map(|k| k * TX_BUF_LEN).take_while(|&c| c < h.bytes.len()).collect();
    let f = TxFrame::split(&h.bytes, &cuts);
    match h.offload {
        Some(o) => f.with_offload(o),
        None => f,
    }
}

pub fn run_sim(a: SimTxArgs) -> Result<()> {
    let hw_queues = a.config.hw().tx_queues();
    if a.queues > hw_queues {
        bail!("--queues {}: the {} configuration has {hw_queues} TX queue{}", a.queues, a.config.hw(), if hw_queues == 1 { "" } else { "s" });
    }
    if (a.csum || a.tso_mss.is_some()) && !a.config.hw().has_tx_offload() {
        bail!("--csum/--tso-mss: the {} configuration has no TX offload engine (FEATURES.TX_CSUM clear); use --config full", a.config.hw());
    }
    let frames = pcap::read_file(&a.pcap).with_context(|| format!("reading {}", a.pcap.display()))?;
    if frames.is_empty() {
        bail!("{} holds no frames", a.pcap.display());
    }
    // created first, so that an unwritable path fails before the simulation
    let out_file = std::fs::File::create(&a.wire).with_context(|| format!("creating {}", a.wire.display()))?;
    let handed: Vec<Handed> = frames.iter().map(|f| hand_over(f, a.csum, a.tso_mss)).collect();

    let mut dev = open_device(&a.sim, a.config, None)?;
    let cfg = NicConfig { tx_queues: a.queues, tx_ring_log2: 8, tx_buf_len: TX_BUF_LEN, rx_prefill: false, irq_mode: IrqMode::Polling, ..NicConfig::default() };
    let mut nic = Nic::open_with(&mut dev, cfg).context("opening the NIC")?;
    nic.set_loopback(false)?;
    let max_frame_len = nic.max_frame_len()? as usize;
    for (i, h) in handed.iter().enumerate() {
        if h.bytes.is_empty() {
            bail!("frame {i} of {} is empty", a.pcap.display());
        }
        if h.request != Request::Tso && h.bytes.len() + fcs::FCS_LEN > max_frame_len {
            bail!(
                "frame {i} is {} bytes: longer than the NIC's maximum of {} bytes without FCS (MAX_FRAME_LEN {max_frame_len}); only a TSO request may be longer (--tso-mss, TCP only)",
                h.bytes.len(),
                max_frame_len - fcs::FCS_LEN
            );
        }
    }
    let predicted: Vec<(Vec<Vec<u8>>, Option<String>)> = handed.iter().map(|h| predict(h, max_frame_len, a.config.hw().tx_offload_max_frame())).collect();

    // per queue, the frames in pcap order (one flow always on one queue keeps its order)
    let queues = a.queues as usize;
    let mut by_queue: Vec<Vec<TxFrame<'_>>> = vec![Vec::new(); queues];
    for h in &handed {
        by_queue[queue_of(flow_hash(&h.bytes), a.queues) as usize].push(tx_frame(h));
    }
    let per_queue: Vec<usize> = by_queue.iter().map(Vec::len).collect();
    nic.device_mut().take_tx_frames();
    let before = nic.stats()?;
    let start = nic.cycles();
    let mut wire: Vec<(u64, Vec<u8>, bool)> = Vec::new();
    let collect = |nic: &mut Nic<&mut Box<dyn nic_testbench::backend::TestDevice>>, wire: &mut Vec<(u64, Vec<u8>, bool)>| -> bool {
        let now = nic.cycles() - start;
        let got = nic.device_mut().take_tx_frames();
        let any = !got.is_empty();
        wire.extend(got.into_iter().map(|(f, e)| (now, f, e)));
        any
    };
    let mut next = vec![0usize; queues];
    let mut last_progress = nic.cycles();
    let mut bar = crate::progress::Progress::new("sim tx", Some(handed.len() as u64), "frames");
    while (0..queues).any(|q| next[q] < by_queue[q].len()) {
        let mut progressed = false;
        for q in 0..queues {
            if next[q] < by_queue[q].len() {
                let end = (next[q] + 64).min(by_queue[q].len());
                let n = nic.tx_burst_on(q as u32, &by_queue[q][next[q]..end]).with_context(|| format!("queueing frames on TX queue {q}"))?;
                next[q] += n;
                progressed |= n > 0;
            }
        }
        progressed |= collect(&mut nic, &mut wire);
        bar.set(next.iter().sum::<usize>() as u64);
        if progressed {
            last_progress = nic.cycles();
        } else {
            if nic.cycles() - last_progress > STALL_CYCLES {
                bail!("no TX progress for {} cycles ({} frames on the wire so far; queues {:?})", grouped(STALL_CYCLES), wire.len(), (0..a.queues).map(|q| nic.queue_state(nic_driver::Dir::Tx, q)).collect::<Vec<_>>());
            }
            nic.device_mut().idle(256);
        }
    }
    bar.finish();
    nic.tx_flush(STALL_CYCLES).context("waiting for the TX completions")?;
    let mut quiet_since = nic.cycles();
    while nic.cycles() - quiet_since < QUIET_CYCLES {
        nic.device_mut().idle(512);
        if collect(&mut nic, &mut wire) {
            quiet_since = nic.cycles();
        }
    }
    let cycles = nic.cycles() - start;
    let s = nic.stats()?.since(&before);
    let faults = nic.device_mut().take_dma_faults();
    drop(nic);

    // the wire: FCS checked and stripped
    let mut bad = 0usize;
    let mut out = PcapWriter::new(std::io::BufWriter::new(out_file), LINKTYPE_ETHERNET)?;
    let mut sent: Vec<Vec<u8>> = Vec::with_capacity(wire.len());
    let mut last_ts = 0u64;
    for (cycle, f, err) in &wire {
        if *err || !fcs::residue_ok(f) {
            bad += 1;
        }
        let frame = &f[..f.len().saturating_sub(fcs::FCS_LEN)];
        // 6.4 ns per cycle at 156.25 MHz; frames collected together get 1 ns apart
        let ts = (cycle * 32 / 5).max(last_ts + 1);
        last_ts = ts;
        out.write(ts, frame).with_context(|| format!("writing {}", a.wire.display()))?;
        sent.push(frame.to_vec());
    }
    out.into_inner().flush().with_context(|| format!("writing {}", a.wire.display()))?;

    // the golden model: the same frames, whatever the queues' interleaving
    let mut want: Vec<Vec<u8>> = predicted.iter().flat_map(|(w, _)| w.iter().cloned()).collect();
    let refusals: Vec<(usize, &str)> = predicted.iter().enumerate().filter_map(|(i, (_, r))| r.as_deref().map(|r| (i, r))).collect();
    let mut got = sent.clone();
    want.sort();
    got.sort();
    let model_agrees = want == got;

    let count = |r: Request| handed.iter().filter(|h| h.request == r).count() as u64;
    let trimmed = handed.iter().filter(|h| h.trimmed).count();
    println!(
        "frames in:        {} from {} ({} with a checksum request, {} with a TSO request{}, {} as they were); {} TX queue{} (frames per queue: {})",
        grouped(frames.len() as u64),
        a.pcap.display(),
        grouped(count(Request::Csum)),
        grouped(count(Request::Tso)),
        a.tso_mss.map_or(String::new(), |m| format!(" (mss {m})")),
        grouped(count(Request::None)),
        a.queues,
        if a.queues == 1 { "" } else { "s" },
        per_queue.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")
    );
    if trimmed > 0 {
        println!("                  {trimmed} frames had bytes after the IP packet (padding as captured): handed over without them");
    }
    println!("frames out:       {} on the wire, {} of them TSO segments; written to {} without FCS", grouped(sent.len() as u64), grouped(u64::from(s.tx_tso_segments)), a.wire.display());
    println!("offload errors:   {} request{} refused by the NIC (TX_OFFLOAD_ERRORS)", s.tx_offload_errors, if s.tx_offload_errors == 1 { "" } else { "s" });
    for (i, why) in refusals.iter().take(10) {
        println!("                  frame {i}: {why} (golden model)");
    }
    if refusals.len() > 10 {
        println!("                  and {} more", refusals.len() - 10);
    }
    println!(
        "NIC counters:     TX_FRAMES {}, TX_BYTES {}, TX_TSO_SEGMENTS {}, TX_OFFLOAD_ERRORS {}, TX_ERRORS {}; {} cycles",
        grouped(u64::from(s.tx_frames)),
        grouped(u64::from(s.tx_bytes)),
        grouped(u64::from(s.tx_tso_segments)),
        s.tx_offload_errors,
        s.tx_errors,
        grouped(cycles)
    );
    if model_agrees && refusals.len() == s.tx_offload_errors as usize {
        println!("golden model:     agrees: the wire carries exactly the {} frames it predicts", grouped(want.len() as u64));
    } else {
        let msg = format!(
            "DISAGREES: it predicts {} frames and {} refusals, the NIC sent {} frames and refused {}",
            grouped(want.len() as u64),
            refusals.len(),
            grouped(got.len() as u64),
            s.tx_offload_errors
        );
        println!("golden model:     {msg}");
        eprintln!("warning: the golden model (testbench/src/txoffload.rs) {msg}");
    }
    if !faults.is_empty() {
        bail!("the NIC hit {} DMA faults, first {:?}", faults.len(), faults[0]);
    }
    if bad > 0 {
        println!("wire check:       {bad} of {} frames had a bad FCS or the error flag", sent.len());
        bail!("{bad} of {} frames left the wire with a bad FCS or the error flag (all are in {})", sent.len(), a.wire.display());
    }
    println!("wire check:       every FCS good, no frame flagged");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nic_testbench::txoffload::{as_stack_hands_it, OffloadKind};

    /// TCP/IPv4 with a VLAN tag, built by hand with correct checksums by the model.
    fn tcp_frame(payload: usize) -> Vec<u8> {
        use nic_testbench::rxgen::{Fault, L3Spec, L4Spec, RxFrameSpec};
        use nic_testbench::wire::{Ipv4Repr, TcpRepr};
        let ip = Ipv4Repr::new([10, 0, 0, 1].into(), [10, 0, 0, 2].into(), protocol::TCP, 0);
        let tcp = TcpRepr { src_port: 1000, dst_port: 80, seq_number: 7, ack_number: 1, flags: 0x18, window_len: 100, urgent_at: 0, options: vec![1, 1, 1, 1] };
        RxFrameSpec {
            dst: [2, 0, 0, 0, 0, 1],
            src: [2, 0, 0, 0, 0, 2],
            vlans: vec![(0x8100, 5)],
            l3: L3Spec::Ipv4 { ip, l4: L4Spec::Tcp { repr: tcp, payload: vec![0x5a; payload] } },
            trailer: Vec::new(),
            dirty_padding: false,
            min_len: 0,
            fault: Fault::None,
        }
        .build()
    }

    #[test]
    fn requests_as_a_stack_makes_them() {
        let f = tcp_frame(3000);
        let h = hand_over(&f, true, Some(1448));
        let (_, want) = as_stack_hands_it(&f, OffloadKind::Tso, Some(1448));
        assert_eq!(h.request, Request::Tso);
        assert_eq!(model_request(&h.offload.unwrap()), want);
        let h = hand_over(&f, true, Some(3000));
        let (_, want) = as_stack_hands_it(&f, OffloadKind::Full, None);
        assert_eq!((h.request, model_request(&h.offload.unwrap())), (Request::Csum, want));
        assert_eq!(hand_over(&f, false, Some(3000)).request, Request::None);
        assert_eq!(hand_over(&f, false, None).offload, None);
        // padding after the IP packet is dropped when offloading, kept otherwise
        let mut padded = f.clone();
        padded.extend_from_slice(&[0; 6]);
        let h = hand_over(&padded, true, None);
        assert!(h.trimmed && h.bytes == f);
        assert_eq!(hand_over(&padded, false, None).bytes, padded);
        // not TCP/UDP over IP: as it is
        let arp = [vec![0xff; 6], vec![2; 6], vec![0x08, 0x06], vec![0; 46]].concat();
        assert_eq!(hand_over(&arp, true, Some(100)).request, Request::None);
    }

    #[test]
    fn prediction_and_flows() {
        let f = tcp_frame(3000);
        let h = hand_over(&f, true, Some(1000));
        let (w, why) = predict(&h, 9022, 32256);
        assert_eq!((w.len(), why), (3, None));
        let (w, why) = predict(&hand_over(&tcp_frame(4000), true, None), 9022, 3584);
        assert!(w.is_empty() && why.unwrap().contains("offload buffer"));
        // a flow hashes the same whatever its payload; another port, another flow (here)
        assert_eq!(flow_hash(&tcp_frame(1)), flow_hash(&tcp_frame(100)));
        let mut other = tcp_frame(1);
        other[18 + 20] ^= 1;
        assert_ne!(flow_hash(&other), flow_hash(&tcp_frame(1)));
        assert_eq!(parse_mss("1448"), Ok(1448));
        assert!(parse_mss("0").unwrap_err().contains("0 bytes"));
        assert!(parse_mss("70000").is_err());
    }
}
