//! RX classification set-up: MAC filter modes and exact-match table, multicast hash,
//! RSS key, hash types and indirection table (docs/rx-classification.md).
//!
//! The indirection table and the multicast hash are write-only in hardware (block
//! RAM); the driver keeps shadows of them, as Linux drivers do for `ethtool -x`.

use crate::device::Device;
use crate::error::DriverError;
use crate::nic::Nic;
use crate::regs::RegisterVerbs;
use nic_regmap::rxc;

/// `FILTER_CTRL` of the `rxc` block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxFilterMode {
    /// Accept every frame.
    pub promisc: bool,
    /// Accept every multicast frame.
    pub allmulti: bool,
    /// Accept broadcast frames.
    pub broadcast: bool,
}

impl RxFilterMode {
    /// Only the exact-match table, the multicast hash and broadcast: what a driver
    /// sets when the stack is not in promiscuous mode.
    pub const NORMAL: RxFilterMode = RxFilterMode { promisc: false, allmulti: false, broadcast: true };
    /// The reset value: everything is received until the driver narrows it.
    pub const RESET: RxFilterMode = RxFilterMode { promisc: true, allmulti: false, broadcast: true };
}

/// One exact-match entry of the MAC filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacFilter {
    pub addr: [u8; 6],
    /// Send matching frames to this queue instead of the RSS queue.
    pub steer_queue: Option<u8>,
}

/// RSS hash type enables (`RSS_CTRL`).
pub mod rss_types {
    pub const IPV4: u32 = 1 << 0;
    pub const TCP_IPV4: u32 = 1 << 1;
    pub const UDP_IPV4: u32 = 1 << 2;
    pub const IPV6: u32 = 1 << 3;
    pub const TCP_IPV6: u32 = 1 << 4;
    pub const UDP_IPV6: u32 = 1 << 5;
    pub const ALL: u32 = 0x3f;
}

/// Shadows of the write-only tables, at their reset values until written.
#[derive(Clone, Debug)]
pub struct Shadow {
    pub reta: [u8; 128],
    pub mcast: [u32; 128],
}

impl Default for Shadow {
    fn default() -> Self {
        Shadow { reta: std::array::from_fn(|j| j as u8), mcast: [0; 128] }
    }
}

