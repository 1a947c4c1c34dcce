//! TX offloads and the TX scheduler through the real driver (docs/tx-offload.md):
//! random offload requests (`txgen`) sent in random scatter-gather splits, the wire
//! compared byte for byte with `TxRequest::expected_wire` (built without the golden
//! model), refusals counted and kept off the wire; and the scheduler's strict priority
//! and deficit round-robin shares, measured on the wire.
//!
//! Also descriptor sequences the driver never makes (context descriptors with EOP, two
//! for a frame, one after data), written by hand.
//!
//! Backends: the ones `NIC_BACKEND` selects ([`Backend::selected`], as every suite).

mod common;

use common::*;
use nic_driver::{NicConfig, TxFrame, TxSegment};
use nic_regmap::{bits, desc, stats, txq, QueueError, QUEUE_STRIDE};
use nic_testbench::fcs;
use nic_testbench::gen::random_cuts;
use nic_testbench::txgen::{random_request, TxGenOptions, TxRequest};
use nic_testbench::txoffload::{self, sent_before_refusal};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// A bus address within the NIC's reach (below 2^DMA_ADDR_BITS) that no region maps.
const UNMAPPED_BUS_ADDR: u64 = 0x0dea_d000_0000;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::cell::RefCell;

/// What the MAC puts on the wire for a frame: padded to 60 bytes, FCS appended.
fn on_wire(f: &[u8]) -> (Vec<u8>, bool) {
    (fcs::with_fcs(&fcs::padded(f)), false)
}

const TX_BUF_LEN: usize = 9216;

/// Random cut points for `len` bytes: 1–4 segments, more when a segment would not fit
/// a TX buffer.
fn cuts<R: Rng>(rng: &mut R, len: usize) -> Vec<usize> {
    let pieces = rng.gen_range(1..=4).max(len.div_ceil(TX_BUF_LEN) + rng.gen_range(0..=2)).min(len.max(1));
    let c = random_cuts(rng, len, pieces);
    let fits = c.iter().chain(std::iter::once(&len)).scan(0, |prev, &c| Some(std::mem::replace(prev, c).abs_diff(c))).all(|s| s <= TX_BUF_LEN);
    if fits {
        c
    } else {
        (1..pieces).map(|i| i * len / pieces).collect()
    }
}

#[derive(Clone, Debug)]
struct Case {
    seed: u64,
    requests: usize,
    report_each: bool,
    full_queue: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (any::<u64>(), 1usize..=12, any::<bool>(), any::<bool>()).prop_map(|(seed, requests, report_each, full_queue)| Case { seed, requests, report_each, full_queue })
}

