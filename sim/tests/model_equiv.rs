//! One evaluation per cycle (csrc/nic_model_impl.h: the clock taken low without an
//! evaluation, the outputs read from the wrapper's edge registers after the rising edge)
//! must not change any output: two models, one forced to evaluate clock-low and
//! clock-high separately and read the ports, get the same random stimulus (inputs held
//! for random stretches, so that cycles with unchanged inputs run the edge alone, and
//! changed on random cycles) and must agree every cycle.

use nic_sim::rng::Rng;
use nic_sim::{HwConfig, Inputs, Model};

fn random_inputs(r: &mut Rng) -> Inputs {
    let mut x = || r.next_u64();
    Inputs {
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
        dma_rd_req_ready: x() & 1 == 0,
        dma_rd_rsp_valid: x() & 3 == 0,
        dma_rd_rsp_data_lo: x(),
        dma_rd_rsp_data_hi: x(),
        dma_rd_rsp_last: x() & 1 == 0,
        dma_rd_rsp_error: x() & 15 == 0,
        dma_rd_rsp_tag: (x() & 3) as u8,
        dma_wr_ready: x() & 1 == 0,
        dma_wr_rsp_valid: x() & 7 == 0,
        dma_wr_rsp_error: x() & 15 == 0,
        dma_wr_rsp_tag: (x() & 3) as u8,
        tx_axis_tready: x() & 1 == 0,
        rx_axis_tdata: x(),
        rx_axis_tkeep: 0xFF >> (x() & 7),
        rx_axis_tlast: x() & 3 == 0,
        rx_axis_tuser: x() & 15 == 0,
        rx_axis_tvalid: x() & 1 == 0,
    }
}

#[test]
fn one_evaluation_per_cycle_changes_nothing() {
    for hw in HwConfig::ALL {
        let mut fast = Model::new(hw).unwrap();
        let mut exact = Model::new(hw).unwrap();
        exact.set_exact_eval(true);
        let mut r = Rng::new(2024);
        let mut inp = Inputs { reset: true, ..Inputs::default() };
        let mut hold = 4u64;
        for cycle in 0..30_000u64 {
            if hold == 0 {
                inp = random_inputs(&mut r);
                // registers poked now and then: enable things (CONTROL, IRQ_MASK, queues)
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
    }
}

#[test]
fn every_configuration_evaluates_once_per_cycle() {
    // build.rs decides from the generated code; a change there (a `negedge` in hw/, a
    // Verilator that names its clock memory differently) would halve the speed silently.
    for hw in HwConfig::ALL {
        let m = Model::new(hw).unwrap();
        assert!(m.fast_clock_build(), "{hw}: build.rs fell back to two evaluations per cycle (see its warnings)");
        assert!(m.settled_inputs_build(), "{hw}: build.rs fell back to the input region in every cycle (see its warnings)");
    }
}