/// Bit of the 4096-bit multicast hash table that accepts `addr`: the low 12 bits of
/// the IEEE 802.3 CRC-32 of the address.
pub fn mcast_hash_index(addr: &[u8; 6]) -> u16 {
    let mut crc = 0xffff_ffffu32;
    for &b in addr {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    (!crc & 0xfff) as u16
}

impl<D: Device> Nic<D> {
    fn rxc_reg(&self, offset: u32) -> Result<u32, DriverError> {
        let base = self.layout.rxc.ok_or(DriverError::MissingBlock { block: "rxc" })?;
        Ok(base - rxc::BASE + offset)
    }

    /// The RSS registers of a NIC without RSS (`FEATURES.RSS` clear) would do nothing:
    /// setting them is refused, as `ethtool -X` is on such a NIC.
    fn rss_reg(&self, offset: u32) -> Result<u32, DriverError> {
        if self.layout.features & nic_regmap::bits::FEATURES_RSS == 0 {
            return Err(DriverError::InvalidConfig("the NIC has no RSS (FEATURES.RSS clear): every frame goes to queue 0".into()));
        }
        self.rxc_reg(offset)
    }

    /// Whether the NIC has RSS (Toeplitz hash, hash types, indirection table).
    pub fn has_rss(&self) -> bool {
        self.layout.features & nic_regmap::bits::FEATURES_RSS != 0
    }

    /// Exact-match entries of the NIC's MAC filter (`MAC_FILTER_COUNT`).
    pub fn mac_filter_count(&self) -> u32 {
        self.layout.mac_filters
    }

    fn check_filter_index(&self, i: u32) -> Result<(), DriverError> {
        if i >= self.layout.mac_filters {
            return Err(DriverError::InvalidConfig(format!("MAC filter entry {i} does not exist (the NIC has {})", self.layout.mac_filters)));
        }
        Ok(())
    }

    pub fn set_rx_filter_mode(&mut self, mode: RxFilterMode) -> Result<(), DriverError> {
        let v = u32::from(mode.promisc) | u32::from(mode.allmulti) << 1 | u32::from(mode.broadcast) << 2;
        let a = self.rxc_reg(rxc::BASE + rxc::FILTER_CTRL)?;
        self.dev.set_reg32(a, v)
    }

    pub fn rx_filter_mode(&mut self) -> Result<RxFilterMode, DriverError> {
        let a = self.rxc_reg(rxc::BASE + rxc::FILTER_CTRL)?;
        let v = self.dev.get_reg32(a)?;
        Ok(RxFilterMode { promisc: v & 1 != 0, allmulti: v & 2 != 0, broadcast: v & 4 != 0 })
    }

    /// Programs exact-match entry `i` (`None` disables it).
    pub fn set_mac_filter(&mut self, i: u32, filter: Option<MacFilter>) -> Result<(), DriverError> {
        self.check_filter_index(i)?;
        let (lo, hi) = match filter {
            None => (0, 0),
            Some(f) => {
                if let Some(q) = f.steer_queue {
                    if u32::from(q) >= self.config().rx_queues {
                        return Err(DriverError::InvalidConfig(format!("steering to RX queue {q}, but {} are open", self.config().rx_queues)));
                    }
                }
                let lo = u32::from_le_bytes([f.addr[0], f.addr[1], f.addr[2], f.addr[3]]);
                let hi = u32::from(f.addr[4])
                    | u32::from(f.addr[5]) << 8
                    | u32::from(f.steer_queue.unwrap_or(0)) << 16
                    | u32::from(f.steer_queue.is_some()) << 30
                    | 1 << 31;
                (lo, hi)
            }
        };
        // disable first, so the entry never matches half-written
        let a_hi = self.rxc_reg(rxc::mac_filter_hi(i))?;
        let a_lo = self.rxc_reg(rxc::mac_filter_lo(i))?;
        self.dev.set_reg32(a_hi, 0)?;
        self.dev.set_reg32(a_lo, lo)?;
        self.dev.set_reg32(a_hi, hi)
    }

    pub fn mac_filter(&mut self, i: u32) -> Result<Option<MacFilter>, DriverError> {
        self.check_filter_index(i)?;
        let a_lo = self.rxc_reg(rxc::mac_filter_lo(i))?;
        let a_hi = self.rxc_reg(rxc::mac_filter_hi(i))?;
        let lo = self.dev.get_reg32(a_lo)?;
        let hi = self.dev.get_reg32(a_hi)?;
        if hi >> 31 == 0 {
            return Ok(None);
        }
        let l = lo.to_le_bytes();
        Ok(Some(MacFilter {
            addr: [l[0], l[1], l[2], l[3], hi as u8, (hi >> 8) as u8],
            steer_queue: (hi & 1 << 30 != 0).then_some((hi >> 16) as u8),
        }))
    }

    /// Writes the whole 4096-bit multicast hash table.
    pub fn set_mcast_hash(&mut self, table: &[u32; 128]) -> Result<(), DriverError> {
        for (i, &w) in table.iter().enumerate() {
            let a = self.rxc_reg(rxc::mcast_hash(i as u32))?;
            self.dev.set_reg32(a, w)?;
        }
        self.rxc_shadow.mcast = *table;
        Ok(())
    }

    /// Accepts exactly these multicast groups through the hash (plus whatever else
    /// shares their hash bits, as on every hash-filtering NIC).
    pub fn set_multicast_list(&mut self, groups: &[[u8; 6]]) -> Result<(), DriverError> {
        let mut table = [0u32; 128];
        for g in groups {
            let idx = mcast_hash_index(g);
            table[usize::from(idx / 32)] |= 1 << (idx % 32);
        }
        self.set_mcast_hash(&table)
    }

    pub fn mcast_hash(&self) -> &[u32; 128] {
        &self.rxc_shadow.mcast
    }

    pub fn set_rss_key(&mut self, key: &[u8; 40]) -> Result<(), DriverError> {
        for i in 0..10 {
            let a = self.rss_reg(rxc::rss_key(i as u32))?;
            self.dev.set_reg32(a, u32::from_be_bytes(key[4 * i..4 * i + 4].try_into().unwrap()))?;
        }
        Ok(())
    }

    pub fn rss_key(&mut self) -> Result<[u8; 40], DriverError> {
        let mut key = [0u8; 40];
        for i in 0..10 {
            let a = self.rss_reg(rxc::rss_key(i as u32))?;
            key[4 * i..4 * i + 4].copy_from_slice(&self.dev.get_reg32(a)?.to_be_bytes());
        }
        Ok(key)
    }

    /// Enables hash types (`rss_types::*`); 0 sends everything to queue 0.
    pub fn set_rss_types(&mut self, types: u32) -> Result<(), DriverError> {
        if types & !rss_types::ALL != 0 {
            return Err(DriverError::InvalidConfig(format!("unknown RSS hash type bits {:#x}", types & !rss_types::ALL)));
        }
        let a = self.rss_reg(rxc::BASE + rxc::RSS_CTRL)?;
        self.dev.set_reg32(a, types)
    }

    pub fn rss_types(&mut self) -> Result<u32, DriverError> {
        let a = self.rss_reg(rxc::BASE + rxc::RSS_CTRL)?;
        self.dev.get_reg32(a)
    }

    /// Writes the 128-entry indirection table (queue numbers).
    pub fn set_rss_reta(&mut self, table: &[u8; 128]) -> Result<(), DriverError> {
        if let Some(q) = table.iter().find(|&&q| u32::from(q) >= self.config().rx_queues) {
            return Err(DriverError::InvalidConfig(format!("indirection entry names RX queue {q}, but {} are open", self.config().rx_queues)));
        }
        for i in 0..32 {
            let a = self.rss_reg(rxc::rss_reta(i as u32))?;
            self.dev.set_reg32(a, u32::from_le_bytes(table[4 * i..4 * i + 4].try_into().unwrap()))?;
        }
        self.rxc_shadow.reta = *table;
        Ok(())
    }

    /// Spreads the indirection table evenly over queues `0..queues` (Linux's default).
    pub fn set_rss_spread(&mut self, queues: u32) -> Result<(), DriverError> {
        if queues == 0 || queues > self.config().rx_queues {
            return Err(DriverError::InvalidConfig(format!("cannot spread over {queues} RX queues ({} are open)", self.config().rx_queues)));
        }
        let table = std::array::from_fn(|j| (j as u32 % queues) as u8);
        self.set_rss_reta(&table)
    }

    pub fn rss_reta(&self) -> &[u8; 128] {
        &self.rxc_shadow.reta
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn mcast_index_is_low_bits_of_crc32() {
        // against a table-driven CRC-32, itself checked on the standard check value
        let addr = [0x01, 0x00, 0x5e, 0x00, 0x00, 0x01];
        let mut table = [0u32; 256];
        for (i, t) in table.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
            }
            *t = c;
        }
        let crc32 = |data: &[u8]| !data.iter().fold(!0u32, |c, &b| table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8));
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        let crc = crc32(&addr);
        assert_eq!(mcast_hash_index(&addr), (crc & 0xfff) as u16);
    }
}
