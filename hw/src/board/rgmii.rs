//! RGMII MAC adapter, 1000 Mb/s only: frames between the PHY's byte stream (one byte per
//! 125 MHz clock, two nibbles per cycle) and nic_top's 64-bit AXI4-Stream ports, with the
//! clock-domain crossing through a `CdcFifo`.
//!
//! The DDR primitives (IDDR/ODDR, clock phase) are outside, in the board's vendor Verilog:
//! these blocks see, per RGMII clock cycle, the nibble of the rising edge (byte bits 3:0)
//! and of the falling edge (bits 7:4), and CTL on both edges (rising = DV/EN, falling =
//! DV/EN xor ER). 10/100 Mb/s (one nibble per cycle, 2.5/25 MHz clocks) is not supported:
//! the link must be 1000 Mb/s (the board's PHY is strapped or auto-negotiated to it).
//!
//! FIFO entries: bit 0 tlast, bit 1 tuser; RX (74 bits): bits 9:2 tkeep, bits 73:10 tdata;
//! TX (69 bits): bits 4:2 the beat's last lane (tkeep's bits set less one), bits 68:5 tdata.
//!
//! # RX (`RgmiiRxN`, `RgmiiRx` = 512 entries)
//! In the rx_clock domain: while RX_DV, bytes 0x55 (at least one) are preamble until the
//! SFD 0xD5; from the byte after it every byte is frame data until RX_DV falls. Anything
//! else before the SFD (another byte, RX_ER, or DV falling) ignores the frame whole.
//! RX_ER with RX_DV during the data marks the frame bad (tuser on its last beat). Bytes
//! are packed 8 per beat from lane 0; a full beat is held until the next byte shows the
//! frame goes on (then it is written as a middle beat) or DV falls (then it is written
//! with tlast), so there is never an empty tlast beat. A frame with no data byte (DV
//! falls right after the SFD) produces nothing.
//!
//! Overflow: a middle beat is written only when the writer sees at least 2 free entries,
//! so one entry stays reserved for the frame's end. When a middle beat finds less, the
//! frame is truncated: its remaining bytes are dropped and one terminating beat (keep all,
//! tlast, tuser) is written as soon as an entry is free. A new frame whose SFD comes while
//! that terminator still waits is dropped whole (nothing of it reaches the NIC).
//! `stat_rx_errors` (core domain) pulses once per frame leaving with tuser (RX_ER or
//! overflow) and once per frame dropped whole; the drops cross through a toggle and a
//! 2-flop synchronizer (needs the core clock to see each toggle: drops are at least a
//! frame apart; two events in one core cycle are emitted on consecutive cycles).
//!
//! # TX (`RgmiiTxN`, `RgmiiTx` = 512 entries)
//! The core side writes s_axis beats into the FIFO and counts frames whose last beat was
//! written (a Gray-coded counter crossing like the FIFO pointers). The tx side starts a
//! frame when the inter-frame gap is over, the head beat is visible, and either the frame's
//! last beat is in the FIFO (frames written > frames started, compared as a signed
//! difference) or the FIFO holds at least half its capacity as the reader sees it. A
//! frame counter seen a cycle or two before the data pointer is harmless: the 8 preamble
//! byte times pass before the first data beat is needed.
//! Per frame: 7 x 0x55, 0xD5, the bytes of every beat (packed from lane 0: as many as tkeep has bits set), then at least 12
//! idle byte times (TX_EN low) before the next preamble. A beat with tuser (an aborted
//! frame: tuser is on its last beat) is sent with TX_ER on all its bytes, so the PHY
//! corrupts the frame and no receiver accepts it.
//! The tx side sends each beat from a register loaded from the FIFO's head (`hd_*`).
//! Underrun: when the next beat of a frame in progress is not in that register, the tx side
//! sends 5 byte times with TX_EN and TX_ER (the byte that had no data and 4 more), ends
//! the frame (TX_EN low), and discards the rest of that frame's beats as they arrive
//! (up to and including its tlast beat); the gap to the next frame counts from TX_EN
//! falling. `stat_underruns` is a core-domain pulse per underrun (a toggle through a
//! 2-flop synchronizer; underruns are more than 20 tx clocks apart).
//! TXD/CTL outputs are registered (one flop stage before the ODDRs).
use super::cdc_fifo::CdcFifo;
use rust_hdl::prelude::*;