fn run_case(dev: &mut Box<dyn TestDevice>, c: &Case) -> Result<(), TestCaseError> {
    let opts = TxGenOptions { p_invalid: 0.15, ..TxGenOptions::default() };
    let cfg = NicConfig { tx_queues: if c.full_queue { 8 } else { 1 }, tx_ring_log2: 8, tx_buf_len: TX_BUF_LEN, tx_report_each_descriptor: c.report_each, ..NicConfig::default() };
    let mut nic = open(dev, cfg);
    let tx_queues = nic.layout().tx_queues.min(nic.config().tx_queues);
    nic.set_loopback(false).unwrap();
    nic.set_max_frame_len(opts.max_frame_len as u32).unwrap();
    nic.device_mut().take_tx_frames();
    let before = nic.stats().unwrap();
    let mut rng = StdRng::seed_from_u64(c.seed);
    let q = rng.gen_range(0..tx_queues);
    let requests: Vec<_> = (0..c.requests).map(|_| random_request(&mut rng, &opts)).collect();
    let splits: Vec<Vec<usize>> = requests.iter().map(|r| cuts(&mut rng, r.frame.len())).collect();
    let frames: Vec<TxFrame<'_>> = requests
        .iter()
        .zip(&splits)
        .map(|(r, cuts)| {
            let f = TxFrame::split(&r.frame, cuts);
            // a request without offload goes without a context descriptor, or with an empty one
            if r.offload.is_none() && rng.gen_bool(0.5) {
                f
            } else {
                f.with_offload(r.offload.to_driver())
            }
        })
        .collect();
    for (r, f) in requests.iter().zip(&frames) {
        if let Some(o) = &f.offload {
            prop_assert_eq!(o.context_descriptor(), r.offload.context_descriptor(), "driver and golden model disagree on the context descriptor");
        }
    }

    let mut sent = 0;
    let start = nic.cycles();
    while sent < frames.len() {
        sent += nic.tx_burst_on(q, &frames[sent..]).map_err(|e| TestCaseError::fail(format!("tx_burst: {e}")))?;
        prop_assert!(nic.cycles() - start < 50 * TIMEOUT, "ring never had room: {sent} of {} queued", frames.len());
        nic.device_mut().idle(256);
    }
    nic.tx_flush(50 * TIMEOUT).map_err(|e| TestCaseError::fail(format!("tx_flush: {e}")))?;

    // what each request must put on the wire: its frames, or what leaves before a
    // refusal (docs/tx-offload.md: nothing, but the full segments of a TSO payload over
    // 65,535 bytes found at its 65,536th byte); a TSO request whose header template is
    // split over data descriptors is refused before anything leaves
    let header_split = |r: &TxRequest, cuts: &[usize]| r.offload.tso && cuts.first().is_some_and(|&c| c < usize::from(r.offload.hdr_len));
    let expected: Vec<Vec<Vec<u8>>> = requests
        .iter()
        .zip(&splits)
        .map(|(r, cuts)| {
            if header_split(r, cuts) {
                return Vec::new();
            }
            r.expected_wire().unwrap_or_else(|e| sent_before_refusal(&r.frame, &r.offload, opts.max_frame_len, e))
        })
        .collect();
    let mut want = Vec::new();
    let (mut refused, mut tso_segments, mut bytes) = (0u32, 0u32, 0u32);
    for ((r, frames), cuts) in requests.iter().zip(&expected).zip(&splits) {
        if r.expected_wire().is_err() || header_split(r, cuts) {
            refused += 1;
        }
        if r.offload.tso {
            tso_segments += frames.len() as u32;
        }
        bytes += frames.iter().map(|f| f.len() as u32).sum::<u32>();
        want.extend(frames.iter().map(|f| on_wire(f)));
    }
    let got = take_wire_frames(nic.device_mut(), want.len());
    nic.device_mut().idle(20_000);
    let late = nic.device_mut().take_tx_frames();
    let summary = || {
        requests
            .iter()
            .map(|r| format!("{:?} {} bytes: {:?}", r.kind, r.frame.len(), r.expected_wire().map(|w| w.len())))
            .collect::<Vec<_>>()
            .join("; ")
    };
    prop_assert!(late.is_empty(), "{} frames more than expected on the wire ({} bytes first); requests: {}", late.len(), late[0].0.len(), summary());
    prop_assert_eq!(got.len(), want.len(), "wire frames; requests: {}", summary());
    let mut k = 0;
    for (i, (r, w)) in requests.iter().zip(&expected).enumerate() {
        for (s, f) in w.iter().enumerate() {
            if got[k] != on_wire(f) {
                let diff = nic_testbench::traffic::first_difference(&on_wire(f).0, &got[k].0);
                return Err(TestCaseError::fail(format!(
                    "request {i} ({:?}, {:?}, {} bytes in {} segments), wire frame {s}: got {} bytes (error flag {}), want {}; first difference at {:?}: got {:02x?}, want {:02x?}",
                    r.kind,
                    r.offload,
                    r.frame.len(),
                    splits[i].len() + 1,
                    got[k].0.len(),
                    got[k].1,
                    f.len() + fcs::FCS_LEN,
                    diff,
                    diff.map(|d| &got[k].0[d..(d + 4).min(got[k].0.len())]),
                    diff.map(|d| on_wire(f).0[d..(d + 4).min(f.len())].to_vec()),
                )));
            }
            k += 1;
        }
    }
    let s = nic.stats().unwrap().since(&before);
    prop_assert_eq!(s.tx_offload_errors, refused, "TX_OFFLOAD_ERRORS; {:?}", s);
    prop_assert_eq!(s.tx_tso_segments, tso_segments, "TX_TSO_SEGMENTS; {:?}", s);
    prop_assert_eq!(s.tx_frames, want.len() as u32, "TX_FRAMES; {:?}", s);
    prop_assert_eq!(s.tx_bytes, bytes, "TX_BYTES; {:?}", s);
    prop_assert_eq!(s.tx_errors, 0);
    let st = nic.queue_state(nic_driver::Dir::Tx, q).unwrap();
    prop_assert!(st.active && st.error.is_none(), "queue {} after refusals: {:?}", q, st);
    let faults = nic.device_mut().take_dma_faults();
    prop_assert!(faults.is_empty(), "DMA faults: {:x?}", faults);
    Ok(())
}

/// Random requests (no offload, generic and full checksum offload, TSO, refused ones)
/// through the driver, compared on the wire with what the requests must produce.
/// NIC_PROPTEST_CASES=N overrides the case count.
#[test]
fn random_requests_on_the_wire() {
    let cases = std::env::var("NIC_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(48);
    each_backend(HwSize::Full, |b, dev| {
        let dev = RefCell::new(dev);
        let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
        runner
            .run(&case(), |c| run_case(&mut dev.borrow_mut(), &c))
            .unwrap_or_else(|e| panic!("backend {}: {e}", b.name()));
    });
}

/// Cases `random_requests_on_the_wire` once found failing, run on every backend every
/// time (the random cases differ from run to run).
#[test]
fn random_requests_regressions() {
    let cases = [
        // CI, 2026-11-29, rtl-axi: a generic checksum of TCP/IPv6 behind a VLAN tag
        Case { seed: 12360957153232986565, requests: 8, report_each: false, full_queue: false },
    ];
    each_backend(HwSize::Full, |b, mut dev| {
        for c in &cases {
            run_case(&mut dev, c).unwrap_or_else(|e| panic!("backend {}: {c:?}: {e}", b.name()));
        }
    });
}

// ---- scheduler (docs/tx-offload.md, "Scheduler") ----------------------------------

/// A frame of `len` bytes tagged with its queue (byte 14) and sequence number (15..19).
fn tagged(q: u32, seq: u32, len: usize) -> Vec<u8> {
    let mut f = vec![0u8; len];
    f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 2]);
    f[12..14].copy_from_slice(&[0x88, 0xb5]);
    f[14] = q as u8;
    f[15..19].copy_from_slice(&seq.to_be_bytes());
    f
}

