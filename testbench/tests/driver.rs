//! Driver bring-up against the NIC: block discovery, identification, control registers.

mod common;

use common::*;
use nic_driver::{Dir, Nic, NicConfig, RegisterVerbs};
use nic_regmap::{global, BLOCKS};

/// The chain holds the regmap's blocks, in order, with their IDs and versions; the
/// queue counts match the configuration.
#[test]
fn discovery_walks_the_block_chain() {
    for size in [HwSize::Small, HwSize::Full] {
        each_backend(size, |_, dev| {
            let layout = nic_driver::discovery::discover(&mut **dev).unwrap_or_else(|e| {
                let chain: Vec<String> = (0..4u32)
                    .map(|i| {
                        let base = BLOCKS[i as usize].base;
                        let (id, v, n) = (dev.get_reg32(base).unwrap(), dev.get_reg32(base + 4).unwrap(), dev.get_reg32(base + 8).unwrap());
                        format!("{:#06x}: id {id:#010x} version {v:#x} next {n:#x}", base)
                    })
                    .collect();
                panic!("discovery failed: {e}; headers at the regmap's bases: {chain:#?}")
            });
            let ids: Vec<u32> = layout.chain.iter().map(|b| b.id).collect();
            let want: Vec<u32> = nic_regmap::blocks_present(layout.features).map(|b| b.id).collect();
            assert_eq!(ids, want, "chain {:#x?}", layout.chain);
            for (found, decl) in layout.chain.iter().zip(nic_regmap::blocks_present(layout.features)) {
                assert_eq!(found.base, decl.base, "{}", decl.name);
                assert_eq!(found.version, decl.version, "{}", decl.name);
            }
            match size {
                HwSize::Small => assert_eq!((layout.tx_queues, layout.rx_queues), (1, 1)),
                HwSize::Full => assert!(layout.tx_queues >= 1 && layout.rx_queues >= 1),
            }
        });
    }
}

/// Control registers read back what the driver wrote; reset values are the regmap's.
#[test]
fn control_registers() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = Nic::open_with(dev, NicConfig::default()).unwrap();
        assert_eq!(nic.max_frame_len().unwrap(), nic_regmap::reset_of("global", "MAX_FRAME_LEN"));
        let mac = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55];
        nic.set_mac(mac).unwrap();
        assert_eq!(nic.mac().unwrap(), mac);
        let lo = nic.device_mut().get_reg32(global::MAC_ADDR_LO).unwrap();
        assert_eq!(lo, 0x3322_1102, "byte 0 of the address in bits 7:0");
        nic.set_loopback(true).unwrap();
        assert!(nic.loopback().unwrap());
        nic.set_loopback(false).unwrap();
        assert!(!nic.loopback().unwrap());
        nic.set_max_frame_len(1518).unwrap();
        assert_eq!(nic.max_frame_len().unwrap(), 1518);
        assert!(nic.set_max_frame_len(10).is_err());
        let st = nic.queue_state(Dir::Tx, 0).unwrap();
        assert!(st.active && st.error.is_none());
        let c1 = nic.hw_cycle_count().unwrap();
        nic.device_mut().idle(100);
        let c2 = nic.hw_cycle_count().unwrap();
        assert!(c2.wrapping_sub(c1) >= 100, "CYCLE_COUNT {c1} -> {c2}");
    });
}

/// Every queue of the full configuration can be opened and carries traffic.
#[test]
fn all_queues_of_full_config_open() {
    each_backend(HwSize::Full, |_, dev| {
        let layout = nic_driver::discovery::discover(&mut **dev).unwrap();
        let cfg = NicConfig { tx_queues: layout.tx_queues, rx_queues: layout.rx_queues, tx_ring_log2: 4, rx_ring_log2: 4, ..NicConfig::default() };
        let mut nic = Nic::open_with(dev, cfg).unwrap();
        nic.set_loopback(true).unwrap();
        let mut g = nic_testbench::gen::FrameGen::new(1);
        let mut sent = Vec::new();
        for q in 0..layout.tx_queues {
            let st = nic.queue_state(Dir::Tx, q).unwrap();
            assert!(st.active, "TX queue {q}: {st:?}");
            let f = g.frame(100);
            assert_eq!(nic.tx_burst_on(q, &[nic_driver::TxFrame::new(&f)]).unwrap(), 1);
            nic.tx_flush(TIMEOUT).unwrap();
            sent.push(f);
        }
        // Without RSS every frame lands in RX queue 0.
        let got = receive(&mut nic, sent.len());
        assert_frames_eq(&got, &sent);
    });
}

/// The regmap's contract for `Q_CONTROL`: clearing ENABLE resets HEAD, TAIL and the
/// error state (checked on the registers themselves; the driver also rewrites TAIL).
#[test]
fn disabling_a_queue_resets_head_tail_and_error() {
    use nic_driver::{TxFrame, TxSegment};
    use nic_regmap::txq;
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = Nic::open_with(dev, NicConfig::default()).unwrap();
        nic.set_loopback(true).unwrap();
        let f = vec![0x55u8; 100];
        send_all(&mut nic, std::slice::from_ref(&f));
        let bad = TxFrame::from_segments(vec![TxSegment::Raw { bus_addr: 0x00de_ad00_0000, len: 64 }]);
        nic.tx_burst(&[bad]).unwrap();
        wait_tx_error(&mut nic);
        let before = nic.queue_state(Dir::Tx, 0).unwrap();
        assert_eq!((before.head, before.tail), (1, 2), "{before:?}");
        let ctl = nic.layout().queue_reg(Dir::Tx, 0, txq::Q_CONTROL);
        nic.device_mut().set_reg32(ctl, 0).unwrap();
        let after = nic.queue_state(Dir::Tx, 0).unwrap();
        assert_eq!(after.error, None, "error state survived the disable: {after:?}");
        assert_eq!(after.head, 0, "HEAD survived the disable: {after:?}");
        assert_eq!(after.tail, 0, "TAIL survived the disable: {after:?}");
    });
}

