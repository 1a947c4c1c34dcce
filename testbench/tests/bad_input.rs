//! Bad input, each with an asserted outcome (a clear error or a counted drop) and the
//! traffic around it unaffected.

mod common;

use common::*;
use nic_driver::{Device, Dir, DriverError, Moderation, NicConfig, QueueError, TxFrame, TxSegment};
use nic_testbench::fcs;
use nic_testbench::gen::FrameGen;

/// An address the driver never mapped (the host memory model refuses it).
const UNMAPPED: u64 = 0x00de_ad00_0000;

fn assert_stopped(e: DriverError, dir: Dir, code: QueueError) {
    match &e {
        DriverError::QueueStopped { dir: d, queue: 0, code: c } if *d == dir && *c == code => {
            // The message names the direction, the queue and the reason.
            let msg = e.to_string();
            assert!(msg.contains(&format!("{dir} queue 0")) && msg.contains(code.describe()), "message: {msg}");
        }
        other => panic!("expected {dir} queue 0 stopped with {code:?}, got {other:?} ({other})"),
    }
}

/// TX descriptor pointing at an unmapped address: the TX queue stops with
/// DataReadFault, the fault is logged as a read, nothing is written anywhere, the frame
/// before it arrives and RX keeps running; after a restart TX works again.
#[test]
fn tx_unmapped_address_stops_queue() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig::default());
        nic.set_loopback(true).unwrap();
        nic.device_mut().take_dma_faults();
        let mut g = FrameGen::new(1);
        let a = g.frame(300);
        send_all(&mut nic, std::slice::from_ref(&a));
        // the good frame all the way through (TX completion only means it was read)
        let got = receive(&mut nic, 1);
        assert_frames_eq(&got, std::slice::from_ref(&a));
        let before = nic.stats().unwrap();
        let bad = TxFrame::from_segments(vec![TxSegment::Raw { bus_addr: UNMAPPED, len: 256 }]);
        assert_eq!(nic.tx_burst(&[bad]).unwrap(), 1);
        assert_stopped(wait_tx_error(&mut nic), Dir::Tx, QueueError::DataReadFault);

        let faults = nic.device_mut().take_dma_faults();
        assert!(!faults.is_empty(), "no DMA fault logged");
        for f in &faults {
            assert!(!f.write, "a write was attempted: {f:?}");
            assert!(f.addr >= UNMAPPED && f.addr < UNMAPPED + 256, "fault outside the bad buffer: {f:?}");
        }
        let st = nic.queue_state(Dir::Tx, 0).unwrap();
        assert!(!st.active);
        let rx = nic.queue_state(Dir::Rx, 0).unwrap();
        assert!(rx.active && rx.error.is_none(), "RX affected: {rx:?}");
        let s = nic.stats().unwrap().since(&before);
        assert_eq!(s.tx_frames, 0, "the bad frame was sent: {s:?}");
        expect_no_frames(&mut nic);

        // Recovery.
        nic.restart_queue(Dir::Tx, 0).unwrap();
        let b = g.frame(1000);
        send_all(&mut nic, std::slice::from_ref(&b));
        let got = receive(&mut nic, 1);
        assert_frames_eq(&got, std::slice::from_ref(&b));
    });
}

/// RX buffer at an unmapped address: the RX queue stops with WriteFault, the refused
/// writes are logged and fall inside the bad buffer only, TX keeps running; after a
/// restart with real buffers frames arrive intact.
#[test]
fn rx_unmapped_buffer_stops_queue() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig { rx_prefill: false, ..NicConfig::default() });
        nic.set_loopback(true).unwrap();
        nic.device_mut().take_dma_faults();
        nic.rx_post_external(0, UNMAPPED, 2048).unwrap();
        let mut g = FrameGen::new(2);
        let a = g.frame(500);
        send_all(&mut nic, std::slice::from_ref(&a));
        assert_stopped(wait_rx_error(&mut nic), Dir::Rx, QueueError::WriteFault);
        let faults = nic.device_mut().take_dma_faults();
        assert!(!faults.is_empty(), "no DMA fault logged");
        for f in &faults {
            assert!(f.write, "unexpected read fault {f:?}");
            assert!(f.addr >= UNMAPPED && f.addr + f.len <= UNMAPPED + 2048, "write outside the bad buffer: {f:?}");
        }
        let tx = nic.queue_state(Dir::Tx, 0).unwrap();
        assert!(tx.active && tx.error.is_none(), "TX affected: {tx:?}");
        assert_eq!(nic.stats().unwrap().tx_frames, 1);

        nic.restart_queue(Dir::Rx, 0).unwrap();
        nic.rx_refill(0).unwrap();
        let b = g.frame(600);
        send_all(&mut nic, std::slice::from_ref(&b));
        let got = receive(&mut nic, 1);
        assert_frames_eq(&got, std::slice::from_ref(&b));
    });
}