/// (queue, data bytes) of each wire frame, in wire order.
fn wire_queues(wire: &[(Vec<u8>, bool)]) -> Vec<(u32, usize)> {
    wire.iter()
        .map(|(f, e)| {
            assert!(!e && fcs::residue_ok(f), "bad frame on the wire");
            (u32::from(f[14]), f.len() - fcs::FCS_LEN)
        })
        .collect()
}

/// Posts `plan` = (queue, frame lengths) in that order, one burst per queue, and returns
/// (queue, bytes) of every frame as it left.
fn run_schedule(dev: &mut Box<dyn TestDevice>, sched: &[(u32, u16, bool)], plan: &[(u32, Vec<usize>)]) -> Vec<(u32, usize)> {
    let cfg = NicConfig { tx_queues: 8, tx_ring_log2: 9, tx_buf_len: 2048, rx_prefill: false, ..NicConfig::default() };
    let mut nic = open(dev, cfg);
    nic.set_loopback(false).unwrap();
    nic.device_mut().take_tx_frames();
    for &(q, weight, strict) in sched {
        nic.set_tx_schedule(q, weight, strict).unwrap();
    }
    let data: Vec<(u32, Vec<Vec<u8>>)> = plan.iter().map(|(q, lens)| (*q, lens.iter().enumerate().map(|(i, &l)| tagged(*q, i as u32, l)).collect())).collect();
    let total: usize = plan.iter().map(|(_, l)| l.len()).sum();
    for (q, frames) in &data {
        let tx: Vec<TxFrame<'_>> = frames.iter().map(|f| TxFrame::from_segments(vec![TxSegment::Bytes(f)])).collect();
        assert_eq!(nic.tx_burst_on(*q, &tx).unwrap(), tx.len(), "queue {q}: ring too small for the plan");
    }
    let wire = take_wire_frames(nic.device_mut(), total);
    nic.tx_flush(TIMEOUT).unwrap();
    let got = wire_queues(&wire);
    assert_eq!(got.len(), total);
    for (q, frames) in &data {
        let seqs: Vec<u32> = wire.iter().filter(|(f, _)| u32::from(f[14]) == *q).map(|(f, _)| u32::from_be_bytes(f[15..19].try_into().unwrap())).collect();
        assert_eq!(seqs, (0..frames.len() as u32).collect::<Vec<_>>(), "queue {q}: frames out of order");
    }
    got
}

/// Bytes per queue while all of `queues` are backlogged: from the first frame of the
/// queue posted last to the last frame before one of them runs out.
fn backlogged_bytes(got: &[(u32, usize)], queues: &[u32]) -> Vec<usize> {
    let start = queues.iter().map(|q| got.iter().position(|(g, _)| g == q).unwrap()).max().unwrap();
    let end = queues.iter().map(|q| got.iter().rposition(|(g, _)| g == q).unwrap()).min().unwrap();
    queues.iter().map(|q| got[start..end].iter().filter(|(g, _)| g == q).map(|(_, b)| b).sum()).collect()
}

/// Strict-priority queues (posted after two deficit round-robin queues were) send all
/// their frames before the others send more than what had started, round-robin by
/// frame between themselves.
#[test]
fn strict_priority_goes_first() {
    each_backend(HwSize::Full, |_, dev| {
        let sched = [(0, 1514, false), (1, 1514, false), (5, 1514, true), (3, 1514, true)];
        let plan = [(0, vec![1000; 20]), (1, vec![600; 20]), (5, vec![300; 12]), (3, vec![900; 12])];
        let got = run_schedule(dev, &sched, &plan);
        let strict = |q: u32| q == 5 || q == 3;
        let first = got.iter().position(|(q, _)| strict(*q)).unwrap();
        let last = got.iter().rposition(|(q, _)| strict(*q)).unwrap();
        assert!(first <= 3, "{first} frames of the other queues left before the first strict one: {got:?}");
        assert!(got[first..=last].iter().all(|(q, _)| strict(*q)), "a non-strict frame left while a strict queue had frames: {got:?}");
        assert_eq!(last - first + 1, 24);
        // round-robin by frame between the two strict queues once both are posted
        let second = got.iter().position(|(q, _)| *q == 3).unwrap();
        let block: Vec<u32> = got[second..second + 20].iter().map(|(q, _)| *q).collect();
        assert!(block.windows(2).all(|w| w[0] != w[1]), "strict queues not served alternately: {block:?}");
    });
}

