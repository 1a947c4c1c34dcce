//! RX parser: Ethernet, up to two VLAN tags, IPv4/IPv6, TCP/UDP (docs/rx-classification.md §2).
//!
//! Every header field the classifier needs starts at an offset `≡ 2 (mod 4)` (the L3
//! offset is 14, 18 or 22 and everything after it is a multiple of 4 further), so the
//! parser looks at the frame as 32-bit words `q` = bytes `4q+2 .. 4q+6`: each beat `b`
//! completes word `2b-1` (the previous beat's lanes 6,7 and lanes 0,1) and word `2b`
//! (lanes 2..5). It keeps
//! * the destination address (beat 0) and the three candidate EtherTypes (bytes 12, 16, 20);
//! * words 3..14 (bytes 14..62) at fixed places: the IP header words for any L3 offset;
//! * the L4 words `q4`, `q4+1`, `q4+3` (ports, UDP length/checksum, TCP data offset),
//!   whose position is known from beat 4 on (it depends on bytes < 32 only).
//!
//! The header window closes at beat 12 (the TCP data offset of IPv4 with 40 option bytes
//! behind two tags is byte 94) or at the frame's last beat, whichever comes first. Two
//! registered stages then select the IP words for the L3 offset (S1) and run the checks
//! (S2); the record stays on the outputs until `rec_take`. A new window may not close
//! while a record is pending (`pending`): the classifier holds the input for that.
//!
//! Frame length: a frame that ends inside the window is judged on its real length. For a
//! longer frame the IP length checks (`l3 + total_length ≤ len`, `l3 + 40 + payload ≤ len`)
//! are assumed to hold: the per-frame metadata must be known before the frame's first beat
//! leaves, long before its end. The checksum block repeats the check on the real length
//! and withholds both verdicts when it fails, as the spec asks.
//!
//! Words are kept in network byte order (first byte in bits 31:24).

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RxParser {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // the beats the classifier accepts
    pub fire: Signal<In, Bit>,
    pub data: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<4>>,
    pub last: Signal<In, Bit>,
    // flow control
    /// The next beat closes the header window whatever it is (it is beat 12).
    pub window_end: Signal<Out, Bit>,
    /// The next beat closes the header window if it is the frame's last one.
    pub window_open: Signal<Out, Bit>,
    /// A record is in the stages or waiting: the window must not close now.
    pub pending: Signal<Out, Bit>,
    // the record of the last closed window, held until taken
    pub rec_valid: Signal<Out, Bit>,
    pub rec_take: Signal<In, Bit>,
    /// Destination address, byte 0 in bits 7:0 (the MAC_FILTER_LO layout).
    pub dst: Signal<Out, Bits<48>>,
    /// The frame has 6 bytes (a destination).
    pub has_dst: Signal<Out, Bit>,
    pub ptype: Signal<Out, Bits<16>>,
    /// Toeplitz input, 8 bytes per word, first byte in bits 63:56: IPv4 src, dst, ports;
    /// IPv6 src, dst, ports (ports always filled in; RSS drops them when its type has none).
    pub tuple: [Signal<Out, Bits<64>>; 5],
    /// Well-formed IPv4 / IPv6 header.
    pub v4ok: Signal<Out, Bit>,
    pub v6ok: Signal<Out, Bit>,
    /// Well-formed TCP / UDP header over a well-formed unfragmented IP header.
    pub tcp_ok: Signal<Out, Bit>,
    pub udp_ok: Signal<Out, Bit>,
    // checksum information (byte offsets from the frame start)
    pub l3: Signal<Out, Bits<17>>,
    pub l4: Signal<Out, Bits<17>>,
    /// `l4 + l4_len`, also the end of the IP packet.
    pub l4end: Signal<Out, Bits<17>>,
    /// Pseudo-header addresses: `[addr_start, addr_end)`.
    pub addr_start: Signal<Out, Bits<17>>,
    pub addr_end: Signal<Out, Bits<17>>,
    /// Protocol + L4 length (the rest of the pseudo-header).
    pub pconst: Signal<Out, Bits<17>>,
    /// Check the IPv4 header checksum / the TCP/UDP checksum.
    pub chk3: Signal<Out, Bit>,
    pub chk4: Signal<Out, Bit>,
    /// UDP with checksum field 0.
    pub udp0: Signal<Out, Bit>,
    // capture
    idx: DFF<Bits<4>>,
    prev: DFF<Bits<16>>,
    c_dst: DFF<Bits<48>>,
    et0: DFF<Bits<16>>,
    et1: DFF<Bits<16>>,
    et2: DFF<Bits<16>>,
    /// Words 3, 5, .. 13 (odd: completed at beats 2..7 from lanes 6,7 + 0,1).
    wa: [DFF<Bits<32>>; 6],
    /// Words 4, 6, .. 14 (even: lanes 2..5 of beats 2..7).
    wb: [DFF<Bits<32>>; 6],
    lw0: DFF<Bits<32>>,
    lw1: DFF<Bits<32>>,
    lw3: DFF<Bits<32>>,
    flen: DFF<Bits<7>>,
    /// The frame's bytes after l3 for 0, 1 and 2 tags (`flen` less 14, 18, 22), and 40
    /// fewer for IPv6 (less 54, 58, 62), registered with `flen` (its beat count x 8 plus
    /// the beat's bytes less the constant): stage 1's `s1_in4` / `s1_in6` compares start
    /// from flip-flops, not from `flen` through a subtract (6.53 ns at speed 8).
    room_q: [DFF<Bits<9>>; 3],
    room6_q: [DFF<Bits<9>>; 3],
    ended: DFF<Bit>,
    /// Where the L4 words are, registered a cycle after the bytes that decide it (which
    /// are in by beat 2 untagged, 3 behind two tags: a cycle before the first L4 word
    /// can come), as the `qb` (= 2 x beat) on which each word completes as `qa`, and as
    /// `qb` itself: the capture compares `qb` against registers, with no adder between.
    at_lw0_b: DFF<Bits<5>>,
    at_lw1_a: DFF<Bits<5>>,
    at_lw1_b: DFF<Bits<5>>,
    at_lw3_a: DFF<Bits<5>>,
    at_lw3_b: DFF<Bits<5>>,
    // stage 1
    v1: DFF<Bit>,
    h: [DFF<Bits<32>>; 10],
    s1_dst: DFF<Bits<48>>,
    s1_lw0: DFF<Bits<32>>,
    s1_lw1: DFF<Bits<32>>,
    s1_lw3: DFF<Bits<32>>,
    s1_lenv: DFF<Bits<17>>,
    s1_ended: DFF<Bit>,
    s1_tags: DFF<Bits<2>>,
    s1_trunc: DFF<Bit>,
    /// The EtherType after the tags, as stage 1 chooses it (judged there: `s1_v4`, `s1_v6`).
    et_sel: Signal<Local, Bits<16>>,
    s1_l3: DFF<Bits<17>>,
    /// Stage 2's length sums, made as the header words load and always those of the
    /// `h[0]`, `h[1]` and `s1_l3` beside them, so stage 2's checks compare registers
    /// instead of adding first (its packet-type decision was the parser's critical path,
    /// 8.1 ns at speed 8): the IPv4 total length less the header's (`hl <= total` is its
    /// sign bit clear).
    s1_l4len4: DFF<Bits<17>>,
    /// The IPv4 / IPv6 packet ends within the frame once the frame has ended: its length
    /// (total length; 40 + payload length) at most the frame's bytes after `s1_l3`
    /// (`room`: the frame is at most 127 bytes long here), a 7-bit compare and a zero
    /// test made as the words load, where stage 2 compared the packet's end with the
    /// frame's length (`l3 + len <= lenv`: the parser's worst path at speed 8, 6.4 ns).
    s1_in4: DFF<Bit>,
    s1_in6: DFF<Bit>,
    /// The frame holds the fixed IPv4 (20 bytes) or IPv6 (40 bytes) header after `s1_l3`:
    /// compares of the same next values, for the same reason.
    s1_fit4: DFF<Bit>,
    s1_fit6: DFF<Bit>,
    /// Stage 2's TCP and UDP length checks against the IPv6 payload length, made as
    /// stage 1 loads the words they read: at least 20, at least 8, not zero, the TCP data
    /// offset within it, the UDP length equal to it. Stage 2 then decides from flip-flops
    /// (its worst path at speed 8 was the payload length's compares → the bad-packet bit
    /// → `r_ptype`). The IPv4 L4 length is a difference (`s1_l4len4`): its checks made
    /// here would follow the subtraction (7.2 ns); stage 2 makes them on its narrow bits.
    s1_p6_ge20: DFF<Bit>,
    s1_p6_ge8: DFF<Bit>,
    s1_p6_nz: DFF<Bit>,
    s1_p6_dle: DFF<Bit>,
    s1_p6_ueq: DFF<Bit>,
    /// The frame is IPv4 / IPv6 (its EtherType after the tags, and not truncated before
    /// it), judged in stage 1 as the EtherType is chosen (`et_sel`) and `s1_trunc` set:
    /// the 16-bit EtherType compares of a registered EtherType were in front of every
    /// check of stage 2 (with the fits above alone, its worst path started there).
    s1_v4: DFF<Bit>,
    s1_v6: DFF<Bit>,
    n_total: Signal<Local, Bits<17>>,
    n_hl: Signal<Local, Bits<17>>,
    // stage 2 = the record
    v2: DFF<Bit>,
    r_valid: DFF<Bit>,
    r_dst: DFF<Bits<48>>,
    r_has_dst: DFF<Bit>,
    r_ptype: DFF<Bits<16>>,
    r_tuple: [DFF<Bits<64>>; 5],
    r_v4ok: DFF<Bit>,
    r_v6ok: DFF<Bit>,
    r_tcp_ok: DFF<Bit>,
    r_udp_ok: DFF<Bit>,
    r_l3: DFF<Bits<17>>,
    r_l4: DFF<Bits<17>>,
    r_l4end: DFF<Bits<17>>,
    r_as: DFF<Bits<17>>,
    r_ae: DFF<Bits<17>>,
    r_pconst: DFF<Bits<17>>,
    r_chk3: DFF<Bit>,
    r_chk4: DFF<Bit>,
    r_udp0: DFF<Bit>,
    /// `idx == 12` and `idx != 13` as flip-flops, their next values chosen by the same
    /// `fire` and `last` that move `idx` (`idx + 1 == 12` is `idx == 11`): the
    /// classifier's input ready reads them, and a compare of `idx` in front of it was
    /// most of its input handshake's path (6.7 ns at speed 8).
    at12: DFF<Bit>,
    open_q: DFF<Bit>,
    /// "The window is open at beat 4 or later" (`open & idx >= 4`) as a flip-flop, moved
    /// by the same `fire` and `last` as `idx`: the L4 word captures' enables read it,
    /// one LUT level fewer in front of 96 enables (6.46 ns at speed 8 through `idx`).
    l4_open: DFF<Bit>,
    // capture scratch
    lane: [Signal<Local, Bits<32>>; 8],
    word_a: Signal<Local, Bits<32>>,
    word_b: Signal<Local, Bits<32>>,
    open: Signal<Local, Bit>,
    decide: Signal<Local, Bit>,
    qb: Signal<Local, Bits<5>>,
    cap_tags: Signal<Local, Bits<2>>,
    /// The L4 word index is `3 + tags + off`, `off` the IHL or 10 (IPv6): per tag count t
    /// its `off_t` (from the word where that IHL would be), and each position `k` as
    /// `cand[3 * k + t] = cand_base[3 * k + t] + off_t` with `cand_base = 3 + k + t`.
    cap_off_t: [Signal<Local, Bits<5>>; 3],
    cand: [Signal<Local, Bits<5>>; 15],
    cand_base: [Constant<Bits<5>>; 15],
    et0_in: Signal<Local, Bits<16>>,
    et1_in: Signal<Local, Bits<16>>,
    et2_in: Signal<Local, Bits<16>>,
    /// What each EtherType candidate is, judged as it is captured (a VLAN TPID; IPv6),
    /// so the L4 positions start from flip-flops.
    tpid0_c: DFF<Bit>,
    tpid1_c: DFF<Bit>,
    v6_0_c: DFF<Bit>,
    v6_1_c: DFF<Bit>,
    v6_2_c: DFF<Bit>,
    beat_k: [Constant<Bits<4>>; 6],
    // stage 1 scratch
    lenv: Signal<Local, Bits<17>>,
    // stage 2 scratch
    ver: Signal<Local, Bits<4>>,
    ihl: Signal<Local, Bits<4>>,
    hl: Signal<Local, Bits<17>>,
    plen: Signal<Local, Bits<17>>,
    nh: Signal<Local, Bits<8>>,
    proto: Signal<Local, Bits<8>>,
    is_v4: Signal<Local, Bit>,
    is_v6: Signal<Local, Bit>,
    ok4: Signal<Local, Bit>,
    ok6: Signal<Local, Bit>,
    not_ended: Signal<Local, Bit>,
    frag: Signal<Local, Bit>,
    ext: Signal<Local, Bit>,
    l4go: Signal<Local, Bit>,
    is_tcp: Signal<Local, Bit>,
    is_udp: Signal<Local, Bit>,
    okt: Signal<Local, Bit>,
    oku: Signal<Local, Bit>,
    l4_off: Signal<Local, Bits<17>>,
    l4len: Signal<Local, Bits<17>>,
    doff: Signal<Local, Bits<17>>,
    bad: Signal<Local, Bit>,
    n_plen: Signal<Local, Bits<17>>,
    room: Signal<Local, Bits<9>>,
    room6: Signal<Local, Bits<9>>,
    hw0: Signal<Local, Bits<16>>,
    hw1: Signal<Local, Bits<16>>,
    in4_t: [Signal<Local, Bit>; 3],
    in6_t: [Signal<Local, Bit>; 3],
    /// l3 for 0, 1 and 2 tags, and l3 + 40 (IPv6's fixed header after it)
    l3_of: [Constant<Bits<9>>; 3],
    l3_of6: [Constant<Bits<9>>; 3],
    udplen: Signal<Local, Bits<17>>,
    n_doff: Signal<Local, Bits<6>>,
    n_udplen: Signal<Local, Bits<17>>,
    pt: Signal<Local, Bits<16>>,
}

