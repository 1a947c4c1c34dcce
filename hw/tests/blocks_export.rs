//! Every block exports Verilog; the whole top for both configurations too.
use nic_hw::Config;

#[test]
fn top_exports_for_both_configs() {
    for c in Config::ALL {
        let v = nic_hw::export::top_verilog(c);
        assert!(v.contains("module nic_top("), "{c}: top module not renamed");
        assert!(!v.contains("module top("), "{c}");
        std::fs::write(format!("/tmp/nic_top_{}.v", c.name()), &v).unwrap();
    }
}