/// Deficit round-robin with weights 3:1 gives byte shares 3:1 while both are backlogged.
#[test]
fn drr_weights_share_bytes() {
    each_backend(HwSize::Full, |_, dev| {
        let sched = [(2, 3000, false), (6, 1000, false)];
        let plan = [(2, vec![1000; 120]), (6, vec![1000; 60])];
        let got = run_schedule(dev, &sched, &plan);
        let b = backlogged_bytes(&got, &[2, 6]);
        let ratio = b[0] as f64 / b[1] as f64;
        assert!((2.7..=3.3).contains(&ratio), "bytes {b:?}, ratio {ratio:.2}, want 3: {got:?}");
        assert!(b[1] >= 20_000, "window too short: {b:?}");
    });
}

/// Equal weights share bytes, not frames: 1500-byte frames against 300-byte ones.
#[test]
fn drr_equal_weights_share_bytes_not_frames() {
    each_backend(HwSize::Full, |_, dev| {
        let sched = [(1, 1514, false), (4, 1514, false)];
        let plan = [(1, vec![1500; 40]), (4, vec![300; 200])];
        let got = run_schedule(dev, &sched, &plan);
        let b = backlogged_bytes(&got, &[1, 4]);
        let ratio = b[0] as f64 / b[1] as f64;
        assert!((0.85..=1.18).contains(&ratio), "bytes {b:?}, ratio {ratio:.2}, want 1: {got:?}");
        assert!(b[0] >= 30_000, "window too short: {b:?}");
    });
}

// ---- descriptor sequences the driver never makes, written by hand ----------------

const RING_LOG2: u32 = 4;

/// TX queue q's register window.
fn raw_window(q: u32) -> u32 {
    txq::BASE + QUEUE_STRIDE * (q + 1)
}

/// Starts TX queue 0 on a ring of 16 descriptors; returns the ring's bus address.
fn raw_tx_queue0(dev: &mut Box<dyn TestDevice>) -> u64 {
    raw_tx_queue(dev, 0)
}

/// Starts TX queue `q` on a ring of 16 descriptors; returns the ring's bus address.
fn raw_tx_queue(dev: &mut Box<dyn TestDevice>, q: u32) -> u64 {
    let ring = dev.alloc_dma(16 << RING_LOG2).unwrap().bus_addr;
    let q = raw_window(q);
    dev.write32(q + txq::Q_BASE_LO, ring as u32).unwrap();
    dev.write32(q + txq::Q_BASE_HI, (ring >> 32) as u32).unwrap();
    dev.write32(q + txq::Q_SIZE_LOG2, RING_LOG2).unwrap();
    dev.write32(q + txq::Q_CONTROL, bits::Q_CONTROL_ENABLE).unwrap();
    dev.idle(200);
    ring
}

fn raw_data_desc(dev: &mut Box<dyn TestDevice>, ring: u64, i: u64, bytes: &[u8], flags: u16) {
    // whole 64-byte lines: the AXI4 bridge reads whole 16-byte beats
    let buf = dev.alloc_dma(bytes.len().next_multiple_of(64)).unwrap().bus_addr;
    dev.mem_write(buf, bytes).unwrap();
    let mut d = [0u8; 16];
    d[desc::ADDR..desc::ADDR + 8].copy_from_slice(&buf.to_le_bytes());
    d[desc::LEN..desc::LEN + 2].copy_from_slice(&(bytes.len() as u16).to_le_bytes());
    d[desc::FLAGS..desc::FLAGS + 2].copy_from_slice(&flags.to_le_bytes());
    dev.mem_write(ring + 16 * i, &d).unwrap();
}

fn raw_ctx_desc(dev: &mut Box<dyn TestDevice>, ring: u64, i: u64, o: &txoffload::TxOffload, extra: u16) {
    let mut d = o.context_descriptor();
    let f = u16::from_le_bytes([d[desc::FLAGS], d[desc::FLAGS + 1]]) | extra;
    d[desc::FLAGS..desc::FLAGS + 2].copy_from_slice(&f.to_le_bytes());
    dev.mem_write(ring + 16 * i, &d).unwrap();
}

fn raw_writeback_flags(dev: &mut Box<dyn TestDevice>, ring: u64, i: u64) -> u16 {
    let mut b = [0u8; 2];
    dev.mem_read(ring + 16 * i + desc::FLAGS as u64, &mut b).unwrap();
    u16::from_le_bytes(b)
}

fn raw_set_tail(dev: &mut Box<dyn TestDevice>, tail: u32) {
    dev.write32(raw_window(0) + txq::Q_TAIL, tail).unwrap();
    dev.idle(5_000);
}

fn raw_stat(dev: &mut Box<dyn TestDevice>, s: u32) -> u32 {
    dev.read32(stats::BASE + s).unwrap()
}

