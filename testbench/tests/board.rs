//! The ECPIX-5 board top (`ecpix5_io`: everything of the bitstream but the PLL) in
//! Verilator, driven at its pins: the real driver on `SerialDevice` over the simulated
//! UART pins (every register access and DMA-memory access a byte stream through the
//! board's UART bridge), frames in and out through RGMII DDR signalling from and to a
//! model of the PHY whose receive clock runs 250 ppm off the FPGA's.
//!
//! Golden references: frames are compared with what the test sent, FCSs with
//! `nic_testbench::fcs` (an independent CRC-32), preambles and inter-frame gaps with
//! IEEE 802.3's (7 x 0x55, 0xD5; at least 12 idle byte times).
//!
//! One board simulation is shared by the whole test (a second one would only repeat
//! the boot), so everything runs in one test function, in steps.

use nic_driver::serial::Request;
use nic_driver::serial_device::{SerialDevice, HOST_MEM_BASE};
use nic_driver::{Device, Dir, Nic, NicConfig, TxFrame};
use nic_sim::board::{BoardClocks, BoardSim};
use nic_testbench::fcs;
use nic_testbench::gen::FrameGen;

type Board = SerialDevice<BoardSim>;

/// Core cycles to wait for traffic to cross the board.
const FRAME_TIMEOUT: u64 = 400_000;

fn boot() -> Board {
    let mut sim = BoardSim::new(BoardClocks::default());
    // the PHY leaves reset 2^SIM_PHY_RESET_BITS core cycles after the board reset
    assert!(!sim.outputs().eth_rst_n, "PHY out of reset before the PLL locked");
    assert!(sim.run_until(500, |s| s.outputs().eth_rst_n), "the PHY never left reset");
    // the NIC core's own reset work (classifier tables) before the first access
    sim.step_cycles(300);
    SerialDevice::open(sim).unwrap_or_else(|e| panic!("the board's UART bridge did not identify: {e}"))
}

/// Waits until the PHY model has captured `n` frames in all.
fn wait_wire_frames(nic: &mut Nic<Board>, n: usize) {
    let sim = nic.device_mut().link_mut();
    assert!(sim.run_until(FRAME_TIMEOUT, |s| s.phy.tx_frames.len() >= n), "only {} of {n} frames reached the PHY", sim.phy.tx_frames.len());
}