/// RX adapter with the board's FIFO: 512 entries x 74 bits (3 ECP5 block RAMs, 4 KiB of
/// frame data: about 33 us of rx_axis back-pressure at line rate before overflow).
pub type RgmiiRx = RgmiiRxN<9, 10>;
/// TX adapter with the board's FIFO: 512 entries (a frame larger than 2 KiB starts when
/// 256 beats are in, leaving 16 us for the NIC core to keep up).
pub type RgmiiTx = RgmiiTxN<9, 10>;

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum RgmiiRxState {
    /// Between frames (RX_DV low).
    Idle,
    /// Preamble bytes 0x55 seen, waiting for the SFD.
    Preamble,
    /// After the SFD: frame data until RX_DV falls.
    Data,
    /// Ignoring the rest of a frame (no proper preamble/SFD) until RX_DV falls.
    Skip,
}

#[derive(LogicBlock)]
pub struct RgmiiRxN<const N: usize, const NP1: usize> {
    // PHY receive domain
    pub rx_clock: Signal<In, Clock>,
    pub rx_reset: Signal<In, Bit>,
    pub rxd_rise: Signal<In, Bits<4>>,
    pub rxd_fall: Signal<In, Bits<4>>,
    pub ctl_rise: Signal<In, Bit>,
    pub ctl_fall: Signal<In, Bit>,
    // core domain
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub m_axis_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tlast: Signal<Out, Bit>,
    pub m_axis_tuser: Signal<Out, Bit>,
    pub m_axis_tvalid: Signal<Out, Bit>,
    pub m_axis_tready: Signal<In, Bit>,
    pub stat_rx_errors: Signal<Out, Bit>,
    fifo: CdcFifo<Bits<74>, N, NP1>,
    // rx domain
    state: DFF<RgmiiRxState>,
    acc: DFF<Bits<64>>,
    /// Bytes in `acc` (0..=8).
    cnt: DFF<Bits<4>>,
    /// RX_ER seen during this frame's data.
    bad: DFF<Bit>,
    /// This frame overflowed: its remaining bytes are dropped.
    trunc: DFF<Bit>,
    /// A terminating tuser beat waits for a free entry.
    term_pending: DFF<Bit>,
    drop_toggle: DFF<Bit>,
    // core domain
    drop_s1: DFF<Bit>,
    drop_s2: DFF<Bit>,
    drop_s3: DFF<Bit>,
    stat: DFF<Bit>,
    owed: DFF<Bit>,
    ones8: Constant<Bits<8>>,
    rx_byte: Signal<Local, Bits<8>>,
    byte64: Signal<Local, Bits<64>>,
    dv: Signal<Local, Bit>,
    er: Signal<Local, Bit>,
    shift: Signal<Local, Bits<7>>,
    room2: Signal<Local, Bit>,
    wr_en: Signal<Local, Bit>,
    wr_data: Signal<Local, Bits<64>>,
    wr_keep: Signal<Local, Bits<8>>,
    wr_last: Signal<Local, Bit>,
    wr_user: Signal<Local, Bit>,
    entry: Signal<Local, Bits<74>>,
    out_data: Signal<Local, Bits<74>>,
    out_keep: Signal<Local, Bits<74>>,
    bad_pop: Signal<Local, Bit>,
    drop_ev: Signal<Local, Bit>,
}