/// A context descriptor with EOP, or two for one frame: the frame is refused (ERROR in
/// its write-backs, TX_OFFLOAD_ERRORS), nothing of it is sent, the queue goes on.
#[test]
fn context_with_eop_and_two_contexts_are_refused_and_the_queue_goes_on() {
    each_backend(HwSize::Full, |b, dev| {
        let ring = raw_tx_queue0(dev);
        let frame: Vec<u8> = (0..100u8).collect();
        let generic = txoffload::TxOffload { csum_start: 14, csum_offset: 10, generic_csum: true, ..Default::default() };
        let rs = desc::TX_REPORT_STATUS;
        raw_ctx_desc(dev, ring, 0, &generic, 0);
        raw_data_desc(dev, ring, 1, &frame, desc::TX_EOP | rs);
        raw_ctx_desc(dev, ring, 2, &generic, desc::TX_EOP | rs);
        raw_ctx_desc(dev, ring, 3, &generic, 0);
        raw_ctx_desc(dev, ring, 4, &generic, 0);
        raw_data_desc(dev, ring, 5, &frame[..80], desc::TX_EOP | rs);
        raw_data_desc(dev, ring, 6, &frame[..70], desc::TX_EOP | rs);
        raw_set_tail(dev, 7);

        let wire = dev.take_tx_frames();
        let sent = txoffload::apply(&frame, &generic, 9022).unwrap().remove(0);
        assert_eq!(wire, vec![(fcs::with_fcs(&sent), false), (fcs::with_fcs(&fcs::padded(&frame[..70])), false)], "{b:?}");
        assert_eq!(raw_stat(dev, stats::TX_OFFLOAD_ERRORS), 2, "{b:?}");
        assert_eq!(raw_stat(dev, stats::TX_FRAMES), 2, "{b:?}");
        let error = desc::DONE | desc::TX_ERROR;
        assert_eq!(raw_writeback_flags(dev, ring, 1), desc::DONE | desc::TX_EOP | rs, "{b:?}");
        assert_eq!(raw_writeback_flags(dev, ring, 2) & error, error, "{b:?}: context descriptor with EOP");
        assert_eq!(raw_writeback_flags(dev, ring, 5) & error, error, "{b:?}: two context descriptors");
        assert_eq!(raw_writeback_flags(dev, ring, 6), desc::DONE | desc::TX_EOP | rs, "{b:?}");
        let q = txq::BASE + QUEUE_STRIDE;
        assert_eq!(dev.read32(q + txq::Q_HEAD).unwrap(), 7, "{b:?}");
        assert_eq!(dev.read32(q + txq::Q_STATUS).unwrap(), bits::Q_STATUS_ACTIVE, "{b:?}");
    });
}

/// A context descriptor after data descriptors of its frame is a bad descriptor: the
/// queue stops with MisplacedContext and nothing good of the frame begun leaves.
#[test]
fn context_after_data_stops_the_queue() {
    each_backend(HwSize::Full, |b, dev| {
        let ring = raw_tx_queue0(dev);
        let frame: Vec<u8> = (0..100u8).collect();
        let generic = txoffload::TxOffload { csum_start: 14, csum_offset: 10, generic_csum: true, ..Default::default() };
        raw_data_desc(dev, ring, 0, &frame[..40], 0);
        raw_ctx_desc(dev, ring, 1, &generic, 0);
        raw_data_desc(dev, ring, 2, &frame[40..70], desc::TX_EOP);
        raw_set_tail(dev, 3);
        let wire = dev.take_tx_frames();
        let status = dev.read32(txq::BASE + QUEUE_STRIDE + txq::Q_STATUS).unwrap();
        assert_eq!(status & bits::Q_STATUS_ERROR_CODE_MASK, (QueueError::MisplacedContext as u32) << bits::Q_STATUS_ERROR_CODE_SHIFT, "{b:?}");
        // the frame begun leaves aborted (bad FCS) when some of it was already on its
        // way, or not at all when the queue stopped before its data came back (RTL)
        assert!(wire.len() <= 1 && wire.iter().all(|(f, e)| *e && !fcs::residue_ok(f)), "{b:?}: the frame begun must not leave good: {wire:?}");
        assert_eq!(raw_stat(dev, stats::TX_ERRORS), wire.len() as u32, "{b:?}");
        assert_eq!(raw_stat(dev, stats::TX_FRAMES), 0, "{b:?}");
    });
}