#[test]
fn board_top_through_uart_and_rgmii() {
    let mut dev = boot();
    assert_eq!(dev.mem_size(), 64 * 1024, "host memory size the bridge reports");

    // ---- the bridge alone: memory round trip, range errors, resync after a stray byte
    let r = nic_driver::Device::alloc_dma(&mut dev, 300).unwrap();
    assert_eq!(r.bus_addr, HOST_MEM_BASE);
    let pattern: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
    nic_driver::Device::mem_write(&mut dev, r.bus_addr + 5, &pattern[5..]).unwrap();
    let mut back = vec![0u8; 300];
    nic_driver::Device::mem_read(&mut dev, r.bus_addr, &mut back).unwrap();
    assert_eq!(&back[..5], &[0; 5], "alloc_dma zeroes");
    assert_eq!(&back[5..], &pattern[5..]);
    match dev.transact(&Request::MemRead { off: 64 * 1024 - 2, len: 4 }).unwrap() {
        nic_driver::serial::Answer::MemRead { status, data } => {
            assert_eq!(status, nic_driver::serial::Status::Range);
            assert!(data.is_empty());
        }
        other => panic!("{other:?}"),
    }
    dev.link_mut().uart.send(&[0xa5]);
    let mut answer = Vec::new();
    for _ in 0..2 {
        answer.push(nic_driver::serial_device::ByteLink::recv(dev.link_mut(), 10_000).unwrap());
    }
    assert_eq!(answer, vec![b'?', 0xa5], "an unknown byte is answered with '?' and itself");
    nic_driver::Device::free_dma(&mut dev, r);

    // ---- the driver: discovery and bring-up over the serial link
    let cfg = NicConfig { tx_ring_log2: 3, rx_ring_log2: 3, tx_buf_len: 2048, rx_buf_len: 2048, enable_timeout_cycles: 400_000, ..NicConfig::default() };
    let mut nic = Nic::open_with(dev, cfg).unwrap_or_else(|e| panic!("driver open over the board's UART: {e}"));
    assert_eq!((nic.layout().tx_queues, nic.layout().rx_queues), (1, 1));
    assert!(nic.queue_state(Dir::Rx, 0).unwrap().active);

    // ---- RX: PHY -> RGMII DDR -> CDC -> NIC -> DMA into block RAM -> driver
    let mut g = FrameGen::new(5);
    let rx: Vec<Vec<u8>> = [60, 61, 64, 100, 333, 1514].iter().map(|&n| g.frame(n)).collect();
    for f in &rx {
        nic.device_mut().link_mut().phy.send(&fcs::with_fcs(f), &[]);
    }
    let got = nic.rx_collect(rx.len(), FRAME_TIMEOUT).unwrap();
    assert_eq!(got.len(), rx.len());
    for (i, (f, want)) in got.iter().zip(&rx).enumerate() {
        assert_eq!(&f.data, want, "RX frame {i} ({} bytes)", want.len());
    }

    // ---- bad frames between good ones: a bad FCS and an RX_ER are dropped and counted,
    // their neighbours arrive intact
    let before = nic.stats().unwrap();
    let good: Vec<Vec<u8>> = (0..3).map(|_| g.frame(80)).collect();
    {
        let phy = &mut nic.device_mut().link_mut().phy;
        phy.send(&fcs::with_fcs(&good[0]), &[]);
        phy.send(&fcs::with_bad_fcs(&g.frame(90)), &[]);
        phy.send(&fcs::with_fcs(&good[1]), &[]);
        phy.send(&fcs::with_fcs(&g.frame(90)), &[40]);
        phy.send(&fcs::with_fcs(&good[2]), &[]);
    }
    let got = nic.rx_collect(3, FRAME_TIMEOUT).unwrap();
    let got: Vec<Vec<u8>> = got.into_iter().map(|f| f.data).collect();
    assert_eq!(got, good, "the good frames around the bad ones");
    let after = nic.stats().unwrap();
    assert_eq!(after.rx_drop_fcs - before.rx_drop_fcs, 1, "bad FCS counted");
    assert_eq!(after.rx_drop_phy_error - before.rx_drop_phy_error, 1, "RX_ER counted");
    assert_eq!(after.rx_frames - before.rx_frames, 3);

    // ---- TX: driver -> block RAM -> NIC -> CDC -> RGMII DDR -> PHY
    let tx: Vec<Vec<u8>> = [42, 60, 61, 200, 1514].iter().map(|&n| g.frame(n)).collect();
    let frames: Vec<TxFrame> = tx.iter().map(|f| TxFrame::new(f)).collect();
    assert_eq!(nic.tx_burst(&frames).unwrap(), tx.len());
    wait_wire_frames(&mut nic, tx.len());
    let wire = nic.device_mut().link().phy.tx_frames.clone();
    for (i, (w, f)) in wire.iter().zip(&tx).enumerate() {
        assert!(w.preamble_ok, "TX frame {i}: preamble/SFD {:02x?}", &w.bytes[..8.min(w.bytes.len())]);
        assert!(!w.error, "TX frame {i}: TX_ER");
        assert_eq!(w.bytes, fcs::with_fcs(&fcs::padded(f)), "TX frame {i} on the wire ({} bytes before padding)", f.len());
        if i > 0 {
            assert!(w.gap_before >= 12, "TX frame {i}: inter-frame gap of {} byte times", w.gap_before);
        }
    }
    assert!(nic.wait_tx(FRAME_TIMEOUT).unwrap());
    assert_eq!(nic.tx_reap().unwrap(), tx.len());
    assert_eq!(nic.stats().unwrap().tx_frames, tx.len() as u32);
    nic.check_queue(Dir::Tx, 0).unwrap();
    nic.check_queue(Dir::Rx, 0).unwrap();
    assert!(nic.device_mut().take_dma_faults().is_empty(), "no DMA fault in normal traffic");
    let sim = nic.device_mut().link_mut();
    eprintln!("board test: {} core cycles, {} UART framing errors, {} wire frames", sim.core_cycles(), sim.uart.framing_errors, sim.phy.tx_frames.len());
    assert_eq!(sim.uart.framing_errors, 0);
}
