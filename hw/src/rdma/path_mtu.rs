//! The path MTU a QP context's PMTU code names, decoded once here for every RDMA block
//! (the requester cutting messages, the responder stepping RQ_PSN past a READ's response,
//! `RdmaResponseTx` cutting that response, the completer finding the PSN a READ expects
//! next), and a length cut by it. The codes are IBTA's (1 256, 2 512, 3 1024, 4 2048,
//! 5 4096 bytes); any other is taken as 256, as the model's `pmtu_bytes` takes it. A block
//! test compares every code against the model over lengths at and around each MTU.

use rust_hdl::prelude::*;

/// Combinational decode of a PMTU code, and `len` in whole MTUs and the bytes past them.
#[derive(LogicBlock, Default)]
pub struct RdmaPathMtu {
    pub code: Signal<In, Bits<3>>,
    pub len: Signal<In, Bits<32>>,
    /// The MTU in bytes, and its log2 (8..12).
    pub bytes: Signal<Out, Bits<16>>,
    pub log2: Signal<Out, Bits<4>>,
    /// `len` / MTU (24 bits: it is added to PSNs; a length below 2^31 fits) and `len` mod MTU.
    pub whole: Signal<Out, Bits<24>>,
    pub part: Signal<Out, Bits<16>>,
    /// `len` in 256-byte units (the smallest MTU; below 2^24).
    units: Signal<Local, Bits<24>>,
}

impl Logic for RdmaPathMtu {
    #[hdl_gen]
    fn update(&mut self) {
        self.log2.next = 8.into();
        if (self.code.val() >= 1) & (self.code.val() <= 5) {
            self.log2.next = bit_cast::<4, 3>(self.code.val()) + 7;
        }
        self.bytes.next = Bits::<16>::from(1u64) << bit_cast::<16, 4>(self.log2.val());
        self.units.next = self.len.val().get_bits::<24>(8);
        self.whole.next = self.units.val() >> bit_cast::<24, 4>(self.log2.val() - 8);
        self.part.next = self.len.val().get_bits::<16>(0) & (self.bytes.val() - 1);
    }
}