/// A queue stopped by an error, or one whose TAIL holds no whole frame, never blocks the
/// others, strict-priority ones included: queues 0 and 1 (driver) send every frame while
/// strict queue 5 holds half a frame and strict queue 2 stops on an unmapped buffer.
#[test]
fn stopped_and_stalled_queues_do_not_block_the_others() {
    each_backend(HwSize::Full, |b, dev| {
        let cfg = NicConfig { tx_queues: 2, tx_ring_log2: 9, tx_buf_len: 2048, rx_prefill: false, ..NicConfig::default() };
        let mut nic = open(dev, cfg);
        nic.set_loopback(false).unwrap();
        nic.device_mut().take_tx_frames();
        let dev = nic.device_mut();
        for q in [2, 5] {
            dev.write32(raw_window(q) + txq::Q_PRIORITY, 1).unwrap();
        }
        // queue 5: the first descriptor of a frame, without EOP, behind TAIL
        let ring5 = raw_tx_queue(dev, 5);
        raw_data_desc(dev, ring5, 0, &tagged(5, 0, 200), 0);
        dev.write32(raw_window(5) + txq::Q_TAIL, 1).unwrap();
        // queue 2: a whole frame whose buffer is not mapped
        let ring2 = raw_tx_queue(dev, 2);
        let mut d = [0u8; 16];
        d[desc::ADDR..desc::ADDR + 8].copy_from_slice(&UNMAPPED_BUS_ADDR.to_le_bytes());
        d[desc::LEN..desc::LEN + 2].copy_from_slice(&300u16.to_le_bytes());
        d[desc::FLAGS..desc::FLAGS + 2].copy_from_slice(&desc::TX_EOP.to_le_bytes());
        dev.mem_write(ring2, &d).unwrap();
        dev.write32(raw_window(2) + txq::Q_TAIL, 1).unwrap();
        dev.idle(500);
        let frames: Vec<Vec<Vec<u8>>> = (0..2).map(|q| (0..40).map(|i| tagged(q, i, 100 + 37 * i as usize)).collect()).collect();
        for (q, f) in frames.iter().enumerate() {
            let tx: Vec<TxFrame<'_>> = f.iter().map(|f| TxFrame::new(f)).collect();
            assert_eq!(nic.tx_burst_on(q as u32, &tx).unwrap(), tx.len());
        }
        let wire = take_wire_frames(nic.device_mut(), 80);
        nic.tx_flush(TIMEOUT).unwrap();
        let got = wire_queues(&wire);
        assert_eq!(got.len(), 80, "{b:?}: {got:?}");
        assert!(got.iter().all(|(q, _)| *q < 2), "{b:?}: a frame of queue 2 or 5 left: {got:?}");
        let dev = nic.device_mut();
        let status2 = dev.read32(raw_window(2) + txq::Q_STATUS).unwrap();
        assert_eq!(status2 & bits::Q_STATUS_ERROR_CODE_MASK, (QueueError::DataReadFault as u32) << bits::Q_STATUS_ERROR_CODE_SHIFT, "{b:?}");
        assert_eq!(dev.read32(raw_window(5) + txq::Q_STATUS).unwrap(), bits::Q_STATUS_ACTIVE, "{b:?}: queue 5 waits, without error");
        assert_eq!(dev.read32(raw_window(5) + txq::Q_HEAD).unwrap(), 0, "{b:?}");
        dev.take_dma_faults();
    });
}

/// The largest IPv4 TSO request in the most data descriptors a frame may have (64, plus
/// its context descriptor) goes out whole; a TSO request whose header template is split
/// over two descriptors is refused; one descriptor more than 64 stops the queue
/// (`TooManyDescriptors`) and nothing good of that frame leaves.
#[test]
fn descriptors_per_frame_limit() {
    use nic_testbench::rxgen::flow_frame;
    use nic_testbench::txoffload::{as_stack_hands_it, OffloadKind};
    use rand::rngs::StdRng;
    each_backend(HwSize::Full, |b, dev| {
        {
            let cfg = NicConfig { tx_ring_log2: 8, tx_buf_len: 1024, rx_prefill: false, ..NicConfig::default() };
            let mut nic = open(dev, cfg);
            nic.set_loopback(false).unwrap();
            nic.device_mut().take_tx_frames();
            let mut rng = StdRng::seed_from_u64(64);
            let (frame, o) = as_stack_hands_it(&flow_frame(&mut rng, [0x02, 0, 0, 0, 0, 1], 65_535), OffloadKind::Tso, Some(1448));
            let cuts: Vec<usize> = (1..desc::TX_MAX_FRAME_DESCS).map(|k| k * 1024).collect();
            let f = TxFrame::split(&frame, &cuts).with_offload(o.to_driver());
            assert_eq!(f.segments.len(), desc::TX_MAX_FRAME_DESCS);
            assert_eq!(nic.tx_burst(&[f]).unwrap(), 1);
            let want: Vec<(Vec<u8>, bool)> = txoffload::apply(&frame, &o, 9018).unwrap().iter().map(|s| on_wire(s)).collect();
            let got = take_wire_frames(nic.device_mut(), want.len());
            nic.tx_flush(TIMEOUT).unwrap();
            assert!(got == want, "{b:?}: {} segments, want {}", got.len(), want.len());
            // a header template split over two data descriptors is refused, nothing leaves
            let before = nic.stats().unwrap();
            let (small, so) = as_stack_hands_it(&flow_frame(&mut rng, [0x02, 0, 0, 0, 0, 1], 5_000), OffloadKind::Tso, Some(1448));
            let split = TxFrame::split(&small, &[20, 1000, 2000, 3000, 4000]).with_offload(so.to_driver());
            assert_eq!(nic.tx_burst(&[split]).unwrap(), 1);
            nic.tx_flush(TIMEOUT).unwrap();
            nic.device_mut().idle(2_000);
            assert!(nic.device_mut().take_tx_frames().is_empty(), "{b:?}: a TSO request with a split header left");
            assert_eq!(nic.stats().unwrap().since(&before).tx_offload_errors, 1, "{b:?}");
            // one more segment is refused by the driver before it reaches the NIC
            let cuts: Vec<usize> = (1..=desc::TX_MAX_FRAME_DESCS).map(|k| k * 1000).collect();
            assert!(matches!(nic.tx_burst(&[TxFrame::split(&frame, &cuts)]), Err(nic_driver::DriverError::InvalidFrame { .. })));
        }
        // ... and by the NIC when posted anyway
        let ring = dev.alloc_dma(16 * 128).unwrap().bus_addr;
        let w = raw_window(3);
        dev.write32(w + txq::Q_CONTROL, 0).unwrap();
        dev.write32(w + txq::Q_BASE_LO, ring as u32).unwrap();
        dev.write32(w + txq::Q_BASE_HI, (ring >> 32) as u32).unwrap();
        dev.write32(w + txq::Q_SIZE_LOG2, 7).unwrap();
        dev.write32(w + txq::Q_CONTROL, bits::Q_CONTROL_ENABLE).unwrap();
        dev.idle(200);
        dev.take_tx_frames();
        let n = desc::TX_MAX_FRAME_DESCS + 1;
        for i in 0..n {
            raw_data_desc(dev, ring, i as u64, &tagged(3, i as u32, 20), if i + 1 == n { desc::TX_EOP } else { 0 });
        }
        let errors_before = raw_stat(dev, stats::TX_ERRORS);
        dev.write32(w + txq::Q_TAIL, n as u32).unwrap();
        dev.idle(20_000);
        let status = dev.read32(w + txq::Q_STATUS).unwrap();
        assert_eq!(status & bits::Q_STATUS_ERROR_CODE_MASK, (QueueError::TooManyDescriptors as u32) << bits::Q_STATUS_ERROR_CODE_SHIFT, "{b:?}");
        let wire = dev.take_tx_frames();
        assert!(wire.len() <= 1 && wire.iter().all(|(f, e)| *e && !fcs::residue_ok(f)), "{b:?}: {wire:?}");
        assert_eq!(raw_stat(dev, stats::TX_ERRORS) - errors_before, wire.len() as u32, "{b:?}");
    });
}