impl Default for RxParser {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            fire: Default::default(),
            data: Default::default(),
            len: Default::default(),
            last: Default::default(),
            window_end: Default::default(),
            window_open: Default::default(),
            pending: Default::default(),
            rec_valid: Default::default(),
            rec_take: Default::default(),
            dst: Default::default(),
            has_dst: Default::default(),
            ptype: Default::default(),
            tuple: Default::default(),
            v4ok: Default::default(),
            v6ok: Default::default(),
            tcp_ok: Default::default(),
            udp_ok: Default::default(),
            l3: Default::default(),
            l4: Default::default(),
            l4end: Default::default(),
            addr_start: Default::default(),
            addr_end: Default::default(),
            pconst: Default::default(),
            chk3: Default::default(),
            chk4: Default::default(),
            udp0: Default::default(),
            idx: Default::default(),
            prev: Default::default(),
            c_dst: Default::default(),
            et0: Default::default(),
            et1: Default::default(),
            et2: Default::default(),
            wa: Default::default(),
            wb: Default::default(),
            lw0: Default::default(),
            lw1: Default::default(),
            lw3: Default::default(),
            flen: Default::default(),
            room_q: Default::default(),
            room6_q: Default::default(),
            ended: Default::default(),
            v1: Default::default(),
            h: Default::default(),
            s1_dst: Default::default(),
            s1_lw0: Default::default(),
            s1_lw1: Default::default(),
            s1_lw3: Default::default(),
            s1_lenv: Default::default(),
            s1_ended: Default::default(),
            s1_tags: Default::default(),
            s1_trunc: Default::default(),
            et_sel: Default::default(),
            s1_l3: Default::default(),
            s1_l4len4: Default::default(),
            s1_in4: Default::default(),
            s1_in6: Default::default(),
            s1_fit4: Default::default(),
            s1_fit6: Default::default(),
            s1_p6_ge20: Default::default(),
            s1_p6_ge8: Default::default(),
            s1_p6_nz: Default::default(),
            s1_p6_dle: Default::default(),
            s1_p6_ueq: Default::default(),
            s1_v4: Default::default(),
            s1_v6: Default::default(),
            n_total: Default::default(),
            n_hl: Default::default(),
            v2: Default::default(),
            r_valid: Default::default(),
            r_dst: Default::default(),
            r_has_dst: Default::default(),
            r_ptype: Default::default(),
            r_tuple: Default::default(),
            r_v4ok: Default::default(),
            r_v6ok: Default::default(),
            r_tcp_ok: Default::default(),
            r_udp_ok: Default::default(),
            r_l3: Default::default(),
            r_l4: Default::default(),
            r_l4end: Default::default(),
            r_as: Default::default(),
            r_ae: Default::default(),
            r_pconst: Default::default(),
            r_chk3: Default::default(),
            r_chk4: Default::default(),
            r_udp0: Default::default(),
            lane: Default::default(),
            word_a: Default::default(),
            word_b: Default::default(),
            open: Default::default(),
            at12: Default::default(),
            open_q: Default::default(),
            l4_open: Default::default(),
            decide: Default::default(),
            qb: Default::default(),
            cap_tags: Default::default(),
            cap_off_t: Default::default(),
            cand: Default::default(),
            cand_base: std::array::from_fn(|i| Constant::new(Bits::<5>::from((3 + i / 3 + i % 3) as u64))),
            et0_in: Default::default(),
            et1_in: Default::default(),
            et2_in: Default::default(),
            tpid0_c: Default::default(),
            tpid1_c: Default::default(),
            v6_0_c: Default::default(),
            v6_1_c: Default::default(),
            v6_2_c: Default::default(),
            at_lw0_b: Default::default(),
            at_lw1_a: Default::default(),
            at_lw1_b: Default::default(),
            at_lw3_a: Default::default(),
            at_lw3_b: Default::default(),
            beat_k: std::array::from_fn(|k| Constant::new(Bits::<4>::from(k as u64 + 2))),
            lenv: Default::default(),
            ver: Default::default(),
            ihl: Default::default(),
            hl: Default::default(),
            plen: Default::default(),
            nh: Default::default(),
            proto: Default::default(),
            is_v4: Default::default(),
            is_v6: Default::default(),
            ok4: Default::default(),
            ok6: Default::default(),
            not_ended: Default::default(),
            frag: Default::default(),
            ext: Default::default(),
            l4go: Default::default(),
            is_tcp: Default::default(),
            is_udp: Default::default(),
            okt: Default::default(),
            oku: Default::default(),
            l4_off: Default::default(),
            l4len: Default::default(),
            doff: Default::default(),
            bad: Default::default(),
            n_plen: Default::default(),
            room: Default::default(),
            room6: Default::default(),
            hw0: Default::default(),
            hw1: Default::default(),
            in4_t: Default::default(),
            in6_t: Default::default(),
            l3_of: std::array::from_fn(|t| Constant::new(Bits::<9>::from(14 + 4 * t as u64))),
            l3_of6: std::array::from_fn(|t| Constant::new(Bits::<9>::from(54 + 4 * t as u64))),
            udplen: Default::default(),
            n_doff: Default::default(),
            n_udplen: Default::default(),
            pt: Default::default(),
        }
    }
}

