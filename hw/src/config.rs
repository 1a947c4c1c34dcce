//! Named configurations. rust-hdl cannot make every construct generic over sizes, so
//! sizes that change between builds live here and the blocks take them as constants.

use std::fmt;
use std::str::FromStr;

/// A build configuration of the NIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Config {
    /// One TX and one RX queue, small FIFOs, no TX offload engine, no RSS or RX checksum
    /// validation, no interrupt moderation, TX fragments of whole 8-byte beats before a
    /// frame's last (`FEATURES` says which blocks a build has): the configuration meant
    /// for an iCE40 HX8K.
    Small,
    /// The growing full NIC (targets an ECP5-85F): deeper FIFOs, 8 RX queues with RSS,
    /// 8 TX queues with a scheduler, a 32 KiB TX offload buffer, the RDMA engine.
    Full,
}

impl Config {
    pub const ALL: [Config; 2] = [Config::Small, Config::Full];

    pub fn name(self) -> &'static str {
        match self {
            Config::Small => "small",
            Config::Full => "full",
        }
    }
    pub fn tx_queues(self) -> u32 {
        match self {
            Config::Small => 1,
            Config::Full => 8,
        }
    }
    /// Bytes of the TX offload engine's frame buffer (`8 << BN` of `NicTop`).
    pub fn tx_offload_buffer_bytes(self) -> usize {
        match self {
            Config::Small => 4096,
            Config::Full => 32768,
        }
    }
    /// The longest checksum-offload frame or TSO segment the offload engine takes (the
    /// buffer less 512 bytes, docs/tx-offload.md); longer ones are refused.
    pub fn tx_offload_max_frame(self) -> usize {
        self.tx_offload_buffer_bytes() - 512
    }
    /// Whether the build has the TX offload engine (checksum offload and TSO). Without
    /// it, TX frames go from the queue engine straight to the MAC, and a context
    /// descriptor stops its queue (`QueueError::UnsupportedContext`).
    pub fn has_tx_offload(self) -> bool {
        match self {
            Config::Small => false,
            Config::Full => true,
        }
    }
    /// Whether the build has the RX parser, RSS and RX checksum validation. Without them
    /// the MAC filter alone classifies (`RxLeanClassifier`): hash, hash type and packet
    /// type are 0 and the checksum verdicts "not checked".
    pub fn has_rx_offload(self) -> bool {
        match self {
            Config::Small => false,
            Config::Full => true,
        }
    }
    /// Whether each queue's interrupt vector has moderation (`Q_IRQ_COUNT`,
    /// `Q_IRQ_TIMER`: `IrqModeration`) or is raised by every completion. `small` has none:
    /// the two registers and the counters, comparators and timer behind them took 433 of
    /// the iCE40 HX8K's 7,680 logic cells for one queue each way (docs/fpga.md), and a
    /// board driven over a serial link polls rather than waits for interrupts.
    pub fn has_irq_moderation(self) -> bool {
        match self {
            Config::Small => false,
            Config::Full => true,
        }
    }
    /// Whether the register bus's read address is registered as AR is taken (a read
    /// answers a cycle later) and the register blocks decode only in a read's cycle
    /// (their read data forced to 0 otherwise), so that the simulator evaluates the
    /// read decode neither in its input region nor in the cycles without a read
    /// (docs/performance.md, "Simulator speed"). It costs flip-flops and an AND per
    /// read-data bit and block: nothing to speak of on the ECP5-85F, but `small` on the
    /// iCE40 HX8K, already at 98.6% of its logic cells, went from 7,571 to 7,625 of 7,680
    /// with it (+48 LUTs, +17 flip-flops; measured against 2c2b56c the same day), so
    /// `small` keeps the decode from the port.
    pub fn gates_register_decode(self) -> bool {
        match self {
            Config::Small => false,
            Config::Full => true,
        }
    }
    /// Whether the TX engine joins scatter-gather fragments of any length into full beats
    /// (`stream::BytePacker`), or takes only fragments of whole 8-byte beats before a
    /// frame's last (a shorter one stops the queue, `QueueError::FragmentNotWhole`), which
    /// then need no joining. `small` takes the latter: the packer's rotator and residue
    /// took 464 of the iCE40 HX8K's logic cells (docs/fpga.md). The driver copies a frame
    /// of `TxSegment::Bytes` into whole-beat buffers when `FEATURES.SCATTER_GATHER` is
    /// clear, as Linux linearizes a frame for a NIC without scatter-gather.
    pub fn has_scatter_gather(self) -> bool {
        match self {
            Config::Small => false,
            Config::Full => true,
        }
    }
    /// Whether the build has the RDMA engine (`rdma::RdmaEngine`: RoCEv2 RC queue pairs,
    /// the `rdma` register block, `FEATURES.RDMA`). `small` leaves it out: the engine's
    /// tables and roles alone are several times the iCE40 HX8K.
    pub fn has_rdma(self) -> bool {
        match self {
            Config::Small => false,
            Config::Full => true,
        }
    }
    /// The `FEATURES` register of this build.
    pub fn features(self) -> u32 {
        nic_regmap::BuildFeatures {
            tx_offload: self.has_tx_offload(),
            rx_offload: self.has_rx_offload(),
            irq_moderation: self.has_irq_moderation(),
            scatter_gather: self.has_scatter_gather(),
            rdma: self.has_rdma(),
        }
        .register()
    }
    /// Exact-match entries of the RX MAC filter (`rxc.MAC_FILTER_COUNT`): the map's
    /// sixteen in `full`, two in `small`: the station address and one more, as the
    /// single-address MACs of small FPGAs have, with the multicast hash and PROMISC for
    /// the rest. An entry (its registers, comparator, share of the priority encoder
    /// and of the read mux) costs about 200 iCE40 LUT4s: going from four to two took
    /// `small` from 7,857 to 7,456 LUT4s (docs/fpga.md: what the HX8K fit took since).
    pub fn mac_filters(self) -> u32 {
        match self {
            Config::Small => nic_regmap::rxc::MAC_FILTERS_SMALL,
            Config::Full => nic_regmap::rxc::MAC_FILTERS,
        }
    }
    /// Whether the register slices between the top's blocks register the ready path too
    /// (skid buffers, for the 156.25 MHz target of `full`) or only data and valid
    /// (`RegSlice::with_skid(false)`, for the area of `small`).
    pub fn skid_slices(self) -> bool {
        match self {
            Config::Small => false,
            Config::Full => true,
        }
    }
    /// Whether a register slice cuts the path from MAC RX to the classifier. `small` has
    /// none (`RegSlice::wire`): MAC RX's output is already a register, so the slice's
    /// flip-flops were fed by flip-flops, each an iCE40 logic cell of its own (55 cells
    /// of the HX8K build), and `small`'s clock does not need the cut. It costs a cycle
    /// per frame (`nic bench rx`: 20 instead of 19 for 64 bytes): the lean classifier
    /// holds a frame's first beat while the filter judges it, and a slice let MAC RX move
    /// one beat ahead meanwhile.
    pub fn mac_rx_slice(self) -> bool {
        match self {
            Config::Small => false,
            Config::Full => true,
        }
    }
    /// Whether the MAC's CRC-32 takes 4 bytes a cycle, a beat's last 1..3 bytes one a
    /// cycle (`Crc32x64::half_rate`): a full 8-byte beat takes 2 cycles in MAC TX and in
    /// MAC RX, 4 bytes a cycle, 167 MB/s at the ECPIX-5's 41.67 MHz core against a
    /// Gigabit wire's 125. It saves each MAC's 8-byte networks in `small`; `full` keeps
    /// 8 bytes a cycle for 10 GbE, through the pipelined CRC (`Crc32Pipe`, 5 cycles
    /// more in each MAC).
    pub fn half_rate_crc(self) -> bool {
        match self {
            Config::Small => true,
            Config::Full => false,
        }
    }
    /// Whether the RX FIFO holds the MAC's 8-byte beats, each written to the host as a
    /// DMA beat of its own (`RxEngine::with_narrow_fifo`), rather than 16-byte beats: 5 iCE40
    /// block RAMs instead of 9 for `small`'s 256-beat FIFO (2 KiB instead of 4), with a
    /// DMA side no faster than the MAC. `full` keeps the DMA side twice as fast, to catch
    /// up after the write port was busy.
    pub fn narrow_rx_fifo(self) -> bool {
        match self {
            Config::Small => true,
            Config::Full => false,
        }
    }
    /// Whether the TX data FIFO holds 8-byte beats, each 16-byte read response beat split
    /// in front of it (`TxEngine::with_narrow_fifo`), rather than 16-byte beats: 5 iCE40
    /// block RAMs instead of 9 for `small`'s 256-entry FIFO (2 KiB instead of 4), with
    /// read responses taken at 8 bytes a cycle, the rate the FIFO is read at anyway.
    pub fn narrow_tx_fifo(self) -> bool {
        match self {
            Config::Small => true,
            Config::Full => false,
        }
    }
    pub fn rx_queues(self) -> u32 {
        match self {
            Config::Small => 1,
            Config::Full => 8,
        }
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Config {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "small" => Ok(Config::Small),
            "full" => Ok(Config::Full),
            other => Err(format!("unknown configuration '{other}' (expected 'small' or 'full')")),
        }
    }
}