/// A refused read (unmapped buffer) ends its response early; the beats it never
/// delivered are given back. Four faults in a row on queue 1 (each restarted) and queue 0
/// still sends everything (before the fix every fault kept 15 beats of read credit and
/// the third one stopped all TX).
#[test]
fn repeated_read_faults_keep_the_engine_going() {
    each_backend(HwSize::Full, |b, dev| {
        let cfg = NicConfig { tx_queues: 2, tx_ring_log2: 8, tx_buf_len: 2048, rx_prefill: false, ..NicConfig::default() };
        let mut nic = open(dev, cfg);
        nic.set_loopback(false).unwrap();
        nic.device_mut().take_tx_frames();
        for round in 0..4u32 {
            let bad = TxFrame::from_segments(vec![TxSegment::Raw { bus_addr: UNMAPPED_BUS_ADDR, len: 1500 }]);
            assert_eq!(nic.tx_burst_on(1, &[bad]).unwrap(), 1);
            nic.device_mut().idle(2_000);
            let st = nic.queue_state(nic_driver::Dir::Tx, 1).unwrap();
            assert!(matches!(st.error, Some(nic_driver::DriverError::QueueStopped { code: QueueError::DataReadFault, .. })), "{b:?} round {round}: {st:?}");
            nic.restart_queue(nic_driver::Dir::Tx, 1).unwrap();
            nic.device_mut().take_dma_faults();
            let frames: Vec<Vec<u8>> = (0..20).map(|i| tagged(0, round * 20 + i, 1000)).collect();
            let tx: Vec<TxFrame<'_>> = frames.iter().map(|f| TxFrame::new(f)).collect();
            assert_eq!(nic.tx_burst_on(0, &tx).unwrap(), 20);
            let wire = take_wire_frames(nic.device_mut(), 20);
            nic.tx_flush(TIMEOUT).unwrap();
            let good: Vec<_> = wire.iter().filter(|(f, e)| !*e && fcs::residue_ok(f)).collect();
            assert_eq!(good.len(), 20, "{b:?} round {round}: {} good frames of 20", good.len());
        }
    });
}