impl<const N: usize, const NP1: usize> Default for RgmiiRxN<N, NP1> {
    fn default() -> Self {
        Self {
            rx_clock: Default::default(),
            rx_reset: Default::default(),
            rxd_rise: Default::default(),
            rxd_fall: Default::default(),
            ctl_rise: Default::default(),
            ctl_fall: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tkeep: Default::default(),
            m_axis_tlast: Default::default(),
            m_axis_tuser: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tready: Default::default(),
            stat_rx_errors: Default::default(),
            fifo: Default::default(),
            state: Default::default(),
            acc: Default::default(),
            cnt: Default::default(),
            bad: Default::default(),
            trunc: Default::default(),
            term_pending: Default::default(),
            drop_toggle: Default::default(),
            drop_s1: Default::default(),
            drop_s2: Default::default(),
            drop_s3: Default::default(),
            stat: Default::default(),
            owed: Default::default(),
            ones8: Constant::new(Bits::<8>::from(0xffu64)),
            rx_byte: Default::default(),
            byte64: Default::default(),
            dv: Default::default(),
            er: Default::default(),
            shift: Default::default(),
            room2: Default::default(),
            wr_en: Default::default(),
            wr_data: Default::default(),
            wr_keep: Default::default(),
            wr_last: Default::default(),
            wr_user: Default::default(),
            entry: Default::default(),
            out_data: Default::default(),
            out_keep: Default::default(),
            bad_pop: Default::default(),
            drop_ev: Default::default(),
        }
    }
}