impl Logic for RxParser {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, idx, at12, open_q, l4_open, prev, c_dst, et0, et1, et2, lw0, lw1, lw3, flen, ended, at_lw0_b, at_lw1_a, at_lw1_b, at_lw3_a, at_lw3_b, tpid0_c, tpid1_c, v6_0_c, v6_1_c, v6_2_c, v1, s1_dst, s1_lw0, s1_lw1, s1_lw3, s1_lenv, s1_ended, s1_tags, s1_trunc, s1_l3, s1_l4len4, s1_in4, s1_in6, s1_fit4, s1_fit6, s1_p6_ge20, s1_p6_ge8, s1_p6_nz, s1_p6_dle, s1_p6_ueq, s1_v4, s1_v6, v2, r_valid, r_dst, r_has_dst, r_ptype, r_v4ok, r_v6ok, r_tcp_ok, r_udp_ok, r_l3, r_l4, r_l4end, r_as, r_ae, r_pconst, r_chk3, r_chk4, r_udp0);
        for k in 0..6 {
            self.wa[k].clock.next = self.clock.val();
            self.wa[k].d.next = self.wa[k].q.val();
            self.wb[k].clock.next = self.clock.val();
            self.wb[k].d.next = self.wb[k].q.val();
        }
        for t in 0..3 {
            self.room_q[t].clock.next = self.clock.val();
            self.room_q[t].d.next = self.room_q[t].q.val();
            self.room6_q[t].clock.next = self.clock.val();
            self.room6_q[t].d.next = self.room6_q[t].q.val();
        }
        for k in 0..10 {
            self.h[k].clock.next = self.clock.val();
            self.h[k].d.next = self.h[k].q.val();
        }
        for k in 0..5 {
            self.r_tuple[k].clock.next = self.clock.val();
            self.r_tuple[k].d.next = self.r_tuple[k].q.val();
        }
        // ---- capture ----
        self.lane[0].next = bit_cast::<32, 8>(self.data.val().get_bits::<8>(0));
        self.lane[1].next = bit_cast::<32, 8>(self.data.val().get_bits::<8>(8));
        self.lane[2].next = bit_cast::<32, 8>(self.data.val().get_bits::<8>(16));
        self.lane[3].next = bit_cast::<32, 8>(self.data.val().get_bits::<8>(24));
        self.lane[4].next = bit_cast::<32, 8>(self.data.val().get_bits::<8>(32));
        self.lane[5].next = bit_cast::<32, 8>(self.data.val().get_bits::<8>(40));
        self.lane[6].next = bit_cast::<32, 8>(self.data.val().get_bits::<8>(48));
        self.lane[7].next = bit_cast::<32, 8>(self.data.val().get_bits::<8>(56));
        self.word_a.next = (bit_cast::<32, 16>(self.prev.q.val()) << 16) | (self.lane[0].val() << 8) | self.lane[1].val();
        self.word_b.next = (self.lane[2].val() << 24) | (self.lane[3].val() << 16) | (self.lane[4].val() << 8) | self.lane[5].val();
        self.open.next = self.open_q.q.val();
        self.window_end.next = self.at12.q.val();
        self.window_open.next = self.open.val();
        self.decide.next = self.fire.val() & self.open.val() & (self.last.val() | self.at12.q.val());
        self.qb.next = bit_cast::<5, 4>(self.idx.q.val()) + bit_cast::<5, 4>(self.idx.q.val());
        // where the L4 words are (meaningful from beat 4 on)
        self.cap_tags.next = 0.into();
        if self.tpid0_c.q.val() {
            self.cap_tags.next = 1.into();
            if self.tpid1_c.q.val() {
                self.cap_tags.next = 2.into();
            }
        }
        // the L4 words' positions for each tag count t, added in parallel (`cand[3 * k + t]`
        // = 3 + k + t + off_t), the tag count choosing among them last: the tags' decode
        // then meets a mux, not the add behind it
        self.cap_off_t[0].next = bit_cast::<5, 4>(self.wa[0].q.val().get_bits::<4>(24));
        if self.v6_0_c.q.val() {
            self.cap_off_t[0].next = 10.into();
        }
        self.cap_off_t[1].next = bit_cast::<5, 4>(self.wb[0].q.val().get_bits::<4>(24));
        if self.v6_1_c.q.val() {
            self.cap_off_t[1].next = 10.into();
        }
        self.cap_off_t[2].next = bit_cast::<5, 4>(self.wa[1].q.val().get_bits::<4>(24));
        if self.v6_2_c.q.val() {
            self.cap_off_t[2].next = 10.into();
        }
        for k in 0..5 {
            for t in 0..3 {
                self.cand[3 * k + t].next = self.cap_off_t[t].val() + self.cand_base[3 * k + t].val();
            }
        }
        // word q (q4, q4 + 1, q4 + 3) completes as qb on the beat whose qb is q, as qa
        // on the beat whose qb is q + 1
        // (word q4 as qa and word q4 + 1 as qb complete on the same beat: `at_lw1_b`)
        self.at_lw0_b.d.next = self.cand[0].val();
        self.at_lw1_b.d.next = self.cand[3].val();
        self.at_lw1_a.d.next = self.cand[6].val();
        self.at_lw3_b.d.next = self.cand[9].val();
        self.at_lw3_a.d.next = self.cand[12].val();
        if self.cap_tags.val() == 1 {
            self.at_lw0_b.d.next = self.cand[1].val();
            self.at_lw1_b.d.next = self.cand[4].val();
            self.at_lw1_a.d.next = self.cand[7].val();
            self.at_lw3_b.d.next = self.cand[10].val();
            self.at_lw3_a.d.next = self.cand[13].val();
        } else if self.cap_tags.val() == 2 {
            self.at_lw0_b.d.next = self.cand[2].val();
            self.at_lw1_b.d.next = self.cand[5].val();
            self.at_lw1_a.d.next = self.cand[8].val();
            self.at_lw3_b.d.next = self.cand[11].val();
            self.at_lw3_a.d.next = self.cand[14].val();
        }
        self.et0_in.next = (bit_cast::<16, 8>(self.data.val().get_bits::<8>(32)) << 8) | bit_cast::<16, 8>(self.data.val().get_bits::<8>(40));
        self.et1_in.next = (bit_cast::<16, 8>(self.data.val().get_bits::<8>(0)) << 8) | bit_cast::<16, 8>(self.data.val().get_bits::<8>(8));
        self.et2_in.next = self.et0_in.val();
        // The word captures need no `fire`: `idx` moves only when a beat is taken, so the
        // capture made as beat k is taken is the last one at position k, and whatever was
        // caught there before (while the beat waited, or from an idle input) is overwritten.
        // Only `prev`, `idx` and the window's end wait for `fire`: that keeps the input
        // handshake off several hundred register enables.
        if self.fire.val() {
            self.prev.d.next = (bit_cast::<16, 8>(self.data.val().get_bits::<8>(48)) << 8) | bit_cast::<16, 8>(self.data.val().get_bits::<8>(56));
        }
        if self.idx.q.val() == 0 {
            self.c_dst.d.next = self.data.val().get_bits::<48>(0);
        }
        if self.idx.q.val() == 1 {
            self.et0.d.next = self.et0_in.val();
            self.tpid0_c.d.next = (self.et0_in.val() == 0x8100) | (self.et0_in.val() == 0x88a8);
            self.v6_0_c.d.next = self.et0_in.val() == 0x86dd;
        }
        if self.idx.q.val() == 2 {
            self.et1.d.next = self.et1_in.val();
            self.et2.d.next = self.et2_in.val();
            self.tpid1_c.d.next = (self.et1_in.val() == 0x8100) | (self.et1_in.val() == 0x88a8);
            self.v6_1_c.d.next = self.et1_in.val() == 0x86dd;
            self.v6_2_c.d.next = self.et2_in.val() == 0x86dd;
        }
        for k in 0..6 {
            if self.idx.q.val() == self.beat_k[k].val() {
                self.wa[k].d.next = self.word_a.val();
                self.wb[k].d.next = self.word_b.val();
            }
        }
        if self.l4_open.q.val() {
            if self.qb.val() == self.at_lw1_b.q.val() {
                self.lw0.d.next = self.word_a.val();
            }
            if self.qb.val() == self.at_lw0_b.q.val() {
                self.lw0.d.next = self.word_b.val();
            }
            if self.qb.val() == self.at_lw1_a.q.val() {
                self.lw1.d.next = self.word_a.val();
            }
            if self.qb.val() == self.at_lw1_b.q.val() {
                self.lw1.d.next = self.word_b.val();
            }
            if self.qb.val() == self.at_lw3_a.q.val() {
                self.lw3.d.next = self.word_a.val();
            }
            if self.qb.val() == self.at_lw3_b.q.val() {
                self.lw3.d.next = self.word_b.val();
            }
        }
        if self.fire.val() {
            if self.decide.val() {
                self.flen.d.next = (bit_cast::<7, 4>(self.idx.q.val()) << 3) + bit_cast::<7, 4>(self.len.val());
                for t in 0..3 {
                    self.room_q[t].d.next = (bit_cast::<9, 4>(self.idx.q.val()) << 3) + (bit_cast::<9, 4>(self.len.val()) - self.l3_of[t].val());
                    self.room6_q[t].d.next = (bit_cast::<9, 4>(self.idx.q.val()) << 3) + (bit_cast::<9, 4>(self.len.val()) - self.l3_of6[t].val());
                }
                self.ended.d.next = self.last.val();
            }
            if self.last.val() {
                self.idx.d.next = 0.into();
            } else if self.open.val() {
                self.idx.d.next = self.idx.q.val() + 1;
            }
            self.at12.d.next = !self.last.val() & (self.idx.q.val() == 11);
            self.open_q.d.next = self.last.val() | (self.open_q.q.val() & !self.at12.q.val());
            // open_q's and idx's next values: open after the beat and idx + 1 >= 4
            self.l4_open.d.next = !self.last.val() & self.open_q.q.val() & !self.at12.q.val() & (self.idx.q.val() >= 3);
        }
        self.v1.d.next = self.decide.val();
        // ---- stage 1: Ethernet and VLAN, select the IP header words ----
        self.lenv.next = 127.into();
        if self.ended.q.val() {
            self.lenv.next = bit_cast::<17, 7>(self.flen.q.val());
        }
        self.et_sel.next = self.et0.q.val();
        // for `s1_in4` / `s1_in6`, judged for each tag count side by side and chosen by the
        // tags after: the frame's bytes after l3 (its length less 14, 18 or 22; 40 fewer
        // for IPv6's fixed header) against the IPv4 total length (bits 15:0 of the word
        // `h[0]` takes) and the IPv6 payload length (bits 31:16 of `h[1]`'s). Only a frame
        // that has ended asks, so its length is `flen`, not `lenv`'s mux; the subtracts are
        // made with `flen` (`room_q`), and no tag mux or hold mux stands in front of the
        // compare.
        for t in 0..3 {
            self.room.next = self.room_q[t].q.val();
            self.room6.next = self.room6_q[t].q.val();
            self.hw0.next = self.wa[(t + 1) / 2].q.val().get_bits::<16>(0);
            self.hw1.next = self.wb[t / 2].q.val().get_bits::<16>(16);
            if t == 1 {
                self.hw0.next = self.wb[0].q.val().get_bits::<16>(0);
                self.hw1.next = self.wa[1].q.val().get_bits::<16>(16);
            }
            // (`room` is at most 113: its bit 7 is clear unless it is negative, bit 8)
            self.in4_t[t].next = !self.room.val().get_bit(8) & (self.hw0.val().get_bits::<9>(7) == 0)
                & (bit_cast::<8, 7>(self.hw0.val().get_bits::<7>(0)) <= self.room.val().get_bits::<8>(0));
            self.in6_t[t].next = !self.room6.val().get_bit(8) & (self.hw1.val().get_bits::<9>(7) == 0)
                & (bit_cast::<8, 7>(self.hw1.val().get_bits::<7>(0)) <= self.room6.val().get_bits::<8>(0));
        }
        if self.v1.q.val() {
            self.s1_dst.d.next = self.c_dst.q.val();
            self.s1_lw0.d.next = self.lw0.q.val();
            self.s1_lw1.d.next = self.lw1.q.val();
            self.s1_lw3.d.next = self.lw3.q.val();
            self.s1_lenv.d.next = self.lenv.val();
            self.s1_ended.d.next = self.ended.q.val();
            self.s1_tags.d.next = self.cap_tags.val();
            self.s1_trunc.d.next = false;
            if self.lenv.val() < 14 {
                self.s1_tags.d.next = 0.into();
                self.s1_trunc.d.next = true;
            } else if self.tpid0_c.q.val() & (self.lenv.val() < 18) {
                self.s1_tags.d.next = 1.into();
                self.s1_trunc.d.next = true;
            } else if self.tpid0_c.q.val() & self.tpid1_c.q.val() & (self.lenv.val() < 22) {
                self.s1_trunc.d.next = true;
            }
            self.s1_in4.d.next = self.in4_t[2].val();
            self.s1_in6.d.next = self.in6_t[2].val();
            if self.cap_tags.val() == 0 {
                self.s1_in4.d.next = self.in4_t[0].val();
                self.s1_in6.d.next = self.in6_t[0].val();
            } else if self.cap_tags.val() == 1 {
                self.s1_in4.d.next = self.in4_t[1].val();
                self.s1_in6.d.next = self.in6_t[1].val();
            }
            if self.cap_tags.val() == 0 {
                self.et_sel.next = self.et0.q.val();
                self.s1_l3.d.next = 14.into();
                for m in 0..5 {
                    self.h[2 * m].d.next = self.wa[m].q.val();
                    self.h[2 * m + 1].d.next = self.wb[m].q.val();
                }
            } else if self.cap_tags.val() == 1 {
                self.et_sel.next = self.et1.q.val();
                self.s1_l3.d.next = 18.into();
                for m in 0..5 {
                    self.h[2 * m].d.next = self.wb[m].q.val();
                    self.h[2 * m + 1].d.next = self.wa[m + 1].q.val();
                }
            } else {
                self.et_sel.next = self.et2.q.val();
                self.s1_l3.d.next = 22.into();
                for m in 0..5 {
                    self.h[2 * m].d.next = self.wa[m + 1].q.val();
                    self.h[2 * m + 1].d.next = self.wb[m + 1].q.val();
                }
            }
            self.s1_v4.d.next = !self.s1_trunc.d.val() & (self.et_sel.val() == 0x0800);
            self.s1_v6.d.next = !self.s1_trunc.d.val() & (self.et_sel.val() == 0x86dd);
        }
        self.n_total.next = bit_cast::<17, 16>(self.h[0].d.val().get_bits::<16>(0));
        self.n_hl.next = bit_cast::<17, 4>(self.h[0].d.val().get_bits::<4>(24)) << 2;
        self.s1_l4len4.d.next = self.n_total.val() - self.n_hl.val();
        // (the `.d` values: what stage 1 loads this cycle, or what it holds)
        self.n_plen.next = bit_cast::<17, 16>(self.h[1].d.val().get_bits::<16>(16));
        self.n_doff.next = bit_cast::<6, 4>(self.s1_lw3.d.val().get_bits::<4>(28)) << 2;
        self.n_udplen.next = bit_cast::<17, 16>(self.s1_lw1.d.val().get_bits::<16>(16));
        self.s1_p6_ge20.d.next = self.n_plen.val() >= 20;
        self.s1_p6_ge8.d.next = self.n_plen.val() >= 8;
        self.s1_p6_nz.d.next = self.n_plen.val() != 0;
        // the data offset is at most 60: a 6-bit compare unless the length is 64 or more
        self.s1_p6_dle.d.next = (self.n_plen.val().get_bits::<11>(6) != 0)
            | (self.n_doff.val() <= self.n_plen.val().get_bits::<6>(0));
        self.s1_p6_ueq.d.next = self.n_udplen.val() == self.n_plen.val();
        // the fixed headers fit: `lenv >= l3 + 20` (IPv4) and `l3 + 40` (IPv6), with l3
        // one of 14, 18, 22 by the tags, so each is a compare of `lenv` with a constant
        // chosen by the tags, not an add and a compare behind the l3 mux
        if self.v1.q.val() {
            self.s1_fit4.d.next = self.lenv.val() >= 34;
            self.s1_fit6.d.next = self.lenv.val() >= 54;
            if self.cap_tags.val() == 1 {
                self.s1_fit4.d.next = self.lenv.val() >= 38;
                self.s1_fit6.d.next = self.lenv.val() >= 58;
            } else if self.cap_tags.val() == 2 {
                self.s1_fit4.d.next = self.lenv.val() >= 42;
                self.s1_fit6.d.next = self.lenv.val() >= 62;
            }
        }
        self.v2.d.next = self.v1.q.val();
        // ---- stage 2: IP, TCP/UDP checks ----
        self.ver.next = self.h[0].q.val().get_bits::<4>(28);
        self.ihl.next = self.h[0].q.val().get_bits::<4>(24);
        self.hl.next = bit_cast::<17, 4>(self.ihl.val()) << 2;
        self.plen.next = bit_cast::<17, 16>(self.h[1].q.val().get_bits::<16>(16));
        self.nh.next = self.h[1].q.val().get_bits::<8>(8);
        self.not_ended.next = !self.s1_ended.q.val();
        self.is_v4.next = self.s1_v4.q.val();
        self.is_v6.next = self.s1_v6.q.val();
        self.udplen.next = bit_cast::<17, 16>(self.s1_lw1.q.val().get_bits::<16>(16));
        self.ok4.next = self.is_v4.val()
            & self.s1_fit4.q.val()
            & (self.ver.val() == 4)
            & (self.ihl.val() >= 5)
            & !self.s1_l4len4.q.val().get_bit(16)
            & (self.not_ended.val() | self.s1_in4.q.val());
        self.ok6.next = self.is_v6.val()
            & self.s1_fit6.q.val()
            & (self.ver.val() == 6)
            & self.s1_p6_nz.q.val()
            & (self.not_ended.val() | self.s1_in6.q.val());
        self.proto.next = self.nh.val();
        self.l4_off.next = self.s1_l3.q.val() + 40;
        self.l4len.next = self.plen.val();
        self.frag.next = self.ok6.val() & (self.nh.val() == 44);
        self.ext.next = self.ok6.val()
            & ((self.nh.val() == 0)
                | (self.nh.val() == 43)
                | (self.nh.val() == 44)
                | (self.nh.val() == 50)
                | (self.nh.val() == 51)
                | (self.nh.val() == 60)
                | (self.nh.val() == 135)
                | (self.nh.val() == 139)
                | (self.nh.val() == 140)
                | (self.nh.val() == 253)
                | (self.nh.val() == 254));
        if self.is_v4.val() {
            self.proto.next = self.h[2].q.val().get_bits::<8>(16);
            self.l4_off.next = self.s1_l3.q.val() + self.hl.val();
            self.l4len.next = self.s1_l4len4.q.val();
            self.frag.next = self.ok4.val() & (self.h[1].q.val().get_bit(13) | (self.h[1].q.val().get_bits::<13>(0) != 0));
        }
        self.l4go.next = (self.ok4.val() | self.ok6.val()) & !self.frag.val();
        self.is_tcp.next = self.l4go.val() & (self.proto.val() == 6);
        self.is_udp.next = self.l4go.val() & (self.proto.val() == 17);
        self.doff.next = bit_cast::<17, 4>(self.s1_lw3.q.val().get_bits::<4>(28)) << 2;
        // the TCP and UDP length checks against each IP version's L4 length, side by side,
        // the version choosing after the compares (not the length mux before them)
        self.okt.next = self.is_tcp.val() & (self.doff.val() >= 20) & self.s1_p6_ge20.q.val() & self.s1_p6_dle.q.val();
        self.oku.next = self.is_udp.val() & self.s1_p6_ge8.q.val() & self.s1_p6_ueq.q.val();
        if self.is_v4.val() {
            // (a negative `s1_l4len4`, bit 16, fails `ok4`, so no TCP or UDP is seen then)
            self.okt.next = self.is_tcp.val() & (self.doff.val() >= 20)
                & ((self.s1_l4len4.q.val().get_bits::<12>(5) != 0) | (self.s1_l4len4.q.val().get_bits::<5>(0) >= 20))
                & ((self.s1_l4len4.q.val().get_bits::<11>(6) != 0)
                    | (self.doff.val().get_bits::<6>(0) <= self.s1_l4len4.q.val().get_bits::<6>(0)));
            self.oku.next = self.is_udp.val() & (self.s1_l4len4.q.val().get_bits::<14>(3) != 0)
                & (self.udplen.val() == self.s1_l4len4.q.val());
        }
        self.bad.next = self.s1_trunc.q.val()
            | (self.is_v4.val() & !self.ok4.val())
            | (self.is_v6.val() & !self.ok6.val())
            | (self.is_tcp.val() & !self.okt.val())
            | (self.is_udp.val() & !self.oku.val());
        self.pt.next = bit_cast::<16, 2>(self.s1_tags.q.val()) << 4;
        if self.is_v4.val() {
            self.pt.next = self.pt.val() | 1;
        }
        if self.is_v6.val() {
            self.pt.next = self.pt.val() | 2;
        }
        if self.l4go.val() {
            if self.is_tcp.val() {
                self.pt.next = self.pt.val() | 4;
            } else if self.is_udp.val() {
                self.pt.next = self.pt.val() | 8;
            } else {
                self.pt.next = self.pt.val() | 12;
            }
        }
        if self.frag.val() {
            self.pt.next = self.pt.val() | 64;
        }
        if self.ext.val() {
            self.pt.next = self.pt.val() | 128;
        }
        if self.bad.val() {
            self.pt.next = self.pt.val() | 256;
        }
        if self.v2.q.val() {
            self.r_dst.d.next = self.s1_dst.q.val();
            self.r_has_dst.d.next = self.s1_lenv.q.val() >= 6;
            self.r_ptype.d.next = self.pt.val();
            self.r_v4ok.d.next = self.ok4.val();
            self.r_v6ok.d.next = self.ok6.val();
            self.r_tcp_ok.d.next = self.okt.val();
            self.r_udp_ok.d.next = self.oku.val();
            self.r_l3.d.next = self.s1_l3.q.val();
            self.r_l4.d.next = self.l4_off.val();
            self.r_l4end.d.next = self.l4_off.val() + self.l4len.val();
            self.r_pconst.d.next = bit_cast::<17, 8>(self.proto.val()) + self.l4len.val();
            self.r_chk3.d.next = self.ok4.val();
            self.r_chk4.d.next = self.okt.val() | self.oku.val();
            self.r_udp0.d.next = self.is_udp.val() & (self.s1_lw1.q.val().get_bits::<16>(0) == 0);
            if self.is_v4.val() {
                self.r_as.d.next = self.s1_l3.q.val() + 12;
                self.r_ae.d.next = self.s1_l3.q.val() + 20;
                self.r_tuple[0].d.next = (bit_cast::<64, 32>(self.h[3].q.val()) << 32) | bit_cast::<64, 32>(self.h[4].q.val());
                self.r_tuple[1].d.next = bit_cast::<64, 32>(self.s1_lw0.q.val()) << 32;
                self.r_tuple[2].d.next = 0.into();
                self.r_tuple[3].d.next = 0.into();
                self.r_tuple[4].d.next = 0.into();
            } else {
                self.r_as.d.next = self.s1_l3.q.val() + 8;
                self.r_ae.d.next = self.s1_l3.q.val() + 40;
                self.r_tuple[0].d.next = (bit_cast::<64, 32>(self.h[2].q.val()) << 32) | bit_cast::<64, 32>(self.h[3].q.val());
                self.r_tuple[1].d.next = (bit_cast::<64, 32>(self.h[4].q.val()) << 32) | bit_cast::<64, 32>(self.h[5].q.val());
                self.r_tuple[2].d.next = (bit_cast::<64, 32>(self.h[6].q.val()) << 32) | bit_cast::<64, 32>(self.h[7].q.val());
                self.r_tuple[3].d.next = (bit_cast::<64, 32>(self.h[8].q.val()) << 32) | bit_cast::<64, 32>(self.h[9].q.val());
                self.r_tuple[4].d.next = bit_cast::<64, 32>(self.s1_lw0.q.val()) << 32;
            }
        }
        if self.v2.q.val() {
            self.r_valid.d.next = true;
        } else if self.rec_take.val() {
            self.r_valid.d.next = false;
        }
        self.pending.next = self.v1.q.val() | self.v2.q.val() | self.r_valid.q.val();
        // ---- outputs ----
        self.rec_valid.next = self.r_valid.q.val();
        self.dst.next = self.r_dst.q.val();
        self.has_dst.next = self.r_has_dst.q.val();
        self.ptype.next = self.r_ptype.q.val();
        for k in 0..5 {
            self.tuple[k].next = self.r_tuple[k].q.val();
        }
        self.v4ok.next = self.r_v4ok.q.val();
        self.v6ok.next = self.r_v6ok.q.val();
        self.tcp_ok.next = self.r_tcp_ok.q.val();
        self.udp_ok.next = self.r_udp_ok.q.val();
        self.l3.next = self.r_l3.q.val();
        self.l4.next = self.r_l4.q.val();
        self.l4end.next = self.r_l4end.q.val();
        self.addr_start.next = self.r_as.q.val();
        self.addr_end.next = self.r_ae.q.val();
        self.pconst.next = self.r_pconst.q.val();
        self.chk3.next = self.r_chk3.q.val();
        self.chk4.next = self.r_chk4.q.val();
        self.udp0.next = self.r_udp0.q.val();
        if self.reset.val() {
            self.idx.d.next = 0.into();
            self.at12.d.next = false;
            self.open_q.d.next = true;
            self.l4_open.d.next = false;
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.r_valid.d.next = false;
        }
    }
}
