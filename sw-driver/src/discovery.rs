//! Finds the register blocks by walking the ID/VERSION/NEXT chain from offset 0,
//! as Corundum's drivers do, instead of trusting hard-coded bases.

use crate::device::Device;
use crate::error::DriverError;
use crate::regs::RegisterVerbs;
use nic_regmap::{global, rxc, rxq, txq, BLOCKS, HEADER_ID, HEADER_NEXT, HEADER_VERSION, MAX_QUEUES};

/// One block as found on the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoundBlock {
    pub base: u32,
    pub id: u32,
    pub version: u32,
}

/// Where the blocks the driver uses live, and what the hardware offers.
#[derive(Clone, Debug)]
pub struct Layout {
    pub chain: Vec<FoundBlock>,
    pub global: u32,
    pub stats: u32,
    pub txq: u32,
    pub rxq: u32,
    /// The RX classification block (MAC filter, RSS), where the hardware has one.
    pub rxc: Option<u32>,
    pub features: u32,
    /// Exact-match entries of the MAC filter (`rxc.MAC_FILTER_COUNT`; a version 1.0
    /// block, which predates the register, has the map's sixteen). 0 without the block.
    pub mac_filters: u32,
    pub tx_queues: u32,
    pub rx_queues: u32,
    /// Bus address bits the NIC reaches (`global.DMA_ADDR_BITS`; 64 for a version 1.0
    /// global block, which predates the register).
    pub dma_addr_bits: u32,
    /// The RDMA engine's block, in a build with `FEATURES.RDMA`.
    pub rdma: Option<u32>,
}

/// Longest chain the driver follows before calling it a loop.
const MAX_BLOCKS: usize = 64;
/// The register space is 16 bits wide (AXI4-Lite address).
const REG_SPACE: u32 = 1 << 16;

/// Reads the chain. The first block must be the global block (`NIC0`); the others are
/// found by type. Every block this driver uses must have major version 1.
pub fn discover<D: Device + ?Sized>(dev: &mut D) -> Result<Layout, DriverError> {
    let mut chain = Vec::new();
    let mut base = global::BASE;
    loop {
        let id = dev.get_reg32(base + HEADER_ID)?;
        let version = dev.get_reg32(base + HEADER_VERSION)?;
        let next = dev.get_reg32(base + HEADER_NEXT)?;
        if chain.is_empty() && id != global::ID_VALUE {
            return Err(DriverError::BadBlockId { block: "global", base, expected: global::ID_VALUE, found: id });
        }
        chain.push(FoundBlock { base, id, version });
        if next == 0 {
            break;
        }
        if next <= base || next >= REG_SPACE || next % 4 != 0 || chain.len() >= MAX_BLOCKS {
            return Err(DriverError::BadChain { at: base, next });
        }
        base = next;
    }

    let find = |name: &'static str| -> Result<u32, DriverError> {
        let want = BLOCKS.iter().find(|b| b.name == name).expect("block declared in regmap");
        let b = chain.iter().find(|b| b.id == want.id).ok_or(DriverError::MissingBlock { block: name })?;
        if b.version >> 16 != want.version >> 16 {
            return Err(DriverError::UnsupportedVersion { block: name, version: b.version });
        }
        Ok(b.base)
    };
    let global_base = find("global")?;
    let stats_base = find("stats")?;
    let txq_base = find("txq")?;
    let rxq_base = find("rxq")?;
    let rxc_base = find("rxc").ok();

    let features = dev.get_reg32(global_base + global::FEATURES)?;
    let global_version = chain.iter().find(|b| b.base == global_base).map_or(0, |b| b.version);
    let dma_addr_bits = if global_version & 0xffff >= 1 { dev.get_reg32(global_base + global::DMA_ADDR_BITS)? } else { 64 };
    if !(32..=64).contains(&dma_addr_bits) {
        return Err(DriverError::InvalidConfig(format!("DMA_ADDR_BITS says {dma_addr_bits}; a NIC reaches 32 to 64 address bits")));
    }
    let queues = dev.get_reg32(global_base + global::QUEUES)?;
    let tx_queues = queues & 0xff;
    let rx_queues = (queues >> 8) & 0xff;
    let tx_count = dev.get_reg32(txq_base + txq::COUNT)?;
    let rx_count = dev.get_reg32(rxq_base + rxq::COUNT)?;
    if tx_count != tx_queues || rx_count != rx_queues || tx_queues == 0 || rx_queues == 0 || tx_queues > MAX_QUEUES || rx_queues > MAX_QUEUES {
        return Err(DriverError::InvalidConfig(format!(
            "queue counts disagree: QUEUES says {tx_queues} TX / {rx_queues} RX, the queue blocks say {tx_count} / {rx_count}"
        )));
    }
    let mac_filters = match rxc_base {
        None => 0,
        Some(base) => {
            let version = chain.iter().find(|b| b.base == base).map_or(0, |b| b.version);
            let count = if version & 0xffff >= 1 { dev.get_reg32(base + rxc::MAC_FILTER_COUNT)? } else { rxc::MAC_FILTERS };
            if count > rxc::MAC_FILTERS {
                return Err(DriverError::InvalidConfig(format!("MAC_FILTER_COUNT says {count} exact-match entries; the map has room for {}", rxc::MAC_FILTERS)));
            }
            count
        }
    };
    let rdma_base = find("rdma").ok().filter(|_| features & nic_regmap::bits::FEATURES_RDMA != 0);
    Ok(Layout { chain, global: global_base, stats: stats_base, txq: txq_base, rxq: rxq_base, rxc: rxc_base, features, mac_filters, tx_queues, rx_queues, dma_addr_bits, rdma: rdma_base })
}

impl Layout {
    /// Address of a global register (`nic_regmap::global::*` offset).
    pub fn global_reg(&self, offset: u32) -> u32 {
        self.global + offset
    }
    /// Address of a statistics register (`nic_regmap::stats::*` offset).
    pub fn stats_reg(&self, offset: u32) -> u32 {
        self.stats + offset
    }
    /// Address of a per-queue register of queue `q` (`nic_regmap::txq::Q_*` offsets).
    pub fn queue_reg(&self, dir: crate::Dir, q: u32, offset: u32) -> u32 {
        let base = match dir {
            crate::Dir::Tx => self.txq,
            crate::Dir::Rx => self.rxq,
        };
        base + nic_regmap::QUEUE_STRIDE * (q + 1) + offset
    }
}