impl<const N: usize, const NP1: usize> Logic for RgmiiRxN<N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, rx_clock, state, acc, cnt, bad, trunc, term_pending, drop_toggle);
        dff_setup!(self, clock, drop_s1, drop_s2, drop_s3, stat, owed);
        self.fifo.wr_clock.next = self.rx_clock.val();
        self.fifo.wr_reset.next = self.rx_reset.val();
        self.fifo.rd_clock.next = self.clock.val();
        self.fifo.rd_reset.next = self.reset.val();

        // ---- rx domain: deframing and packing ----
        self.rx_byte.next = bit_cast::<8, 4>(self.rxd_rise.val()) | (bit_cast::<8, 4>(self.rxd_fall.val()) << 4);
        self.byte64.next = bit_cast::<64, 8>(self.rx_byte.val());
        self.dv.next = self.ctl_rise.val();
        self.er.next = self.ctl_rise.val() & !self.ctl_fall.val();
        self.shift.next = bit_cast::<7, 4>(self.cnt.q.val()) << 3;
        self.room2.next = self.fifo.wr_free.val() >= 2;
        self.wr_en.next = false;
        self.wr_data.next = self.acc.q.val();
        self.wr_keep.next = self.ones8.val();
        self.wr_last.next = false;
        self.wr_user.next = false;
        match self.state.q.val() {
            RgmiiRxState::Idle => {
                if self.dv.val() {
                    if (self.rx_byte.val() == 0x55) & !self.er.val() {
                        self.state.d.next = RgmiiRxState::Preamble;
                    } else {
                        self.state.d.next = RgmiiRxState::Skip;
                    }
                }
            }
            RgmiiRxState::Preamble => {
                if !self.dv.val() {
                    self.state.d.next = RgmiiRxState::Idle;
                } else if self.er.val() {
                    self.state.d.next = RgmiiRxState::Skip;
                } else if self.rx_byte.val() == 0xd5 {
                    if self.term_pending.q.val() {
                        // the previous frame's terminator still waits: drop this one whole
                        self.state.d.next = RgmiiRxState::Skip;
                        self.drop_toggle.d.next = !self.drop_toggle.q.val();
                    } else {
                        self.state.d.next = RgmiiRxState::Data;
                        self.acc.d.next = 0.into();
                        self.cnt.d.next = 0.into();
                        self.bad.d.next = false;
                        self.trunc.d.next = false;
                    }
                } else if self.rx_byte.val() != 0x55 {
                    self.state.d.next = RgmiiRxState::Skip;
                }
            }
            RgmiiRxState::Data => {
                if self.dv.val() {
                    if self.er.val() {
                        self.bad.d.next = true;
                    }
                    if !self.trunc.q.val() {
                        if self.cnt.q.val() == 8 {
                            // the held beat is not the last: write it if one entry stays free
                            if self.room2.val() {
                                self.wr_en.next = true;
                                self.acc.d.next = self.byte64.val();
                                self.cnt.d.next = 1.into();
                            } else {
                                self.trunc.d.next = true;
                                self.term_pending.d.next = true;
                            }
                        } else {
                            self.acc.d.next = self.acc.q.val() | (self.byte64.val() << self.shift.val());
                            self.cnt.d.next = self.cnt.q.val() + 1;
                        }
                    }
                } else {
                    self.state.d.next = RgmiiRxState::Idle;
                    if !self.trunc.q.val() & (self.cnt.q.val() != 0) {
                        if self.fifo.full.val() {
                            self.term_pending.d.next = true;
                        } else {
                            self.wr_en.next = true;
                            self.wr_keep.next = !(self.ones8.val() << self.cnt.q.val());
                            self.wr_last.next = true;
                            self.wr_user.next = self.bad.q.val() | self.er.val();
                        }
                    }
                }
            }
            RgmiiRxState::Skip => {
                if !self.dv.val() {
                    self.state.d.next = RgmiiRxState::Idle;
                }
            }
        }
        // the terminator of a truncated frame (never in the same cycle as a data write:
        // no frame enters Data while it waits, and the frame that set it is truncated)
        if self.term_pending.q.val() & !self.fifo.full.val() & !self.wr_en.val() {
            self.wr_en.next = true;
            self.wr_keep.next = self.ones8.val();
            self.wr_last.next = true;
            self.wr_user.next = true;
            self.term_pending.d.next = false;
        }
        self.entry.next = (bit_cast::<74, 64>(self.wr_data.val()) << 10) | (bit_cast::<74, 8>(self.wr_keep.val()) << 2);
        if self.wr_last.val() {
            self.entry.next = self.entry.val() | 1;
        }
        if self.wr_user.val() {
            self.entry.next = self.entry.val() | 2;
        }
        self.fifo.data_in.next = self.entry.val();
        self.fifo.write.next = self.wr_en.val();
        if self.rx_reset.val() {
            self.state.d.next = RgmiiRxState::Idle;
            self.acc.d.next = 0.into();
            self.cnt.d.next = 0.into();
            self.bad.d.next = false;
            self.trunc.d.next = false;
            self.term_pending.d.next = false;
            self.drop_toggle.d.next = false;
        }

        // ---- core domain: the stream and the statistics ----
        self.out_data.next = self.fifo.data_out.val() >> 10;
        self.out_keep.next = self.fifo.data_out.val() >> 2;
        self.m_axis_tdata.next = bit_cast::<64, 74>(self.out_data.val());
        self.m_axis_tkeep.next = bit_cast::<8, 74>(self.out_keep.val());
        self.m_axis_tlast.next = self.fifo.data_out.val().get_bit(0);
        self.m_axis_tuser.next = self.fifo.data_out.val().get_bit(1);
        self.m_axis_tvalid.next = self.fifo.valid.val();
        self.fifo.read.next = self.m_axis_tready.val();
        self.bad_pop.next = self.fifo.valid.val() & self.m_axis_tready.val() & self.fifo.data_out.val().get_bit(0) & self.fifo.data_out.val().get_bit(1);
        self.drop_s1.d.next = self.drop_toggle.q.val();
        self.drop_s2.d.next = self.drop_s1.q.val();
        self.drop_s3.d.next = self.drop_s2.q.val();
        self.drop_ev.next = self.drop_s2.q.val() ^ self.drop_s3.q.val();
        self.stat.d.next = self.bad_pop.val() | self.drop_ev.val() | self.owed.q.val();
        self.owed.d.next = (self.bad_pop.val() & self.drop_ev.val()) | (self.owed.q.val() & (self.bad_pop.val() | self.drop_ev.val()));
        self.stat_rx_errors.next = self.stat.q.val();
        if self.reset.val() {
            self.drop_s1.d.next = false;
            self.drop_s2.d.next = false;
            self.drop_s3.d.next = false;
            self.stat.d.next = false;
            self.owed.d.next = false;
        }
    }
}

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum RgmiiTxState {
    /// TX_EN low: inter-frame gap, waiting for a frame, or discarding after an underrun.
    Idle,
    /// 7 x 0x55 and the SFD.
    Preamble,
    /// The frame's bytes.
    Data,
    /// After an underrun: TX_EN with TX_ER.
    Error,
}

