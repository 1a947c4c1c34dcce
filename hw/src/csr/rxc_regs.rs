//! The RX classification register block (`rxc`, docs/rx-classification.md), decoded on
//! the CSR block's register bus.
//!
//! Filter modes, RSS types, the RSS key and the exact-match MAC table are flip-flops
//! (the classifier reads all of them every frame, and software can read them back).
//! A build has `Config::mac_filters` of the map's sixteen exact-match entries, and the
//! RSS key only with RSS: the others ignore writes, read 0 and drive constant 0 to the
//! classifier, so synthesis removes their flip-flops and comparators.
//! The indirection table and the multicast hash table live in block RAM inside the
//! classifier: writes are forwarded to its write ports, whole words (byte strobes do
//! not apply), and reads return 0 (the map declares them write-only).

use super::cfg_reg::CfgReg;
use crate::Config;
use nic_regmap::rxc;
use rust_hdl::prelude::*;

/// Registers of the block decoded here (the CSR block's decode test checks the map).
pub const DECODED: [&str; 11] = ["ID", "VERSION", "NEXT", "MAC_FILTER_COUNT", "FILTER_CTRL", "RSS_CTRL", "RSS_KEY", "MAC_FILTER_LO", "MAC_FILTER_HI", "RSS_RETA", "MCAST_HASH"];

#[derive(LogicBlock)]
pub struct RxcRegs {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // register bus (see CsrBlock)
    pub bus_wr: Signal<In, Bit>,
    pub bus_addr: Signal<In, Bits<16>>,
    pub bus_wdata: Signal<In, Bits<32>>,
    pub bus_wmask: Signal<In, Bits<32>>,
    /// A read's cycle (CsrBlock::bus_rd): the read decode is skipped otherwise.
    pub bus_rd: Signal<In, Bit>,
    pub bus_rd_addr: Signal<In, Bits<16>>,
    pub bus_rdata: Signal<Out, Bits<32>>,
    // configuration out (the classifier's inputs of the same names)
    pub filter_ctrl: Signal<Out, Bits<32>>,
    pub rss_ctrl: Signal<Out, Bits<32>>,
    pub rss_key: [Signal<Out, Bits<32>>; 10],
    /// Word 2i = MAC_FILTER_LO[i], 2i+1 = MAC_FILTER_HI[i] (they are contiguous in the map).
    pub mac_filter: [Signal<Out, Bits<32>>; 32],
    pub mcast_wr: Signal<Out, Bit>,
    pub mcast_wr_addr: Signal<Out, Bits<7>>,
    pub mcast_wr_data: Signal<Out, Bits<32>>,
    pub reta_wr: Signal<Out, Bit>,
    pub reta_wr_addr: Signal<Out, Bits<5>>,
    pub reta_wr_data: Signal<Out, Bits<32>>,
    /// The registers, each holding its declared fields' bits and decoding its own writes
    /// (`CfgReg`). One the build does not have holds no bits: it reads 0 and drives a
    /// constant 0, which synthesis removes. `ctrl`: FILTER_CTRL, RSS_CTRL.
    ctrl: [CfgReg<32>; 2],
    key: [CfgReg<32>; 10],
    mac: [CfgReg<32>; 32],
    /// Their addresses, for the read decode (taken from the registers).
    addr_ctrl: [Constant<Bits<16>>; 2],
    addr_key: [Constant<Bits<16>>; 10],
    addr_mac: [Constant<Bits<16>>; 32],
    /// `bus_addr[15:7]` of RSS_RETA (128 bytes) and `[15:9]` of MCAST_HASH (512 bytes).
    reta_page: Constant<Bits<9>>,
    mcast_page: Constant<Bits<7>>,
    addr_id: Constant<Bits<16>>,
    addr_version: Constant<Bits<16>>,
    addr_next: Constant<Bits<16>>,
    value_id: Constant<Bits<32>>,
    value_version: Constant<Bits<32>>,
    value_next: Constant<Bits<32>>,
    addr_count: Constant<Bits<16>>,
    value_count: Constant<Bits<32>>,
    /// The read decode runs in every cycle (`Config::gates_register_decode` clear).
    ungated: Constant<Bit>,
    /// Read data: the addresses are distinct, so the selected values are ORed.
    rd_or: Signal<Local, Bits<32>>,
}