/// TX descriptors whose buffer address has bits at or above DMA_ADDR_BITS (just past
/// the NIC's reach, and a mapped buffer's address with bit 63 set): the queue stops
/// with AddressTooWide before any byte is read (no DMA access at all, not even a
/// refused one), the frame before it arrives, RX keeps running, and a restart recovers.
#[test]
fn tx_address_beyond_dma_reach_stops_queue() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig::default());
        assert_eq!(nic.layout().dma_addr_bits, nic_regmap::DMA_ADDR_BITS);
        nic.set_loopback(true).unwrap();
        let buf = nic.device_mut().alloc_dma(256).unwrap();
        let mut g = FrameGen::new(11);
        for bad_addr in [1u64 << nic_regmap::DMA_ADDR_BITS, buf.bus_addr | 1 << 63] {
            let a = g.frame(300);
            send_all(&mut nic, std::slice::from_ref(&a));
            assert_frames_eq(&receive(&mut nic, 1), std::slice::from_ref(&a));
            nic.device_mut().take_dma_faults();
            let before = nic.stats().unwrap();
            let bad = TxFrame::from_segments(vec![TxSegment::Raw { bus_addr: bad_addr, len: 256 }]);
            assert_eq!(nic.tx_burst(&[bad]).unwrap(), 1);
            assert_stopped(wait_tx_error(&mut nic), Dir::Tx, QueueError::AddressTooWide);
            let faults = nic.device_mut().take_dma_faults();
            assert!(faults.is_empty(), "the NIC reached for {bad_addr:#x}: {faults:?}");
            assert_eq!(nic.stats().unwrap().since(&before).tx_frames, 0);
            let rx = nic.queue_state(Dir::Rx, 0).unwrap();
            assert!(rx.active && rx.error.is_none(), "RX affected: {rx:?}");
            expect_no_frames(&mut nic);
            nic.restart_queue(Dir::Tx, 0).unwrap();
        }
        let b = g.frame(128);
        send_all(&mut nic, std::slice::from_ref(&b));
        assert_frames_eq(&receive(&mut nic, 1), std::slice::from_ref(&b));
    });
}

/// An RX buffer beyond DMA_ADDR_BITS: the queue stops with AddressTooWide, no byte of
/// the frame is written anywhere (no DMA access), the frame counts as dropped for want
/// of a buffer, TX keeps running; after a restart with real buffers frames arrive.
#[test]
fn rx_buffer_beyond_dma_reach_stops_queue() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig { rx_prefill: false, ..NicConfig::default() });
        nic.set_loopback(true).unwrap();
        nic.device_mut().take_dma_faults();
        let before = nic.stats().unwrap();
        nic.rx_post_external(0, 1u64 << nic_regmap::DMA_ADDR_BITS | 0x1000, 2048).unwrap();
        let mut g = FrameGen::new(12);
        let a = g.frame(500);
        send_all(&mut nic, std::slice::from_ref(&a));
        assert_stopped(wait_rx_error(&mut nic), Dir::Rx, QueueError::AddressTooWide);
        nic.device_mut().idle(2_000);
        let faults = nic.device_mut().take_dma_faults();
        assert!(faults.is_empty(), "the NIC reached beyond its DMA reach: {faults:?}");
        let s = nic.stats().unwrap().since(&before);
        assert_eq!((s.rx_frames, s.rx_drop_no_buffer, s.tx_frames), (0, 1, 1), "{s:?}");
        let tx = nic.queue_state(Dir::Tx, 0).unwrap();
        assert!(tx.active && tx.error.is_none(), "TX affected: {tx:?}");

        nic.restart_queue(Dir::Rx, 0).unwrap();
        nic.rx_refill(0).unwrap();
        let b = g.frame(600);
        send_all(&mut nic, std::slice::from_ref(&b));
        assert_frames_eq(&receive(&mut nic, 1), std::slice::from_ref(&b));
    });
}