#[derive(LogicBlock)]
pub struct RgmiiTxN<const N: usize, const NP1: usize> {
    // core domain
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tlast: Signal<In, Bit>,
    pub s_axis_tuser: Signal<In, Bit>,
    pub s_axis_tvalid: Signal<In, Bit>,
    pub s_axis_tready: Signal<Out, Bit>,
    /// Core-domain pulse per underrun.
    pub stat_underruns: Signal<Out, Bit>,
    // PHY transmit domain (125 MHz)
    pub tx_clock: Signal<In, Clock>,
    pub tx_reset: Signal<In, Bit>,
    pub txd_rise: Signal<Out, Bits<4>>,
    pub txd_fall: Signal<Out, Bits<4>>,
    pub ctl_rise: Signal<Out, Bit>,
    pub ctl_fall: Signal<Out, Bit>,
    /// [68:5] data, [4:2] the beat's last lane (its `tkeep` bits less one: beats are
    /// packed from lane 0), [1] tuser, [0] tlast. The lane, not `tkeep`: the transmit
    /// side ends a beat when its byte count equals it, a 3-bit compare, where
    /// `tkeep >> (cnt + 1) == 0` was a shifter; for a packed beat the same byte.
    fifo: CdcFifo<Bits<69>, N, NP1>,
    // core domain
    frames_in: DFF<Bits<16>>,
    frames_in_gray: DFF<Bits<16>>,
    und_s1: DFF<Bit>,
    und_s2: DFF<Bit>,
    und_s3: DFF<Bit>,
    // tx domain
    fin_s1: DFF<Bits<16>>,
    fin_s2: DFF<Bits<16>>,
    /// The core's frame count in binary, registered, and the two start conditions
    /// computed from it and from the fill level, registered: the Gray-to-binary fold,
    /// subtraction and compare were one path into the state register (ECPIX-5 board
    /// flow: 89.5 MHz against 125 MHz). One cycle older is harmless: they are read only
    /// in Idle, which a started frame leaves for 8 preamble cycles.
    fin_seen: DFF<Bits<16>>,
    complete_q: DFF<Bit>,
    half_q: DFF<Bit>,
    frames_out: DFF<Bits<16>>,
    state: DFF<RgmiiTxState>,
    /// Preamble byte, lane in the head beat, or error byte count.
    cnt: DFF<Bits<4>>,
    /// Idle byte times since TX_EN fell (saturating at 15).
    ifg: DFF<Bits<4>>,
    discard: DFF<Bit>,
    und_toggle: DFF<Bit>,
    out_byte: DFF<Bits<8>>,
    out_en: DFF<Bit>,
    out_fall: DFF<Bit>,
    /// The beat being sent, in flip-flops (tx domain), loaded from the FIFO's head as it
    /// empties: the decision to take the next beat reads only these and `cnt`, so the
    /// FIFO's RAM output no longer reaches its own read address through the end-of-beat
    /// test (8.8 ns at speed 8, 4.3 of it the block RAM's clock-to-out, against the PHY
    /// clock's 8 ns). The register refills in the cycle it empties, so a beat of one
    /// byte still goes out in one byte time.
    hd_valid: DFF<Bit>,
    hd_data: DFF<Bits<64>>,
    hd_lane: DFF<Bits<3>>,
    hd_last: DFF<Bit>,
    hd_user: DFF<Bit>,
    half: Constant<Bits<NP1>>,
    // core scratch
    fin_next: Signal<Local, Bits<16>>,
    entry: Signal<Local, Bits<69>>,
    /// The incoming beat's `tkeep` bits set, and its last lane (that count less one, 0
    /// when none).
    keep_count: Signal<Local, Bits<4>>,
    lane_in: Signal<Local, Bits<3>>,
    // tx scratch
    fin_a: Signal<Local, Bits<16>>,
    fin_b: Signal<Local, Bits<16>>,
    fin_c: Signal<Local, Bits<16>>,
    fin_bin: Signal<Local, Bits<16>>,
    avail: Signal<Local, Bits<16>>,
    complete: Signal<Local, Bit>,
    fout_next: Signal<Local, Bits<16>>,
    h_data_w: Signal<Local, Bits<69>>,
    h_lane_w: Signal<Local, Bits<69>>,
    h_data: Signal<Local, Bits<64>>,
    h_lane: Signal<Local, Bits<3>>,
    h_last: Signal<Local, Bit>,
    h_user: Signal<Local, Bit>,
    lane_shift: Signal<Local, Bits<7>>,
    lane_bytes: Signal<Local, Bits<64>>,
    /// The beat in `hd_*` leaves this cycle.
    pop_hd: Signal<Local, Bit>,
    o_en: Signal<Local, Bit>,
    o_er: Signal<Local, Bit>,
    o_byte: Signal<Local, Bits<8>>,
}