impl RxcRegs {
    pub fn new(config: Config) -> Self {
        let c16 = |v: u32| Constant::new(Bits::<16>::from(v as u64));
        let c32 = |v: u32| Constant::new(Bits::<32>::from(v as u64));
        let reset = |name: &str| nic_regmap::reset_of("rxc", name);
        assert_eq!(rxc::MAC_FILTER_HI, rxc::MAC_FILTER_LO + 4, "LO/HI pairs must interleave");
        assert_eq!(rxc::RSS_RETA % 128, 0);
        assert_eq!(rxc::MCAST_HASH % 512, 0);
        let ctrl: [CfgReg<32>; 2] = std::array::from_fn(|i| {
            let name = ["FILTER_CTRL", "RSS_CTRL"][i];
            CfgReg::new(nic_regmap::offset_of("rxc", name) as u16, u64::from(nic_regmap::bits_of("rxc", name)), u64::from(reset(name)))
        });
        let key: [CfgReg<32>; 10] = std::array::from_fn(|i| {
            let bits = if config.has_rx_offload() { u64::from(u32::MAX) } else { 0 };
            CfgReg::new(rxc::rss_key(i as u32) as u16, bits, u64::from(rxc::rss_key_reset(i)))
        });
        let mac: [CfgReg<32>; 32] = std::array::from_fn(|i| {
            let bits = if (i as u32 / 2) < config.mac_filters() { nic_regmap::bits_of("rxc", if i % 2 == 0 { "MAC_FILTER_LO" } else { "MAC_FILTER_HI" }) } else { 0 };
            CfgReg::new((rxc::mac_filter_lo(0) + 4 * i as u32) as u16, u64::from(bits), 0)
        });
        Self {
            clock: Default::default(),
            reset: Default::default(),
            bus_wr: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_wmask: Default::default(),
            bus_rd: Default::default(),
            bus_rd_addr: Default::default(),
            bus_rdata: Default::default(),
            filter_ctrl: Default::default(),
            rss_ctrl: Default::default(),
            rss_key: Default::default(),
            mac_filter: Default::default(),
            mcast_wr: Default::default(),
            mcast_wr_addr: Default::default(),
            mcast_wr_data: Default::default(),
            reta_wr: Default::default(),
            reta_wr_addr: Default::default(),
            reta_wr_data: Default::default(),
            addr_ctrl: std::array::from_fn(|i| ctrl[i].addr_constant()),
            addr_key: std::array::from_fn(|i| key[i].addr_constant()),
            addr_mac: std::array::from_fn(|i| mac[i].addr_constant()),
            ctrl,
            key,
            mac,
            reta_page: Constant::new(Bits::<9>::from(((rxc::BASE + rxc::RSS_RETA) >> 7) as u64)),
            mcast_page: Constant::new(Bits::<7>::from(((rxc::BASE + rxc::MCAST_HASH) >> 9) as u64)),
            addr_id: c16(rxc::BASE + rxc::ID),
            addr_version: c16(rxc::BASE + rxc::VERSION),
            addr_next: c16(rxc::BASE + rxc::NEXT),
            value_id: c32(reset("ID")),
            value_version: c32(reset("VERSION")),
            value_next: c32(nic_regmap::next_of("rxc", config.features())),
            addr_count: c16(rxc::BASE + rxc::MAC_FILTER_COUNT),
            value_count: c32(config.mac_filters()),
            ungated: Constant::new(!config.gates_register_decode()),
            rd_or: Default::default(),
        }
    }
}