/// Ring full: `tx_burst` queues only what fits and says so; after reaping the rest go
/// out; nothing is lost or reordered.
#[test]
fn tx_ring_full_queues_fewer() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig { tx_ring_log2: 2, ..NicConfig::default() });
        nic.set_loopback(true).unwrap();
        let mut g = FrameGen::new(3);
        let frames: Vec<Vec<u8>> = (0..10).map(|i| g.frame(100 + i * 50)).collect();
        let tx: Vec<TxFrame<'_>> = frames.iter().map(|f| TxFrame::new(f)).collect();
        let first = nic.tx_burst(&tx).unwrap();
        assert_eq!(first, 4, "a 4-descriptor ring took {first} frames");
        assert_eq!(nic.tx_free(0), 0);
        // Frames of two segments each: a burst that cannot place its first frame queues none.
        // (Cut at a whole 8-byte beat: a build without scatter-gather of arbitrary
        // fragments takes that as it is, where the driver would join other cuts.)
        let two_seg = TxFrame::split(&frames[0], &[48]);
        let mut sent = first;
        let start = nic.cycles();
        while sent < frames.len() {
            sent += nic.tx_burst(&tx[sent..]).unwrap();
            nic.device_mut().idle(32);
            assert!(nic.cycles() - start < TIMEOUT);
        }
        nic.tx_flush(TIMEOUT).unwrap();
        let got = receive(&mut nic, frames.len());
        assert_frames_eq(&got, &frames);
        // Fill the ring with 2-segment frames: the third does not fit.
        let tx2 = vec![two_seg.clone(), two_seg.clone(), two_seg];
        assert_eq!(nic.tx_burst(&tx2).unwrap(), 2);
        nic.tx_flush(TIMEOUT).unwrap();
        let got = receive(&mut nic, 2);
        assert_frames_eq(&got, &[frames[0].clone(), frames[0].clone()]);
    });
}

/// Bad FCS, runts and oversize frames injected between good ones (loopback off): each
/// counted in its drop counter, the good frames before and after delivered intact.
#[test]
fn bad_fcs_runt_oversize_dropped_and_counted() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig::default());
        nic.set_loopback(false).unwrap();
        let max = nic.max_frame_len().unwrap() as usize;
        assert_eq!(max, 9022);
        let before = nic.stats().unwrap();
        let mut g = FrameGen::new(4);
        let good: Vec<Vec<u8>> = (0..6).map(|i| g.frame([60, 1514, 64, 9018, 200, 60][i])).collect();
        let mut junk_rng = FrameGen::new(99);
        let bad_fcs = fcs::with_bad_fcs(&junk_rng.frame(300));
        let runt_44 = fcs::with_fcs(&junk_rng.frame(40));
        let runt_63 = fcs::with_fcs(&junk_rng.frame(59));
        let oversize = fcs::with_fcs(&junk_rng.frame(max - 4 + 1));
        let bad_fcs_short = fcs::with_bad_fcs(&junk_rng.frame(60));

        let w = |f: &Vec<u8>| fcs::with_fcs(f);
        let sequence: Vec<(Vec<u8>, bool)> = vec![
            (w(&good[0]), false),
            (bad_fcs, false),
            (w(&good[1]), false),
            (runt_44, false),
            (w(&good[2]), false),
            (oversize, false),
            (w(&good[3]), false),
            (runt_63, false),
            (bad_fcs_short, false),
            (w(&good[4]), false),
            (w(&good[5]), false),
        ];
        for (f, e) in &sequence {
            nic.device_mut().inject_rx(f, *e);
        }
        let got = receive(&mut nic, good.len());
        assert_frames_eq(&got, &good);
        expect_no_frames(&mut nic);
        let s = nic.stats().unwrap().since(&before);
        assert_eq!(s.rx_frames, good.len() as u32, "{s:?}");
        assert_eq!(s.rx_drop_fcs, 2, "{s:?}");
        assert_eq!(s.rx_drop_runt, 2, "{s:?}");
        assert_eq!(s.rx_drop_oversize, 1, "{s:?}");
        assert_eq!(s.rx_drop_no_buffer + s.rx_drop_truncated + s.rx_drop_phy_error, 0, "{s:?}");
    });
}

