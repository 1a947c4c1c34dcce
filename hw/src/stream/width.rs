//! Width converters between the 128-bit DMA port and the 64-bit datapath.
//!
//! The DMA port moves 16 bytes per beat so that descriptor traffic and data together
//! fit in the port's bandwidth with room to spare (at 8 bytes per beat, 64-byte frames
//! in loopback needed 12 read beats per 10.5-cycle line slot). Beats carry a byte
//! count from lane 0; only a stream's last beat may be short.

use rust_hdl::prelude::*;

/// 128 → 64: a beat with more than 8 bytes leaves in two cycles.
#[derive(LogicBlock, Default)]
pub struct Downsizer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_data: Signal<In, Bits<128>>,
    /// 1..16
    pub s_len: Signal<In, Bits<5>>,
    pub s_end: Signal<In, Bit>,
    pub s_user: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub m_data: Signal<Out, Bits<64>>,
    /// 1..8
    pub m_len: Signal<Out, Bits<4>>,
    pub m_end: Signal<Out, Bit>,
    pub m_user: Signal<Out, Bit>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    /// The low half of the current input beat has gone; the high half is next.
    second: DFF<Bit>,
}

impl Logic for Downsizer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, second);
        self.m_valid.next = self.s_valid.val();
        self.m_user.next = self.s_user.val();
        if self.second.q.val() {
            self.m_data.next = self.s_data.val().get_bits::<64>(64);
            self.m_len.next = bit_cast::<4, 5>(self.s_len.val() - 8);
            self.m_end.next = self.s_end.val();
            self.s_ready.next = self.m_ready.val();
            if self.s_valid.val() & self.m_ready.val() {
                self.second.d.next = false;
            }
        } else {
            self.m_data.next = self.s_data.val().get_bits::<64>(0);
            self.m_len.next = bit_cast::<4, 5>(self.s_len.val());
            self.m_end.next = self.s_end.val();
            self.s_ready.next = self.m_ready.val();
            if self.s_len.val() > 8 {
                self.m_len.next = 8.into();
                self.m_end.next = false;
                self.s_ready.next = false;
                if self.s_valid.val() & self.m_ready.val() {
                    self.second.d.next = true;
                }
            }
        }
        if self.reset.val() {
            self.second.d.next = false;
        }
    }
}

/// 64 → 128: pairs full beats; a frame's last beat closes the pair early.
#[derive(LogicBlock, Default)]
pub struct Upsizer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_data: Signal<In, Bits<64>>,
    /// 1..8; 8 unless `s_last`
    pub s_len: Signal<In, Bits<4>>,
    pub s_last: Signal<In, Bit>,
    /// Side band of the frame (the RX metadata), taken from the pair's second beat.
    pub s_user: Signal<In, Bits<72>>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub m_data: Signal<Out, Bits<128>>,
    /// 1..16
    pub m_len: Signal<Out, Bits<5>>,
    pub m_last: Signal<Out, Bit>,
    pub m_user: Signal<Out, Bits<72>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    /// A full first half waits for its partner.
    held: DFF<Bit>,
    held_data: DFF<Bits<64>>,
}

impl Logic for Upsizer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, held_data);
        self.m_user.next = self.s_user.val();
        self.m_last.next = self.s_last.val();
        if self.held.q.val() {
            // second half: emit the pair
            self.m_data.next = bit_cast::<128, 64>(self.held_data.q.val()) | (bit_cast::<128, 64>(self.s_data.val()) << 64);
            self.m_len.next = bit_cast::<5, 4>(self.s_len.val()) + 8;
            self.m_valid.next = self.s_valid.val();
            self.s_ready.next = self.m_ready.val();
            if self.s_valid.val() & self.m_ready.val() {
                self.held.d.next = false;
            }
        } else {
            // first half: a frame's last beat goes alone, a full one waits
            self.m_data.next = bit_cast::<128, 64>(self.s_data.val());
            self.m_len.next = bit_cast::<5, 4>(self.s_len.val());
            self.m_valid.next = self.s_valid.val() & self.s_last.val();
            self.s_ready.next = self.m_ready.val() | !self.s_last.val();
            if self.s_valid.val() & !self.s_last.val() {
                self.held.d.next = true;
                self.held_data.d.next = self.s_data.val();
            }
        }
        if self.reset.val() {
            self.held.d.next = false;
        }
    }
}
