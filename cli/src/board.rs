//! The NIC on the ECPIX-5 driven over its UART, by the same driver as everywhere:
//! * `nic sim board`: the board simulated at its pins (`nic_sim::board::BoardSim`: the
//!   Verilated board layer, the PHY and the host UART modelled); frames go from the PHY
//!   model through RGMII into the NIC and the driver, and from the driver out to the PHY
//!   model, every byte and FCS checked;
//! * `nic board --port /dev/ttyUSB1`: a real board; identifies it, walks the register
//!   blocks, brings the queues up, sends broadcast frames out of the RJ45 port and
//!   reports what the NIC counted (received frames come from whatever the link carries).

use anyhow::{bail, Context, Result};
use clap::Args;
use nic_driver::serial_device::{ByteLink, SerialDevice, TtyLink};
use nic_driver::{Device, Nic, NicConfig, TxFrame};
use nic_sim::board::{BoardClocks, BoardSim};
use nic_testbench::fcs;
use nic_testbench::gen::FrameGen;
use std::path::PathBuf;

#[derive(Args)]
pub struct SimBoardArgs {
    /// Frames each way.
    #[arg(long, default_value_t = 8)]
    frames: usize,
    /// Frame sizes MIN..MAX (without FCS).
    #[arg(long, default_value = "60..600", value_parser = crate::parse_size_range)]
    size: std::ops::RangeInclusive<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// FST waveform of the board's pins and everything inside.
    #[arg(long)]
    wave: Option<PathBuf>,
}

#[derive(Args)]
pub struct BoardArgs {
    /// The board's UART (the FT2232H's second port).
    #[arg(long)]
    port: PathBuf,
    /// The core clock the bitstream was built with (its report.json `freq_mhz`).
    #[arg(long)]
    core_mhz: f64,
    /// Broadcast frames to send.
    #[arg(long, default_value_t = 16)]
    frames: usize,
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
    while got.len() < rx.len() {
        let burst = nic.rx_collect(rx.len() - got.len(), 2_000_000).map_err(|e| anyhow::anyhow!("{e}"))?;
        if burst.is_empty() {
            bail!("{} of {} frames from the PHY reached the driver", got.len(), rx.len());
        }
        got.extend(burst.into_iter().map(|f| f.data));
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
    }
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