/// Each TX queue's completions raise its own interrupt vector (IRQ_STATUS bit q) and
/// advance its own HEAD only.
#[test]
fn each_tx_queue_raises_its_own_vector() {
    each_backend(HwSize::Full, |b, dev| {
        let cfg = NicConfig { tx_queues: 8, tx_ring_log2: 6, tx_buf_len: 2048, rx_prefill: false, ..NicConfig::default() };
        let mut nic = open(dev, cfg);
        nic.set_loopback(false).unwrap();
        for q in [5u32, 0, 7, 2] {
            nic.device_mut().write32(nic_regmap::global::IRQ_STATUS, u32::MAX).unwrap();
            assert_eq!(nic.irq_status().unwrap(), 0);
            let heads: Vec<u32> = (0..8).map(|o| nic.device_mut().read32(raw_window(o) + txq::Q_HEAD).unwrap()).collect();
            let f = tagged(q, 0, 200);
            assert_eq!(nic.tx_burst_on(q, &[TxFrame::new(&f)]).unwrap(), 1);
            let wire = take_wire_frames(nic.device_mut(), 1);
            assert_eq!(wire_queues(&wire), vec![(q, 200)], "{b:?}");
            nic.device_mut().idle(200);
            assert_eq!(nic.irq_status().unwrap(), 1 << q, "{b:?} queue {q}: IRQ_STATUS");
            for o in 0..8u32 {
                let head = nic.device_mut().read32(raw_window(o) + txq::Q_HEAD).unwrap();
                assert_eq!(head, heads[o as usize] + u32::from(o == q), "{b:?}: queue {o}'s HEAD after a frame on queue {q}");
            }
            nic.tx_reap_on(q).unwrap();
        }
    });
}

/// `small` has no offload engine: FEATURES says so (TX_CSUM and TSO clear, set in
/// `full`), the driver refuses a frame with an offload request before posting anything,
/// and a context descriptor written by hand stops the queue with UnsupportedContext
/// after the frame before it has left intact; nothing of the refused frame leaves.
#[test]
fn small_has_no_tx_offload() {
    let offload_bits = bits::FEATURES_TX_CSUM | bits::FEATURES_TSO;
    each_backend(HwSize::Full, |b, dev| {
        let features = dev.read32(nic_regmap::global::FEATURES).unwrap();
        assert_eq!(features & offload_bits, offload_bits, "{b:?}: full has TX offload");
    });
    each_backend(HwSize::Small, |b, dev| {
        let features = dev.read32(nic_regmap::global::FEATURES).unwrap();
        assert_eq!(features & offload_bits, 0, "{b:?}: FEATURES {features:#x}");
        let mut nic = open(dev, NicConfig { tx_ring_log2: 6, tx_buf_len: 2048, rx_prefill: false, ..NicConfig::default() });
        let frame: Vec<u8> = (0..80u8).collect();
        let with_csum = TxFrame::new(&frame).with_offload(nic_driver::TxOffload::generic(14, 16));
        match nic.tx_burst(&[TxFrame::new(&frame), with_csum]) {
            Err(nic_driver::DriverError::InvalidFrame { index: 1, .. }) => {}
            other => panic!("{b:?}: an offload request on a NIC without offload must be refused, got {other:?}"),
        }
        assert_eq!(nic.tx_in_flight(0), 0, "{b:?}: nothing of the burst may be queued");
    });
    each_backend(HwSize::Small, |b, dev| {
        let ring = raw_tx_queue0(dev);
        let frame: Vec<u8> = (0..100u8).collect();
        let generic = txoffload::TxOffload { csum_start: 14, csum_offset: 10, generic_csum: true, ..Default::default() };
        raw_data_desc(dev, ring, 0, &frame[..64], desc::TX_EOP | desc::TX_REPORT_STATUS);
        raw_set_tail(dev, 1);
        assert_eq!(dev.take_tx_frames(), vec![on_wire(&frame[..64])], "{b:?}: a frame without a context descriptor leaves");
        raw_ctx_desc(dev, ring, 1, &generic, 0);
        raw_data_desc(dev, ring, 2, &frame, desc::TX_EOP | desc::TX_REPORT_STATUS);
        raw_set_tail(dev, 3);
        assert_eq!(dev.take_tx_frames(), vec![], "{b:?}: nothing of the frame with the context descriptor leaves");
        let q = raw_window(0);
        let status = dev.read32(q + txq::Q_STATUS).unwrap();
        assert_eq!(status & bits::Q_STATUS_ERROR_CODE_MASK, (QueueError::UnsupportedContext as u32) << bits::Q_STATUS_ERROR_CODE_SHIFT, "{b:?}");
        assert_eq!(dev.read32(q + txq::Q_HEAD).unwrap(), 1, "{b:?}: HEAD stops at the context descriptor");
        assert_eq!(raw_writeback_flags(dev, ring, 0), desc::DONE | desc::TX_EOP | desc::TX_REPORT_STATUS, "{b:?}");
        assert_eq!(raw_stat(dev, stats::TX_FRAMES), 1, "{b:?}");
        assert_eq!(raw_stat(dev, stats::TX_ERRORS), 0, "{b:?}");
    });
}

/// A TSO payload over 65,535 bytes whose MSS divides 65,535 (51 x 1,285): the segments
/// sent before the refusal end exactly at the limit, and the last of them is a middle
/// segment like the others, without PSH or FIN. `random_requests_on_the_wire` found it:
/// this is its case (seed 8938793811032803991, whose second request is that TSO), which
/// the golden model got wrong (`sent_before_refusal`).
#[test]
fn tso_over_64k_with_an_mss_dividing_65535() {
    each_backend(HwSize::Full, |b, dev| {
        run_case(dev, &Case { seed: 8938793811032803991, requests: 2, report_each: false, full_queue: false }).unwrap_or_else(|e| panic!("backend {}: {e}", b.name()));
    });
}