/// Reopening the NIC on the same device (new rings and buffers, the old ones freed)
/// leaves nothing of the old rings in use: frames land in the new buffers and no DMA
/// touches the freed memory.
#[test]
fn reopen_uses_only_the_new_rings() {
    use nic_testbench::gen::FrameGen;
    each_backend(HwSize::Small, |_, dev| {
        let mut g = FrameGen::new(2);
        for round in 0..4 {
            let cfg = NicConfig { tx_ring_log2: 2 + round, rx_ring_log2: 2 + round, ..NicConfig::default() };
            let mut nic = Nic::open_with(&mut *dev, cfg).unwrap();
            nic.set_loopback(true).unwrap();
            let frames: Vec<Vec<u8>> = (0..3).map(|_| g.frame(100)).collect();
            send_all(&mut nic, &frames);
            assert_frames_eq(&receive(&mut nic, frames.len()), &frames);
            let faults = nic.device_mut().take_dma_faults();
            assert!(faults.is_empty(), "round {round}: DMA faults {faults:x?}; this NIC's memory {:x?}", nic.dma_regions());
            let st = nic.stats().unwrap();
            assert_eq!(st.rx_drops(), 0, "round {round}: {st:?}");
        }
    });
}

/// Every read/write register of the map, in every block and every queue window, comes
/// out of reset with its declared value and reads back what was written (all the bits
/// its fields declare). Q_CONTROL and Q_TAIL are left alone: enabling a queue without a
/// ring would start DMA, and a disabled queue holds its TAIL at 0.
#[test]
fn every_rw_register_resets_and_reads_back() {
    use nic_regmap::{Access, QUEUE_STRIDE};
    for size in [HwSize::Small, HwSize::Full] {
        each_backend(size, |_, dev| {
            let layout = nic_driver::discovery::discover(&mut **dev).unwrap();
            let mut checked = 0;
            for b in nic_regmap::blocks_present(layout.features) {
                let queues = match b.name {
                    "txq" => layout.tx_queues,
                    "rxq" => layout.rx_queues,
                    _ => 0,
                };
                // (address, register, reset value, the build has it): a build without RSS
                // has no key, one without interrupt moderation no Q_IRQ_COUNT and
                // Q_IRQ_TIMER, and a build has MAC_FILTER_COUNT exact-match entries; the
                // others read 0 and ignore writes
                let mut regs: Vec<(u32, &nic_regmap::Register, u32, bool)> = Vec::new();
                for r in b.regs {
                    for i in 0..r.count {
                        let present = match (b.name, r.name) {
                            ("rxc", "RSS_KEY") => layout.features & nic_regmap::bits::FEATURES_RSS != 0,
                            ("rxc", "MAC_FILTER_LO" | "MAC_FILTER_HI") => i < layout.mac_filters,
                            _ => true,
                        };
                        let reset = if b.name == "rxc" && r.name == "RSS_KEY" { nic_regmap::rxc::rss_key_reset(i as usize) } else { r.reset };
                        regs.push((b.base + r.at(i), r, if present { reset } else { 0 }, present));
                    }
                }
                let moderated = layout.features & nic_regmap::bits::FEATURES_IRQ_MODERATION != 0;
                for q in 0..queues {
                    regs.extend(b.queue_regs.iter().map(|r| {
                        let present = moderated || !r.name.starts_with("Q_IRQ_");
                        (b.base + QUEUE_STRIDE * (q + 1) + r.offset, r, if present { r.reset } else { 0 }, present)
                    }));
                }
                for (addr, r, reset, present) in regs {
                    if r.access != Access::Rw || r.name == "Q_CONTROL" || r.name == "Q_TAIL" || r.name == "CONTROL" {
                        continue;
                    }
                    let mask = match (present, r.fields.is_empty()) {
                        (false, _) => 0,
                        (true, true) => u32::MAX,
                        (true, false) => r.fields.iter().fold(0, |m, f| m | f.mask()),
                    };
                    assert_eq!(dev.get_reg32(addr).unwrap(), reset, "{}.{} at {addr:#06x} after reset", b.name, r.name);
                    for written in [0xa5a5_5a5a_u32, 0x5a5a_a5a5] {
                        let pattern = written & mask;
                        dev.set_reg32(addr, written).unwrap();
                        let got = dev.get_reg32(addr).unwrap();
                        assert_eq!(got, pattern, "{}.{} at {addr:#06x}: bits outside its fields, and registers the build lacks, read 0", b.name, r.name);
                    }
                    dev.set_reg32(addr, reset).unwrap();
                    checked += 1;
                }
            }
            assert!(checked >= 60, "only {checked} registers checked");
        });
    }
}
