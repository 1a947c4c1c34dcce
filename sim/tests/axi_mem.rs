//! The AXI4 slave over HostMemory and its protocol checker, driven with hand-made master
//! values (no RTL): timing, SLVERR, all-or-nothing writes, W before AW, and the rules a
//! master must not break (each panics with the rule).

use nic_sim::axi_mem::{AxiMemConfig, AxiMemPort};
use nic_sim::{AxiInputs, AxiOutputs, HostMemory};

/// One cycle with the master side `out`; returns what the slave drove.
fn cycle(p: &mut AxiMemPort, m: &mut HostMemory, out: &AxiOutputs) -> AxiInputs {
    let mut inp = AxiInputs::default();
    p.drive(&mut inp);
    p.observe(&inp, out, m);
    inp
}

fn ar(addr: u64, len: u8) -> AxiOutputs {
    AxiOutputs { m_axi_araddr: addr, m_axi_arlen: len, m_axi_arsize: 4, m_axi_arburst: 1, m_axi_arvalid: true, m_axi_rready: true, m_axi_bready: true, ..AxiOutputs::default() }
}

fn idle() -> AxiOutputs {
    AxiOutputs { m_axi_rready: true, m_axi_bready: true, ..AxiOutputs::default() }
}

fn aw(addr: u64, len: u8) -> AxiOutputs {
    AxiOutputs { m_axi_awaddr: addr, m_axi_awlen: len, m_axi_awsize: 4, m_axi_awburst: 1, m_axi_awvalid: true, ..idle() }
}

fn w(data: u128, strb: u16, last: bool) -> AxiOutputs {
    AxiOutputs { m_axi_wdata_lo: data as u64, m_axi_wdata_hi: (data >> 64) as u64, m_axi_wstrb: strb, m_axi_wlast: last, m_axi_wvalid: true, ..idle() }
}

fn setup(latency: u32) -> (AxiMemPort, HostMemory, u64) {
    let mut m = HostMemory::default();
    let r = m.alloc(4096 + 8).unwrap();
    let bytes: Vec<u8> = (0..r.len).map(|i| i as u8).collect();
    m.write(r.bus_addr, &bytes).unwrap();
    (AxiMemPort::new(AxiMemConfig { latency, ..AxiMemConfig::default() }), m, r.bus_addr)
}

#[test]
fn read_burst_latency_rlast_and_slverr_on_partly_mapped_word() {
    let (mut p, mut m, base) = setup(5);
    // 3 beats up to the page end, then 2 from the region's last word (8 mapped bytes of
    // 16) on: SLVERR for both.
    let a = base + 4096 - 48;
    assert!(cycle(&mut p, &mut m, &ar(a, 2)).m_axi_arready);
    assert!(cycle(&mut p, &mut m, &ar(base + 4096, 1)).m_axi_arready);
    let mut beats = Vec::new();
    for c in 2..20 {
        let i = cycle(&mut p, &mut m, &idle());
        if i.m_axi_rvalid {
            beats.push((c, i.rdata(), i.m_axi_rresp, i.m_axi_rlast));
        }
    }
    assert_eq!(beats.iter().map(|b| b.0).collect::<Vec<_>>(), vec![5, 6, 7, 8, 9], "first beat 5 cycles after the AR, then back to back");
    let want = |k: u64| u128::from_le_bytes(std::array::from_fn(|j| (4096 - 48 + k * 16 + j as u64) as u8));
    for (k, b) in beats.iter().take(3).enumerate() {
        assert_eq!((b.1, b.2, b.3), (want(k as u64), 0, k == 2));
    }
    assert_eq!((beats[3].1, beats[3].2, beats[3].3), (0, 2, false));
    assert_eq!((beats[4].1, beats[4].2, beats[4].3), (0, 2, true));
    let f = m.take_faults();
    assert_eq!(f.len(), 1);
    assert!(!f[0].write && f[0].addr == base + 4096 && f[0].len == 32, "{f:x?}");
    assert!(p.check_idle().is_ok());
}