impl<const N: usize, const NP1: usize> Default for RgmiiTxN<N, NP1> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            s_axis_tuser: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            stat_underruns: Default::default(),
            tx_clock: Default::default(),
            tx_reset: Default::default(),
            txd_rise: Default::default(),
            txd_fall: Default::default(),
            ctl_rise: Default::default(),
            ctl_fall: Default::default(),
            fifo: Default::default(),
            frames_in: Default::default(),
            frames_in_gray: Default::default(),
            und_s1: Default::default(),
            und_s2: Default::default(),
            und_s3: Default::default(),
            fin_s1: Default::default(),
            fin_s2: Default::default(),
            fin_seen: Default::default(),
            complete_q: Default::default(),
            half_q: Default::default(),
            frames_out: Default::default(),
            state: Default::default(),
            cnt: Default::default(),
            ifg: Default::default(),
            discard: Default::default(),
            und_toggle: Default::default(),
            out_byte: Default::default(),
            out_en: Default::default(),
            out_fall: Default::default(),
            hd_valid: Default::default(),
            hd_data: Default::default(),
            hd_lane: Default::default(),
            hd_last: Default::default(),
            hd_user: Default::default(),
            half: Constant::new(Bits::<NP1>::from(1u64 << (N - 1))),
            fin_next: Default::default(),
            entry: Default::default(),
            keep_count: Default::default(),
            lane_in: Default::default(),
            fin_a: Default::default(),
            fin_b: Default::default(),
            fin_c: Default::default(),
            fin_bin: Default::default(),
            avail: Default::default(),
            complete: Default::default(),
            fout_next: Default::default(),
            h_data_w: Default::default(),
            h_lane_w: Default::default(),
            h_data: Default::default(),
            h_lane: Default::default(),
            h_last: Default::default(),
            h_user: Default::default(),
            lane_shift: Default::default(),
            lane_bytes: Default::default(),
            pop_hd: Default::default(),
            o_en: Default::default(),
            o_er: Default::default(),
            o_byte: Default::default(),
        }
    }
}

