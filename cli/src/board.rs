//! The NIC on a board driven over its UART, by the same driver as everywhere.
//!
//! ECPIX-5 (`--board ecpix5`, the default):
//! * `nic sim board`: the board simulated at its pins (`nic_sim::board::BoardSim`: the
//!   Verilated board layer, the PHY and the host UART modelled); frames go from the PHY
//!   model through RGMII into the NIC and the driver, and from the driver out to the PHY
//!   model, every byte and FCS checked;
//! * `nic board --port /dev/ttyUSB1`: a real board; identifies it, walks the register
//!   blocks, brings the queues up, sends broadcast frames out of the RJ45 port and
//!   reports what the NIC counted (received frames come from whatever the link carries).
//!
//! iCE40-HX8K breakout (`--board ice40`): the host link carries registers and DMA, the
//! driver's memory serves the NIC (`nic_driver::host_link::LinkDevice`), and the wire is
//! looped back on the board, so both commands send frames and check that each comes back
//! byte for byte: `nic sim board --board ice40` on the Verilated `ice40_core`
//! (`nic_sim::ice40::Ice40Sim`), `nic board --board ice40 --port ...` on the board.

use anyhow::{bail, Context, Result};
use clap::Args;
use nic_driver::host_link::LinkDevice;
use nic_driver::serial_device::{ByteLink, SerialDevice, TtyLink};
use nic_driver::{Device, Nic, NicConfig, TxFrame};
use nic_sim::board::{BoardClocks, BoardSim};
use nic_testbench::fcs;
use nic_testbench::gen::FrameGen;
use std::path::PathBuf;

/// The boards `nic board` and `nic sim board` drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BoardKind {
    /// LambdaConcept ECPIX-5: RGMII PHY, host memory on the board.
    Ecpix5,
    /// Lattice iCE40-HX8K Breakout Board: registers and DMA over the UART, wire looped.
    Ice40,
}

#[derive(Args)]
pub struct SimBoardArgs {
    #[arg(long, value_enum, default_value_t = BoardKind::Ecpix5)]
    board: BoardKind,
    /// Frames each way.
    #[arg(long, default_value_t = 8)]
    frames: usize,
    /// Frame sizes MIN..MAX (without FCS).
    #[arg(long, default_value = "60..600", value_parser = crate::parse_size_range)]
    size: std::ops::RangeInclusive<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// FST waveform of the board's pins and everything inside (ECPIX-5 only; a build with
    /// NIC_SIM_WAVES=all, `make waves`: a plain build's board model is untraced).
    #[arg(long)]
    wave: Option<PathBuf>,
}

#[derive(Args)]
pub struct BoardArgs {
    #[arg(long, value_enum, default_value_t = BoardKind::Ecpix5)]
    board: BoardKind,
    /// The board's UART (the FT2232H's second port).
    #[arg(long)]
    port: PathBuf,
    /// The core clock the bitstream was built with (its report.json `freq_mhz`).
    #[arg(long)]
    core_mhz: f64,
    /// Frames to send (broadcast; on the iCE40 board each comes back and is checked).
    #[arg(long, default_value_t = 16)]
    frames: usize,
}

/// Brings the NIC up over the iCE40 board's host link.
fn bring_up_link<L: ByteLink>(link: L) -> Result<Nic<LinkDevice<L>>> {
    let dev = LinkDevice::open(link).map_err(|e| anyhow::anyhow!("the board's host link did not identify: {e}"))?;
    println!("host link: NICL protocol 1; DMA memory in this process");
    let nic = Nic::open_with(dev, board_config()).map_err(|e| anyhow::anyhow!("driver open over the host link: {e}"))?;
    let l = nic.layout();
    println!("NIC: {} register blocks, {} TX / {} RX queues", l.chain.len(), l.tx_queues, l.rx_queues);
    Ok(nic)
}