#[test]
fn w_before_aw_all_or_nothing_and_one_b_each() {
    let (mut p, mut m, base) = setup(1);
    // W first, then its AW: applied; B one cycle after.
    let i = cycle(&mut p, &mut m, &w(0xAAu128 * 0x0101_0101_0101_0101_0101_0101_0101_0101, 0x00F0, true));
    assert!(i.m_axi_wready);
    cycle(&mut p, &mut m, &aw(base + 32, 0));
    let i = cycle(&mut p, &mut m, &idle());
    assert!(i.m_axi_bvalid && i.m_axi_bresp == 0);
    assert_eq!(m.read_vec(base + 32, 16).unwrap()[3..9], [3 + 32, 0xAA, 0xAA, 0xAA, 0xAA, 8 + 32]);
    // A beat enabling mapped and unmapped bytes of the last word: SLVERR, nothing written.
    let o = AxiOutputs { m_axi_wdata_lo: u64::MAX, m_axi_wdata_hi: u64::MAX, m_axi_wstrb: 0x0FF0, m_axi_wlast: true, m_axi_wvalid: true, ..aw(base + 4096, 0) };
    cycle(&mut p, &mut m, &o);
    let i = cycle(&mut p, &mut m, &idle());
    assert!(i.m_axi_bvalid && i.m_axi_bresp == 2);
    assert_eq!(m.read_vec(base + 4096, 8).unwrap(), (0..8).map(|j| j as u8).collect::<Vec<_>>());
    let f = m.take_faults();
    assert!(f.len() == 1 && f[0].write && f[0].addr == base + 4096 + 4 && f[0].len == 8, "{f:x?}");
    // WSTRB 0 beyond the region: OKAY, nothing logged.
    let o = AxiOutputs { m_axi_wstrb: 0, m_axi_wlast: true, m_axi_wvalid: true, ..aw(base + 8192, 0) };
    cycle(&mut p, &mut m, &o);
    let i = cycle(&mut p, &mut m, &idle());
    assert!(i.m_axi_bvalid && i.m_axi_bresp == 0);
    assert!(m.take_faults().is_empty());
    assert_eq!(p.stats().b_resps, 3);
    assert!(p.check_idle().is_ok());
}

#[test]
#[should_panic(expected = "crosses a 4 KiB boundary")]
fn burst_across_4k_panics() {
    let (mut p, mut m, base) = setup(1);
    cycle(&mut p, &mut m, &ar(base + 4096 - 32, 2));
}

#[test]
#[should_panic(expected = "ARSIZE 3")]
fn wrong_size_panics() {
    let (mut p, mut m, base) = setup(1);
    cycle(&mut p, &mut m, &AxiOutputs { m_axi_arsize: 3, ..ar(base, 0) });
}

#[test]
#[should_panic(expected = "not aligned")]
fn unaligned_burst_panics() {
    let (mut p, mut m, base) = setup(1);
    cycle(&mut p, &mut m, &aw(base + 4, 0));
}

#[test]
#[should_panic(expected = "WLAST on beat 1 of a burst of AWLEN 1")]
fn early_wlast_panics() {
    let (mut p, mut m, base) = setup(1);
    cycle(&mut p, &mut m, &aw(base, 1));
    cycle(&mut p, &mut m, &w(0, 0xFFFF, true));
}

#[test]
#[should_panic(expected = "WLAST missing")]
fn missing_wlast_panics() {
    let (mut p, mut m, base) = setup(1);
    cycle(&mut p, &mut m, &aw(base, 0));
    cycle(&mut p, &mut m, &w(0, 0xFFFF, false));
}

#[test]
#[should_panic(expected = "AWVALID dropped before AWREADY")]
fn valid_dropped_panics() {
    let (mut p, mut m, base) = setup(1);
    p.set_backpressure(Some((1, 1.0)));
    cycle(&mut p, &mut m, &aw(base, 0));
    cycle(&mut p, &mut m, &idle());
}

#[test]
#[should_panic(expected = "W payload changed")]
fn payload_changed_panics() {
    let (mut p, mut m, _) = setup(1);
    p.set_backpressure(Some((1, 1.0)));
    cycle(&mut p, &mut m, &w(1, 0xFFFF, true));
    cycle(&mut p, &mut m, &w(2, 0xFFFF, true));
}

#[test]
fn open_transactions_are_reported() {
    let (mut p, mut m, base) = setup(1);
    cycle(&mut p, &mut m, &aw(base, 0));
    let e = p.check_idle().unwrap_err();
    assert!(e.contains("1 AWs without their W data"), "{e}");
}
