//! The statistics block read into one struct.

use crate::device::Device;
use crate::discovery::Layout;
use crate::error::DriverError;
use crate::regs::RegisterVerbs;
use nic_regmap::stats as s;

/// A snapshot of the statistics counters (wrapping 32-bit, as the hardware keeps them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub tx_frames: u32,
    pub tx_bytes: u32,
    pub tx_errors: u32,
    /// TX frames whose offload request the NIC refused (not sent; docs/tx-offload.md).
    pub tx_offload_errors: u32,
    /// TCP segments TSO sent (each also counts in `tx_frames`).
    pub tx_tso_segments: u32,
    pub rx_frames: u32,
    pub rx_bytes: u32,
    pub rx_drop_no_buffer: u32,
    pub rx_drop_fcs: u32,
    pub rx_drop_runt: u32,
    pub rx_drop_oversize: u32,
    pub rx_drop_truncated: u32,
    pub rx_drop_phy_error: u32,
    /// MAC filter drops by reason (docs/rx-classification.md).
    pub rx_drop_ucast_filter: u32,
    pub rx_drop_mcast_filter: u32,
    pub rx_drop_bcast_filter: u32,
    /// Frames delivered with a bad checksum verdict.
    pub rx_csum_l3_bad: u32,
    pub rx_csum_l4_bad: u32,
}

impl Stats {
    pub fn read<D: Device + ?Sized>(dev: &mut D, layout: &Layout) -> Result<Stats, DriverError> {
        let mut r = |off| dev.get_reg32(layout.stats_reg(off));
        Ok(Stats {
            tx_frames: r(s::TX_FRAMES)?,
            tx_bytes: r(s::TX_BYTES)?,
            tx_errors: r(s::TX_ERRORS)?,
            tx_offload_errors: r(s::TX_OFFLOAD_ERRORS)?,
            tx_tso_segments: r(s::TX_TSO_SEGMENTS)?,
            rx_frames: r(s::RX_FRAMES)?,
            rx_bytes: r(s::RX_BYTES)?,
            rx_drop_no_buffer: r(s::RX_DROP_NO_BUFFER)?,
            rx_drop_fcs: r(s::RX_DROP_FCS)?,
            rx_drop_runt: r(s::RX_DROP_RUNT)?,
            rx_drop_oversize: r(s::RX_DROP_OVERSIZE)?,
            rx_drop_truncated: r(s::RX_DROP_TRUNCATED)?,
            rx_drop_phy_error: r(s::RX_DROP_PHY_ERROR)?,
            rx_drop_ucast_filter: r(s::RX_DROP_UCAST_FILTER)?,
            rx_drop_mcast_filter: r(s::RX_DROP_MCAST_FILTER)?,
            rx_drop_bcast_filter: r(s::RX_DROP_BCAST_FILTER)?,
            rx_csum_l3_bad: r(s::RX_CSUM_L3_BAD)?,
            rx_csum_l4_bad: r(s::RX_CSUM_L4_BAD)?,
        })
    }

    /// Counts since an earlier snapshot (wrap-safe).
    pub fn since(&self, earlier: &Stats) -> Stats {
        Stats {
            tx_frames: self.tx_frames.wrapping_sub(earlier.tx_frames),
            tx_bytes: self.tx_bytes.wrapping_sub(earlier.tx_bytes),
            tx_errors: self.tx_errors.wrapping_sub(earlier.tx_errors),
            tx_offload_errors: self.tx_offload_errors.wrapping_sub(earlier.tx_offload_errors),
            tx_tso_segments: self.tx_tso_segments.wrapping_sub(earlier.tx_tso_segments),
            rx_frames: self.rx_frames.wrapping_sub(earlier.rx_frames),
            rx_bytes: self.rx_bytes.wrapping_sub(earlier.rx_bytes),
            rx_drop_no_buffer: self.rx_drop_no_buffer.wrapping_sub(earlier.rx_drop_no_buffer),
            rx_drop_fcs: self.rx_drop_fcs.wrapping_sub(earlier.rx_drop_fcs),
            rx_drop_runt: self.rx_drop_runt.wrapping_sub(earlier.rx_drop_runt),
            rx_drop_oversize: self.rx_drop_oversize.wrapping_sub(earlier.rx_drop_oversize),
            rx_drop_truncated: self.rx_drop_truncated.wrapping_sub(earlier.rx_drop_truncated),
            rx_drop_phy_error: self.rx_drop_phy_error.wrapping_sub(earlier.rx_drop_phy_error),
            rx_drop_ucast_filter: self.rx_drop_ucast_filter.wrapping_sub(earlier.rx_drop_ucast_filter),
            rx_drop_mcast_filter: self.rx_drop_mcast_filter.wrapping_sub(earlier.rx_drop_mcast_filter),
            rx_drop_bcast_filter: self.rx_drop_bcast_filter.wrapping_sub(earlier.rx_drop_bcast_filter),
            rx_csum_l3_bad: self.rx_csum_l3_bad.wrapping_sub(earlier.rx_csum_l3_bad),
            rx_csum_l4_bad: self.rx_csum_l4_bad.wrapping_sub(earlier.rx_csum_l4_bad),
        }
    }

    /// All RX drops, whatever the reason.
    pub fn rx_drops(&self) -> u32 {
        self.rx_drop_no_buffer
            + self.rx_drop_fcs
            + self.rx_drop_runt
            + self.rx_drop_oversize
            + self.rx_drop_truncated
            + self.rx_drop_phy_error
            + self.rx_filter_drops()
    }

    /// RX frames the MAC filter dropped, whatever the reason.
    pub fn rx_filter_drops(&self) -> u32 {
        self.rx_drop_ucast_filter + self.rx_drop_mcast_filter + self.rx_drop_bcast_filter
    }
}