impl Logic for RxcRegs {
    #[hdl_gen]
    fn update(&mut self) {
        // each register decodes its own writes (`CfgReg`)
        for i in 0..2 {
            self.ctrl[i].clock.next = self.clock.val();
            self.ctrl[i].reset.next = self.reset.val();
            self.ctrl[i].clear.next = false;
            self.ctrl[i].write.next = self.bus_wr.val();
            self.ctrl[i].addr.next = self.bus_addr.val();
            self.ctrl[i].wdata.next = self.bus_wdata.val();
            self.ctrl[i].wmask.next = self.bus_wmask.val();
        }
        for i in 0..10 {
            self.key[i].clock.next = self.clock.val();
            self.key[i].reset.next = self.reset.val();
            self.key[i].clear.next = false;
            self.key[i].write.next = self.bus_wr.val();
            self.key[i].addr.next = self.bus_addr.val();
            self.key[i].wdata.next = self.bus_wdata.val();
            self.key[i].wmask.next = self.bus_wmask.val();
            self.rss_key[i].next = self.key[i].q.val();
        }
        for i in 0..32 {
            self.mac[i].clock.next = self.clock.val();
            self.mac[i].reset.next = self.reset.val();
            self.mac[i].clear.next = false;
            self.mac[i].write.next = self.bus_wr.val();
            self.mac[i].addr.next = self.bus_addr.val();
            self.mac[i].wdata.next = self.bus_wdata.val();
            self.mac[i].wmask.next = self.bus_wmask.val();
            self.mac_filter[i].next = self.mac[i].q.val();
        }
        self.filter_ctrl.next = self.ctrl[0].q.val();
        self.rss_ctrl.next = self.ctrl[1].q.val();
        // table writes
        self.reta_wr.next = self.bus_wr.val() & (self.bus_addr.val().get_bits::<9>(7) == self.reta_page.val());
        self.reta_wr_addr.next = self.bus_addr.val().get_bits::<5>(2);
        self.reta_wr_data.next = self.bus_wdata.val();
        self.mcast_wr.next = self.bus_wr.val() & (self.bus_addr.val().get_bits::<7>(9) == self.mcast_page.val());
        self.mcast_wr_addr.next = self.bus_addr.val().get_bits::<7>(2);
        self.mcast_wr_data.next = self.bus_wdata.val();
        // reads: the addresses are distinct, so the selected values are ORed (a chain of
        // muxes would cost more), and the top ORs this block's read data with the others'
        self.rd_or.next = 0.into();
        if self.bus_rd.val() | self.ungated.val() {
            if self.bus_rd_addr.val() == self.addr_id.val() {
                self.rd_or.next = self.rd_or.val() | self.value_id.val();
            }
            if self.bus_rd_addr.val() == self.addr_version.val() {
                self.rd_or.next = self.rd_or.val() | self.value_version.val();
            }
            if self.bus_rd_addr.val() == self.addr_next.val() {
                self.rd_or.next = self.rd_or.val() | self.value_next.val();
            }
            if self.bus_rd_addr.val() == self.addr_count.val() {
                self.rd_or.next = self.rd_or.val() | self.value_count.val();
            }
            // (a register the build does not have holds 0: it adds nothing)
            for i in 0..2 {
                if self.bus_rd_addr.val() == self.addr_ctrl[i].val() {
                    self.rd_or.next = self.rd_or.val() | self.ctrl[i].q.val();
                }
            }
            for i in 0..10 {
                if self.bus_rd_addr.val() == self.addr_key[i].val() {
                    self.rd_or.next = self.rd_or.val() | self.key[i].q.val();
                }
            }
            for i in 0..32 {
                if self.bus_rd_addr.val() == self.addr_mac[i].val() {
                    self.rd_or.next = self.rd_or.val() | self.mac[i].q.val();
                }
            }
        }
        self.bus_rdata.next = self.rd_or.val();
    }
}
