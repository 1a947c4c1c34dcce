//! Both tops export for both configurations, with their stable names and with every
//! rust-hdl `top$...` submodule renamed under the top's own prefix (so two exported tops,
//! or another rust-hdl design, can share one simulation or synthesis run).
use nic_hw::Config;

#[test]
fn tops_export_for_both_configs() {
    for c in Config::ALL {
        for (name, v) in [("nic_top", nic_hw::export::top_verilog(c)), ("nic_top_axi", nic_hw::export::top_axi_verilog(c))] {
            assert!(v.contains(&format!("module {name}(")), "{c}: top module {name} not renamed");
            assert!(!v.contains("module top(") && !v.contains(" top$"), "{c} {name}: a submodule kept rust-hdl's `top$` name");
            assert!(v.contains(&format!("module {name}$csr(")) || v.contains(&format!("module {name}$nic$csr(")), "{c} {name}: CSR block missing");
        }
    }
}