/// Sends `frames` through the NIC of the iCE40 board, whose wire is looped, and checks
/// that each comes back byte for byte (padded to 60 as the MAC pads), in order.
fn loop_frames<L: ByteLink>(nic: &mut Nic<LinkDevice<L>>, frames: &[Vec<u8>], timeout_cycles: u64) -> Result<()> {
    let mut sent = 0;
    let mut got: Vec<Vec<u8>> = Vec::new();
    while got.len() < frames.len() {
        if sent < frames.len() {
            let burst: Vec<TxFrame> = frames[sent..].iter().map(|f| TxFrame::new(f)).collect();
            sent += nic.tx_burst(&burst).map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        let before = got.len();
        got.extend(nic.rx_collect(sent - got.len(), timeout_cycles).map_err(|e| anyhow::anyhow!("{e}"))?.into_iter().map(|f| f.data));
        nic.tx_reap().map_err(|e| anyhow::anyhow!("{e}"))?;
        if got.len() == before {
            bail!("{} of {} frames came back through the looped wire", got.len(), frames.len());
        }
    }
    for (i, (g, w)) in got.iter().zip(frames).enumerate() {
        if *g != fcs::padded(w) {
            bail!("frame {i} came back different ({} bytes received, {} sent)", g.len(), w.len());
        }
    }
    let faults = nic.device_mut().take_dma_faults();
    if !faults.is_empty() {
        bail!("DMA faults: {faults:?}");
    }
    Ok(())
}

fn run_sim_ice40(a: &SimBoardArgs) -> Result<()> {
    if a.wave.is_some() {
        bail!("--wave: the iCE40 board model is not traced (use --board ecpix5)");
    }
    let mut sim = nic_sim::ice40::Ice40Sim::new();
    sim.step_cycles(300);
    let mut nic = bring_up_link(sim)?;
    let start = nic.device().cycles();
    let mut g = FrameGen::new(a.seed);
    let frames: Vec<Vec<u8>> = (0..a.frames).map(|_| g.frame_in(a.size.clone())).collect();
    loop_frames(&mut nic, &frames, 4_000_000)?;
    let cycles = nic.device().cycles() - start;
    let dev = nic.device();
    println!(
        "loop: {} frames driver -> host link -> NIC -> looped wire -> NIC -> host link -> driver, byte for byte; {} DMA reads and {} write beats over the link",
        frames.len(),
        dev.reads_served,
        dev.beats_written
    );
    let s = nic.stats().map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("NIC counters: rx_frames {} tx_frames {}; {} core cycles of traffic at {} core cycles per UART bit", s.rx_frames, s.tx_frames, cycles, nic_sim::ice40::SIM_ICE40_UART_DIVISOR);
    Ok(())
}

fn run_board_ice40(a: &BoardArgs) -> Result<()> {
    let baud = nic_hw::board::ice40::ICE40_BAUD as u32;
    let link = TtyLink::open(&a.port, baud, a.core_mhz * 1e6).with_context(|| format!("opening {} at {baud} baud", a.port.display()))?;
    let mut nic = bring_up_link(link)?;
    let frame: Vec<u8> = [[0xff; 6].as_slice(), &[0x02, 0, 0, 0, 0, 1], &[0x88, 0xb5], &[0u8; 46]].concat();
    let frames: Vec<Vec<u8>> = (0..a.frames).map(|i| {
        let mut f = frame.clone();
        f[14..18].copy_from_slice(&(i as u32).to_be_bytes());
        f
    }).collect();
    loop_frames(&mut nic, &frames, 10 * (a.core_mhz * 1e6) as u64)?;
    println!("{} broadcast frames (EtherType 0x88b5, local experimental) sent and back through the looped wire, byte for byte", a.frames);
    let s = nic.stats().map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("{s:#?}");
    Ok(())
}

/// Driver set-up that fits the board's 64 KiB of host memory.
fn board_config() -> NicConfig {
    NicConfig { tx_ring_log2: 3, rx_ring_log2: 3, tx_buf_len: 2048, rx_buf_len: 2048, enable_timeout_cycles: 2_000_000, ..NicConfig::default() }
}

fn bring_up<L: ByteLink>(link: L) -> Result<Nic<SerialDevice<L>>> {
    let dev = SerialDevice::open(link).context("the board's UART bridge did not identify")?;
    println!("bridge: NICB protocol 1, host memory {} KiB", dev.mem_size() / 1024);
    let nic = Nic::open_with(dev, board_config()).map_err(|e| anyhow::anyhow!("driver open over the UART: {e}"))?;
    let l = nic.layout();
    println!("NIC: {} register blocks, {} TX / {} RX queues", l.chain.len(), l.tx_queues, l.rx_queues);
    Ok(nic)
}

pub fn run_sim(a: SimBoardArgs) -> Result<()> {
    if a.frames == 0 {
        bail!("--frames must be at least 1");
    }
    if a.board == BoardKind::Ice40 {
        return run_sim_ice40(&a);
    }
    let mut sim = BoardSim::new(BoardClocks::default());
    if let Some(w) = &a.wave {
        sim.open_trace(w).map_err(|e| anyhow::anyhow!(e))?;
    }
    if !sim.run_until(1000, |s| s.outputs().eth_rst_n) {
        bail!("the PHY never left reset");
    }
    sim.step_cycles(300);
    let mut nic = bring_up(sim)?;
    let start = nic.device().cycles();
    let mut g = FrameGen::new(a.seed);
    let rx: Vec<Vec<u8>> = (0..a.frames).map(|_| g.frame_in(a.size.clone())).collect();
    for f in &rx {
        nic.device_mut().link_mut().phy.send(&fcs::with_fcs(f), &[]);
    }
    let mut got = Vec::new();
    let mut bar = crate::progress::Progress::new("sim board", Some(2 * rx.len() as u64), "frames");
    while got.len() < rx.len() {
        let want = (rx.len() - got.len()).min(16);
        let burst = nic.rx_collect(want, 2_000_000).map_err(|e| anyhow::anyhow!("{e}"))?;
        if burst.is_empty() {
            bail!("{} of {} frames from the PHY reached the driver", got.len(), rx.len());
        }
        got.extend(burst.into_iter().map(|f| f.data));
        bar.set(got.len() as u64);
    }
    for (i, (g, w)) in got.iter().zip(&rx).enumerate() {
        if g != w {
            bail!("RX frame {i} differs ({} bytes received, {} sent)", g.len(), w.len());
        }
    }
    println!("RX: {} frames PHY -> RGMII -> NIC -> block RAM -> driver, byte for byte", rx.len());
    let tx: Vec<Vec<u8>> = (0..a.frames).map(|_| g.frame_in(a.size.clone())).collect();
    let mut sent = 0;
    while sent < tx.len() {
        let frames: Vec<TxFrame> = tx[sent..].iter().map(|f| TxFrame::new(f)).collect();
        sent += nic.tx_burst(&frames).map_err(|e| anyhow::anyhow!("{e}"))?;
        nic.tx_reap().map_err(|e| anyhow::anyhow!("{e}"))?;
        nic.device_mut().idle(1000);
        bar.set((rx.len() + sent) as u64);
    }
    bar.finish();
    let link = nic.device_mut().link_mut();
    if !link.run_until(4_000_000, |s| s.phy.tx_frames.len() >= tx.len()) {
        bail!("{} of {} frames reached the PHY", link.phy.tx_frames.len(), tx.len());
    }
    for (i, (w, f)) in link.phy.tx_frames.iter().zip(&tx).enumerate() {
        if !w.preamble_ok || w.error || w.bytes != fcs::with_fcs(&fcs::padded(f)) || (i > 0 && w.gap_before < 12) {
            bail!("TX frame {i} on the wire is wrong: preamble ok {}, TX_ER {}, {} bytes, gap {}", w.preamble_ok, w.error, w.bytes.len(), w.gap_before);
        }
    }
    println!("TX: {} frames driver -> block RAM -> NIC -> RGMII -> PHY, FCS, preamble and gaps checked", tx.len());
    let cycles = nic.device().cycles() - start;
    let s = nic.stats().map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("NIC counters: rx_frames {} tx_frames {}; {} core cycles of traffic at {} ps", s.rx_frames, s.tx_frames, cycles, BoardClocks::default().core_ps);
    Ok(())
}

pub fn run_board(a: BoardArgs) -> Result<()> {
    if !(a.core_mhz > 1.0 && a.core_mhz < 1000.0) {
        bail!("--core-mhz {} is not a core clock frequency", a.core_mhz);
    }
    if a.frames == 0 {
        bail!("--frames must be at least 1");
    }
    if a.board == BoardKind::Ice40 {
        return run_board_ice40(&a);
    }
    let baud = nic_hw::board::ecpix5::BOARD_BAUD;
    let link = TtyLink::open(&a.port, baud, a.core_mhz * 1e6).with_context(|| format!("opening {} at {baud} baud", a.port.display()))?;
    let mut nic = bring_up(link)?;
    let frame: Vec<u8> = [[0xff; 6].as_slice(), &[0x02, 0, 0, 0, 0, 1], &[0x88, 0xb5], &[0u8; 46]].concat();
    for _ in 0..a.frames {
        while nic.tx_burst(&[TxFrame::new(&frame)]).map_err(|e| anyhow::anyhow!("{e}"))? == 0 {
            nic.tx_reap().map_err(|e| anyhow::anyhow!("{e}"))?;
        }
    }
    nic.tx_flush(10 * (a.core_mhz * 1e6) as u64).map_err(|e| anyhow::anyhow!("{e}"))?;
    let s = nic.stats().map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("sent {} broadcast frames (EtherType 0x88b5, local experimental)", a.frames);
    println!("{s:#?}");
    let faults = nic.device_mut().take_dma_faults();
    if !faults.is_empty() {
        bail!("the board logged DMA faults: {faults:?}");
    }
    Ok(())
}
