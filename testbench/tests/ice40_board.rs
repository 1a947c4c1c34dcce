//! The iCE40 board core (`ice40_core`: everything of the iCE40 bitstream but the PLL and
//! the reset synchronizer) in Verilator, driven at its UART pins: the real driver on
//! `LinkDevice`, every register access a byte stream through the host link, and every
//! DMA access of the NIC a request over the same link served from the driver's own
//! memory. The board's wire is looped back, so each frame sent comes back.
//!
//! Golden references: frames are compared with what the test sent (padded to 60 bytes,
//! as the MAC pads), `FEATURES` with the golden model's (`RefNicConfig::small`), the DMA
//! faults with the unmapped buffers the test posted (a TX read and an RX write refused
//! by the host's side of the link, each stopping its queue).
//!
//! One simulation is shared by the whole test (a second would only repeat the boot).

mod common;

use nic_driver::host_link::LinkDevice;
use nic_driver::serial_device::ByteLink;
use nic_driver::{Device, Dir, DriverError, IrqMode, Nic, NicConfig, QueueError, TxFrame, TxSegment};
use nic_sim::ice40::Ice40Sim;
use nic_testbench::fcs;
use nic_testbench::gen::FrameGen;
use nic_testbench::refnic::RefNicConfig;

/// Core cycles to wait for frames to cross the link twice (a 1514-byte frame is about
/// 4.5 KB of link traffic, 40 cycles a byte).
const FRAME_TIMEOUT: u64 = 2_000_000;

/// A bus address no region covers.
const UNMAPPED: u64 = 0x00de_ad00_0000;

#[test]
fn ice40_core_through_the_host_link() {
    let mut sim = Ice40Sim::new();
    // the NIC core's own reset work (classifier tables) before the first access
    sim.step_cycles(300);

    // ---- the link alone: an unknown byte is answered with '?' and itself
    sim.send(&[0xa5]).unwrap();
    let answer: Vec<u8> = (0..2).map(|_| sim.recv(10_000).unwrap()).collect();
    assert_eq!(answer, vec![b'?', 0xa5]);
    let mut dev = LinkDevice::open(sim).unwrap_or_else(|e| panic!("the board's host link did not identify: {e}"));
    assert_eq!(dev.overruns().unwrap(), 0);

    // ---- the driver: discovery and bring-up over the link
    let cfg = NicConfig { tx_ring_log2: 3, rx_ring_log2: 3, tx_buf_len: 2048, rx_buf_len: 2048, enable_timeout_cycles: FRAME_TIMEOUT, ..NicConfig::default() };
    let mut nic = Nic::open_with(&mut dev, cfg.clone()).unwrap_or_else(|e| panic!("driver open over the host link: {e}"));
    assert_eq!((nic.layout().tx_queues, nic.layout().rx_queues), (1, 1));
    assert_eq!(nic.layout().features, RefNicConfig::small().features(), "FEATURES of the board's NIC");
    assert!(nic.queue_state(Dir::Rx, 0).unwrap().active);

    // ---- frames out through DMA reads over the link, back through the looped wire,
    // in through DMA writes over the link
    let mut g = FrameGen::new(11);
    let sizes = [42, 60, 61, 64, 100, 333, 1514, 75];
    let sent: Vec<Vec<u8>> = sizes.iter().map(|&n| g.frame(n)).collect();
    let frames: Vec<TxFrame> = sent.iter().map(|f| TxFrame::new(f)).collect();
    assert_eq!(nic.tx_burst(&frames).unwrap(), sent.len());
    let got = nic.rx_collect(sent.len(), FRAME_TIMEOUT).unwrap();
    assert_eq!(got.len(), sent.len(), "frames back through the loop");
    for (i, (f, want)) in got.iter().zip(&sent).enumerate() {
        assert_eq!(f.data, fcs::padded(want), "frame {i} ({} bytes sent)", want.len());
    }
    assert!(nic.wait_tx(FRAME_TIMEOUT).unwrap());
    assert_eq!(nic.tx_reap().unwrap(), sent.len());
    let s = nic.stats().unwrap();
    assert_eq!((s.tx_frames, s.rx_frames), (sent.len() as u32, sent.len() as u32));
    nic.check_queue(Dir::Tx, 0).unwrap();
    nic.check_queue(Dir::Rx, 0).unwrap();
    assert!(nic.device_mut().take_dma_faults().is_empty(), "no DMA fault in normal traffic");

    // ---- a frame whose buffer is not mapped: the host refuses the read, nothing moves,
    // the TX queue stops with DataReadFault and the fault names the buffer
    let bad = TxFrame::from_segments(vec![TxSegment::Raw { bus_addr: UNMAPPED, len: 256 }]);
    assert_eq!(nic.tx_burst(&[bad]).unwrap(), 1);
    let err = common::wait_tx_error_within(&mut nic, FRAME_TIMEOUT);
    assert!(matches!(err, DriverError::QueueStopped { dir: Dir::Tx, queue: 0, code: QueueError::DataReadFault }), "{err:?}");
    assert!(!nic.queue_state(Dir::Tx, 0).unwrap().active);
    let faults = nic.device_mut().take_dma_faults();
    assert!(!faults.is_empty() && faults.iter().all(|f| !f.write && f.addr >= UNMAPPED && f.addr < UNMAPPED + 256), "{faults:?}");
    assert_eq!(nic.stats().unwrap().tx_frames, sent.len() as u32, "the refused frame was not sent");
    let rx = nic.queue_state(Dir::Rx, 0).unwrap();
    assert!(rx.active && rx.error.is_none(), "RX affected: {rx:?}");
    drop(nic);

    // ---- the driver again, in interrupt mode (the link's 'q' messages), with no RX
    // buffer but one that is not mapped: the host refuses the NIC's writes (a write
    // response with error), the RX queue stops with WriteFault and the faults lie in
    // that buffer; after a restart with real buffers a frame arrives and raises the
    // RX vector
    let cfg = NicConfig { irq_mode: IrqMode::Interrupt, rx_prefill: false, ..cfg };
    let mut nic = Nic::open_with(&mut dev, cfg).unwrap_or_else(|e| panic!("driver reopen over the host link: {e}"));
    nic.rx_post_external(0, UNMAPPED, 2048).unwrap();
    let f = g.frame(500);
    assert_eq!(nic.tx_burst(&[TxFrame::new(&f)]).unwrap(), 1);
    let err = common::wait_rx_error_within(&mut nic, FRAME_TIMEOUT);
    assert!(matches!(err, DriverError::QueueStopped { dir: Dir::Rx, queue: 0, code: QueueError::WriteFault }), "{err:?}");
    let faults = nic.device_mut().take_dma_faults();
    assert!(!faults.is_empty() && faults.iter().all(|f| f.write && f.addr >= UNMAPPED && f.addr + f.len <= UNMAPPED + 2048), "{faults:?}");
    nic.restart_queue(Dir::Rx, 0).unwrap();
    nic.rx_refill(0).unwrap();
    let f = g.frame(700);
    assert_eq!(nic.tx_burst(&[TxFrame::new(&f)]).unwrap(), 1);
    assert!(nic.wait_rx(FRAME_TIMEOUT).unwrap(), "no RX interrupt over the link");
    let got = nic.rx_burst(8).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].data, f, "the frame after the restart");
    drop(nic);
    assert_eq!(dev.overruns().unwrap(), 0, "no read response beat was lost");
    let sim = dev.link_mut();
    eprintln!("ice40 board test: {} core cycles, {} UART framing errors", sim.cycles(), sim.uart.framing_errors);
    assert_eq!(sim.uart.framing_errors, 0);
}