impl<const N: usize, const NP1: usize> Logic for RgmiiTxN<N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, frames_in, frames_in_gray, und_s1, und_s2, und_s3);
        dff_setup!(self, tx_clock, fin_s1, fin_s2, fin_seen, complete_q, half_q, frames_out, state, cnt, ifg, discard, und_toggle, out_byte, out_en, out_fall, hd_valid, hd_data, hd_lane, hd_last, hd_user);
        self.fifo.wr_clock.next = self.clock.val();
        self.fifo.wr_reset.next = self.reset.val();
        self.fifo.rd_clock.next = self.tx_clock.val();
        self.fifo.rd_reset.next = self.tx_reset.val();

        // ---- core domain: beats into the FIFO, frames counted as their last beat goes in ----
        self.s_axis_tready.next = !self.fifo.full.val();
        self.fifo.write.next = self.s_axis_tvalid.val();
        // the beat's bytes: packed from lane 0 (as MAC TX makes them), so its last lane
        // is their count less one (a beat with none sends lane 0, as before)
        self.keep_count.next = 0.into();
        for i in 0..8 {
            if self.s_axis_tkeep.val().get_bit(i) {
                self.keep_count.next = self.keep_count.val() + 1;
            }
        }
        self.lane_in.next = 0.into();
        if self.keep_count.val() != 0 {
            self.lane_in.next = bit_cast::<3, 4>(self.keep_count.val() - 1);
        }
        self.entry.next = (bit_cast::<69, 64>(self.s_axis_tdata.val()) << 5) | (bit_cast::<69, 3>(self.lane_in.val()) << 2);
        if self.s_axis_tlast.val() {
            self.entry.next = self.entry.val() | 1;
        }
        if self.s_axis_tuser.val() {
            self.entry.next = self.entry.val() | 2;
        }
        self.fifo.data_in.next = self.entry.val();
        self.fin_next.next = self.frames_in.q.val();
        if self.s_axis_tvalid.val() & !self.fifo.full.val() & self.s_axis_tlast.val() {
            self.fin_next.next = self.frames_in.q.val() + 1;
        }
        self.frames_in.d.next = self.fin_next.val();
        self.frames_in_gray.d.next = self.fin_next.val() ^ (self.fin_next.val() >> 1);
        self.und_s1.d.next = self.und_toggle.q.val();
        self.und_s2.d.next = self.und_s1.q.val();
        self.und_s3.d.next = self.und_s2.q.val();
        self.stat_underruns.next = self.und_s2.q.val() ^ self.und_s3.q.val();
        if self.reset.val() {
            self.frames_in.d.next = 0.into();
            self.frames_in_gray.d.next = 0.into();
            self.und_s1.d.next = false;
            self.und_s2.d.next = false;
            self.und_s3.d.next = false;
        }

        // ---- tx domain ----
        self.fin_s1.d.next = self.frames_in_gray.q.val();
        self.fin_s2.d.next = self.fin_s1.q.val();
        self.fin_a.next = self.fin_s2.q.val() ^ (self.fin_s2.q.val() >> 1);
        self.fin_b.next = self.fin_a.val() ^ (self.fin_a.val() >> 2);
        self.fin_c.next = self.fin_b.val() ^ (self.fin_b.val() >> 4);
        self.fin_bin.next = self.fin_c.val() ^ (self.fin_c.val() >> 8);
        // frames whose last beat is in, not yet started: a signed difference (it is -1
        // while a frame started on the half-full rule is still coming in)
        self.fin_seen.d.next = self.fin_bin.val();
        self.avail.next = self.fin_seen.q.val() - self.frames_out.q.val();
        self.complete.next = (self.avail.val() != 0) & !self.avail.val().get_bit(15);
        self.complete_q.d.next = self.complete.val();
        self.half_q.d.next = self.fifo.rd_fill.val() >= self.half.val();
        self.fout_next.next = self.frames_out.q.val() + 1;
        self.h_data_w.next = self.fifo.data_out.val() >> 5;
        self.h_lane_w.next = self.fifo.data_out.val() >> 2;
        self.h_data.next = bit_cast::<64, 69>(self.h_data_w.val());
        self.h_lane.next = bit_cast::<3, 69>(self.h_lane_w.val());
        self.h_last.next = self.fifo.data_out.val().get_bit(0);
        self.h_user.next = self.fifo.data_out.val().get_bit(1);
        self.lane_shift.next = bit_cast::<7, 4>(self.cnt.q.val()) << 3;
        self.lane_bytes.next = self.hd_data.q.val() >> self.lane_shift.val();
        self.o_en.next = false;
        self.o_er.next = false;
        self.o_byte.next = 0.into();
        self.pop_hd.next = false;
        match self.state.q.val() {
            RgmiiTxState::Idle => {
                if self.discard.q.val() {
                    // the rest of an underrun frame: drop beats up to its last
                    self.pop_hd.next = self.hd_valid.q.val();
                    if self.hd_valid.q.val() & self.hd_last.q.val() {
                        self.discard.d.next = false;
                    }
                } else if (self.ifg.q.val() >= 11) & self.hd_valid.q.val() & (self.complete_q.q.val() | self.half_q.q.val()) {
                    self.state.d.next = RgmiiTxState::Preamble;
                    self.cnt.d.next = 0.into();
                    self.frames_out.d.next = self.fout_next.val();
                }
            }
            RgmiiTxState::Preamble => {
                self.o_en.next = true;
                self.o_byte.next = 0x55.into();
                self.cnt.d.next = self.cnt.q.val() + 1;
                if self.cnt.q.val() == 7 {
                    self.o_byte.next = 0xd5.into();
                    self.state.d.next = RgmiiTxState::Data;
                    self.cnt.d.next = 0.into();
                }
            }
            RgmiiTxState::Data => {
                self.o_en.next = true;
                if self.hd_valid.q.val() {
                    self.o_byte.next = bit_cast::<8, 64>(self.lane_bytes.val());
                    self.o_er.next = self.hd_user.q.val();
                    self.cnt.d.next = self.cnt.q.val() + 1;
                    if self.cnt.q.val() == bit_cast::<4, 3>(self.hd_lane.q.val()) {
                        // last byte of this beat
                        self.pop_hd.next = true;
                        self.cnt.d.next = 0.into();
                        if self.hd_last.q.val() {
                            self.state.d.next = RgmiiTxState::Idle;
                        }
                    }
                } else {
                    // underrun
                    self.o_er.next = true;
                    self.state.d.next = RgmiiTxState::Error;
                    self.cnt.d.next = 0.into();
                    self.und_toggle.d.next = !self.und_toggle.q.val();
                }
            }
            RgmiiTxState::Error => {
                self.o_en.next = true;
                self.o_er.next = true;
                self.cnt.d.next = self.cnt.q.val() + 1;
                if self.cnt.q.val() == 3 {
                    self.state.d.next = RgmiiTxState::Idle;
                    self.discard.d.next = true;
                }
            }
        }
        // the head register empties as its beat leaves and refills from the FIFO's head
        self.fifo.read.next = !self.hd_valid.q.val() | self.pop_hd.val();
        if self.pop_hd.val() {
            self.hd_valid.d.next = false;
        }
        if (!self.hd_valid.q.val() | self.pop_hd.val()) & self.fifo.valid.val() {
            self.hd_valid.d.next = true;
            self.hd_data.d.next = self.h_data.val();
            self.hd_lane.d.next = self.h_lane.val();
            self.hd_last.d.next = self.h_last.val();
            self.hd_user.d.next = self.h_user.val();
        }
        if self.o_en.val() {
            self.ifg.d.next = 0.into();
        } else if self.ifg.q.val() != 15 {
            self.ifg.d.next = self.ifg.q.val() + 1;
        }
        self.out_byte.d.next = self.o_byte.val();
        self.out_en.d.next = self.o_en.val();
        self.out_fall.d.next = self.o_en.val() ^ self.o_er.val();
        self.txd_rise.next = self.out_byte.q.val().get_bits::<4>(0);
        self.txd_fall.next = self.out_byte.q.val().get_bits::<4>(4);
        self.ctl_rise.next = self.out_en.q.val();
        self.ctl_fall.next = self.out_fall.q.val();
        if self.tx_reset.val() {
            self.fin_s1.d.next = 0.into();
            self.fin_s2.d.next = 0.into();
            self.fin_seen.d.next = 0.into();
            self.complete_q.d.next = false;
            self.half_q.d.next = false;
            self.frames_out.d.next = 0.into();
            self.state.d.next = RgmiiTxState::Idle;
            self.cnt.d.next = 0.into();
            self.ifg.d.next = 0.into();
            self.discard.d.next = false;
            self.und_toggle.d.next = false;
            self.out_byte.d.next = 0.into();
            self.out_en.d.next = false;
            self.out_fall.d.next = false;
            self.hd_valid.d.next = false;
        }
    }
}