/// MAX_FRAME_LEN is honoured at its boundary: a frame of exactly MAX_FRAME_LEN bytes
/// (with FCS) passes, one byte more is oversize.
#[test]
fn max_frame_len_boundary() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig::default());
        nic.set_max_frame_len(1518).unwrap();
        let before = nic.stats().unwrap();
        let mut g = FrameGen::new(5);
        let fit = g.frame(1514);
        nic.device_mut().inject_rx(&fcs::with_fcs(&g.frame(1515)), false);
        nic.device_mut().inject_rx(&fcs::with_fcs(&fit), false);
        let got = receive(&mut nic, 1);
        assert_frames_eq(&got, std::slice::from_ref(&fit));
        let s = nic.stats().unwrap().since(&before);
        assert_eq!(s.rx_drop_oversize, 1, "{s:?}");
    });
}

/// A frame with the PHY error flag (tuser) is dropped however good its FCS looks, and
/// counted in RX_DROP_PHY_ERROR.
#[test]
fn phy_error_frame_dropped() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig::default());
        let before = nic.stats().unwrap();
        let mut g = FrameGen::new(6);
        let (a, b, c) = (g.frame(100), g.frame(100), g.frame(100));
        nic.device_mut().inject_rx(&fcs::with_fcs(&a), false);
        nic.device_mut().inject_rx(&fcs::with_fcs(&b), true);
        nic.device_mut().inject_rx(&fcs::with_fcs(&c), false);
        let got = receive(&mut nic, 2);
        assert_frames_eq(&got, &[a, c]);
        expect_no_frames(&mut nic);
        let s = nic.stats().unwrap().since(&before);
        assert_eq!(s.rx_drop_phy_error, 1, "{s:?}");
        assert_eq!(s.rx_drops(), 1, "{s:?}");
    });
}

/// Zero-length TX descriptor: the queue stops with ZeroLength, nothing is sent, RX is
/// unaffected, and the queue recovers after a restart.
#[test]
fn zero_length_descriptor_stops_queue() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig::default());
        nic.set_loopback(true).unwrap();
        let buf = nic.device_mut().alloc_dma(64).unwrap();
        let mut g = FrameGen::new(7);
        let a = g.frame(128);
        send_all(&mut nic, std::slice::from_ref(&a));
        let before = nic.stats().unwrap();
        let bad = TxFrame::from_segments(vec![TxSegment::Raw { bus_addr: buf.bus_addr, len: 0 }]);
        assert_eq!(nic.tx_burst(&[bad]).unwrap(), 1);
        assert_stopped(wait_tx_error(&mut nic), Dir::Tx, QueueError::ZeroLength);
        assert_eq!(nic.stats().unwrap().since(&before).tx_frames, 0);
        let rx = nic.queue_state(Dir::Rx, 0).unwrap();
        assert!(rx.active && rx.error.is_none(), "RX affected: {rx:?}");
        let got = receive(&mut nic, 1);
        assert_frames_eq(&got, std::slice::from_ref(&a));

        nic.restart_queue(Dir::Tx, 0).unwrap();
        let b = g.frame(128);
        send_all(&mut nic, std::slice::from_ref(&b));
        assert_frames_eq(&receive(&mut nic, 1), std::slice::from_ref(&b));
    });
}

