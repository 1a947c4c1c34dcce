//! The nic_top_axi model (csrc/nic_axi_model_impl.h) evaluates a cycle once and reads
//! its outputs from the wrapper's edge registers; forced exact evaluation (clock low and
//! clock high, the ports read between) must give the same outputs every cycle on the
//! same random stimulus.

use nic_sim::rng::Rng;
use nic_sim::{AxiInputs, AxiModel, HwConfig};

fn random_inputs(r: &mut Rng) -> AxiInputs {
    let mut x = || r.next_u64();
    AxiInputs {
        reset: false,
        s_axil_awaddr: (x() as u16) & 0x01FC,
        s_axil_awvalid: x() & 3 == 0,
        s_axil_wdata: x() as u32,
        s_axil_wstrb: 0xF,
        s_axil_wvalid: x() & 3 == 0,
        s_axil_bready: x() & 1 == 0,
        s_axil_araddr: (x() as u16) & 0x01FC,
        s_axil_arvalid: x() & 3 == 0,
        s_axil_rready: x() & 1 == 0,
        m_axi_arready: x() & 1 == 0,
        m_axi_rdata_lo: x(),
        m_axi_rdata_hi: x(),
        m_axi_rresp: if x() & 15 == 0 { 2 } else { 0 },
        m_axi_rlast: x() & 3 == 0,
        m_axi_rvalid: x() & 1 == 0,
        m_axi_awready: x() & 1 == 0,
        m_axi_wready: x() & 1 == 0,
        m_axi_bresp: if x() & 15 == 0 { 2 } else { 0 },
        m_axi_bvalid: x() & 3 == 0,
        tx_axis_tready: x() & 1 == 0,
        rx_axis_tdata: x(),
        rx_axis_tkeep: 0xFF >> (x() & 7),
        rx_axis_tlast: x() & 3 == 0,
        rx_axis_tuser: x() & 15 == 0,
        rx_axis_tvalid: x() & 1 == 0,
    }
}

#[test]
fn axi_model_fast_clock_equals_exact_evaluation() {
    for hw in HwConfig::ALL {
        let mut fast = AxiModel::new(hw).unwrap();
        let mut exact = AxiModel::new(hw).unwrap();
        exact.set_exact_eval(true);
        let mut r = Rng::new(77);
        let mut inp = AxiInputs { reset: true, ..AxiInputs::default() };
        let mut hold = 4u64;
        for cycle in 0..30_000u64 {
            if hold == 0 {
                inp = random_inputs(&mut r);
                if r.next_u64().is_multiple_of(50) {
                    inp.reset = true;
                }
                hold = 1 + r.next_u64() % 6;
            }
            hold -= 1;
            let a = *fast.step(&inp);
            let b = *exact.step(&inp);
            assert_eq!(a, b, "{hw}: outputs differ at cycle {cycle}");
        }
        assert!(fast.fast_clock_build(), "{hw}: build.rs fell back to two evaluations per cycle");
        assert!(fast.settled_inputs_build(), "{hw}: build.rs fell back to the input region in every cycle");
    }
}