/// Without scatter-gather of arbitrary fragments (`small`, `FEATURES.SCATTER_GATHER`
/// clear), a fragment before a frame's last that is not a multiple of 8 bytes stops the
/// queue with FragmentNotWhole and nothing of the frame leaves; fragments of whole beats
/// (at odd addresses) are joined, and after a restart the driver's own copies of a frame
/// cut anywhere go out whole. `full` joins the odd fragments itself.
#[test]
fn fragments_not_of_whole_beats() {
    for size in [HwSize::Small, HwSize::Full] {
        each_backend(size, |b, dev| {
            let mut nic = open(dev, NicConfig::default());
            nic.set_loopback(true).unwrap();
            let whole_beats_only = nic.layout().features & nic_regmap::bits::FEATURES_SCATTER_GATHER == 0;
            assert_eq!(whole_beats_only, size == HwSize::Small, "{b:?}: FEATURES.SCATTER_GATHER");
            let mut g = FrameGen::new(11);
            let frame = g.frame(300);
            let buf = nic.device_mut().alloc_dma(1024).unwrap();
            // the frame at an odd address, posted as two raw fragments cut at `cut`
            let at = buf.bus_addr + 3;
            nic.device_mut().mem_write(at, &frame).unwrap();
            let raw = |cut: usize| {
                TxFrame::from_segments(vec![
                    TxSegment::Raw { bus_addr: at, len: cut as u16 },
                    TxSegment::Raw { bus_addr: at + cut as u64, len: (frame.len() - cut) as u16 },
                ])
            };
            assert_eq!(nic.tx_burst(&[raw(128)]).unwrap(), 1);
            assert_frames_eq(&receive(&mut nic, 1), std::slice::from_ref(&frame));
            let before = nic.stats().unwrap();
            assert_eq!(nic.tx_burst(&[raw(61)]).unwrap(), 1);
            if whole_beats_only {
                assert_stopped(wait_tx_error(&mut nic), Dir::Tx, QueueError::FragmentNotWhole);
                nic.device_mut().idle(2_000);
                assert_eq!(nic.stats().unwrap().since(&before).tx_frames, 0, "{b:?}: a frame with a bad fragment left");
                expect_no_frames(&mut nic);
                nic.restart_queue(Dir::Tx, 0).unwrap();
            } else {
                assert_frames_eq(&receive(&mut nic, 1), std::slice::from_ref(&frame));
            }
            let f = g.frame(1000);
            assert_eq!(nic.tx_burst(&[TxFrame::split(&f, &[1, 62, 501])]).unwrap(), 1);
            assert_frames_eq(&receive(&mut nic, 1), std::slice::from_ref(&f));
        });
    }
}

/// The driver refuses an empty byte segment itself, before anything reaches the ring.
#[test]
fn driver_rejects_empty_segment() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig::default());
        let f = vec![0u8; 100];
        let frames = [TxFrame::new(&f), TxFrame::from_segments(vec![TxSegment::Bytes(&f), TxSegment::Bytes(&[])])];
        match nic.tx_burst(&frames) {
            Err(DriverError::InvalidFrame { index: 1, .. }) => {}
            other => panic!("expected InvalidFrame for frame 1, got {other:?}"),
        }
        assert_eq!(nic.tx_in_flight(0), 0);
    });
}

/// A TX frame longer than MAX_FRAME_LEN stops the queue with FrameTooLong.
#[test]
fn tx_frame_too_long_stops_queue() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig::default());
        nic.set_loopback(true).unwrap();
        nic.set_max_frame_len(1518).unwrap();
        let mut g = FrameGen::new(8);
        let long = g.frame(1515);
        assert_eq!(nic.tx_burst(&[TxFrame::split(&long, &[700])]).unwrap(), 1);
        assert_stopped(wait_tx_error(&mut nic), Dir::Tx, QueueError::FrameTooLong);
        expect_no_frames(&mut nic);
        nic.restart_queue(Dir::Tx, 0).unwrap();
        let ok = g.frame(1514);
        send_all(&mut nic, std::slice::from_ref(&ok));
        assert_frames_eq(&receive(&mut nic, 1), std::slice::from_ref(&ok));
    });
}

/// RX with no buffers posted: frames are dropped and counted as RX_DROP_NO_BUFFER; once
/// buffers are posted, later frames arrive.
#[test]
fn rx_without_buffers_counts_drops() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig { rx_prefill: false, ..NicConfig::default() });
        nic.set_loopback(true).unwrap();
        let before = nic.stats().unwrap();
        let mut g = FrameGen::new(9);
        let lost: Vec<Vec<u8>> = (0..3).map(|_| g.frame(200)).collect();
        send_all(&mut nic, &lost);
        nic.device_mut().idle(5_000);
        let s = nic.stats().unwrap().since(&before);
        assert_eq!(s.rx_drop_no_buffer, 3, "{s:?}");
        assert_eq!(s.rx_frames, 0, "{s:?}");
        let rx = nic.queue_state(Dir::Rx, 0).unwrap();
        assert!(rx.active && rx.error.is_none(), "RX queue stopped: {rx:?}");

        assert_eq!(nic.rx_refill(0).unwrap(), 256);
        let later: Vec<Vec<u8>> = (0..3).map(|_| g.frame(200)).collect();
        send_all(&mut nic, &later);
        assert_frames_eq(&receive(&mut nic, 3), &later);
        expect_no_frames(&mut nic);
    });
}

/// The RX ring runs dry while frames keep coming: the excess is counted, the rest
/// delivered in order once the driver catches up.
#[test]
fn rx_ring_overrun_counts_drops() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig { rx_ring_log2: 2, ..NicConfig::default() });
        nic.set_loopback(true).unwrap();
        let before = nic.stats().unwrap();
        let mut g = FrameGen::new(10);
        let frames: Vec<Vec<u8>> = (0..10).map(|_| g.frame(100)).collect();
        send_all(&mut nic, &frames);
        nic.device_mut().idle(5_000);
        let got = nic.rx_burst(64).unwrap();
        assert_frames_eq(&got, &frames[..4]);
        let s = nic.stats().unwrap().since(&before);
        assert_eq!(s.rx_drop_no_buffer, 6, "{s:?}");
    });
}

/// Unused DMA memory the test allocated stays untouched by all of the above: the
/// device never writes outside posted buffers.
#[test]
fn untouched_memory_stays_zero() {
    each_backend(HwSize::Small, |_, dev| {
        let canary = dev.alloc_dma(4096).unwrap();
        let mut nic = open(dev, NicConfig::default());
        nic.set_loopback(true).unwrap();
        let mut g = FrameGen::new(11);
        let frames: Vec<Vec<u8>> = (0..20).map(|_| g.frame_in(60..=9018)).collect();
        for f in &frames {
            send_all(&mut nic, std::slice::from_ref(f));
        }
        assert_frames_eq(&receive(&mut nic, frames.len()), &frames);
        let mut buf = vec![0u8; 4096];
        nic.device_mut().mem_read(canary.bus_addr, &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0), "canary region written");
    });
}

/// Interrupt moderation past the registers' widths (Q_IRQ_COUNT 16 bits, Q_IRQ_TIMER 20)
/// is refused by the driver, not cut short by the NIC; the largest values are taken and
/// read back whole (`full`: `small` has no moderation, `interrupt_mode` checks that).
#[test]
fn driver_rejects_moderation_beyond_the_registers() {
    each_backend(HwSize::Full, |_, dev| {
        let mut nic = open(dev, NicConfig::default());
        for m in [Moderation { count: 0x1_0000, timer: 0 }, Moderation { count: 1, timer: 1 << 20 }] {
            match nic.set_irq_moderation(Dir::Rx, 0, m) {
                Err(DriverError::InvalidConfig(msg)) => assert!(msg.contains("65535 / 1048575"), "{msg}"),
                other => panic!("{m:?}: expected InvalidConfig, got {other:?}"),
            }
        }
        nic.set_irq_moderation(Dir::Rx, 0, Moderation { count: 0xffff, timer: 0xf_ffff }).unwrap();
        let reg = |nic: &mut TestNic<'_>, off| {
            let a = nic.layout().queue_reg(Dir::Rx, 0, off);
            nic.device_mut().read32(a).unwrap()
        };
        assert_eq!(reg(&mut nic, nic_regmap::rxq::Q_IRQ_COUNT), 0xffff);
        assert_eq!(reg(&mut nic, nic_regmap::rxq::Q_IRQ_TIMER), 0xf_ffff);
    });
}
