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

/// Every RX classification block exports on its own and is lint-clean under
/// `verilator --lint-only -Wall` with only the generator waivers.
#[test]
fn rx_blocks_export_and_lint() {
    use nic_hw::rx::{RxClassifier, RxCsum, RxFilter, RxLeanClassifier, RxParser, RxRss};
    use rust_hdl::prelude::*;
    fn verilog<U: Block>(mut uut: U) -> String {
        uut.connect_all();
        generate_verilog(&uut)
    }
    let blocks = [
        ("rx_parser", verilog(RxParser::default())),
        ("rx_filter", verilog(RxFilter::default())),
        ("rx_rss", verilog(RxRss::default())),
        ("rx_csum", verilog(RxCsum::default())),
        ("rx_classifier", verilog(RxClassifier::default())),
        ("rx_lean", verilog(RxLeanClassifier::default())),
    ];
    lint_blocks("rx", &blocks);
}

/// Every TX offload block exports on its own and is lint-clean under
/// `verilator --lint-only -Wall` with only the generator waivers (both buffer sizes).
#[test]
fn tx_blocks_export_and_lint() {
    use nic_hw::tx::{TxCsum, TxFinish, TxOffload, TxPatch, TxReader};
    use rust_hdl::prelude::*;
    fn verilog<U: Block>(mut uut: U) -> String {
        uut.connect_all();
        generate_verilog(&uut)
    }
    let blocks = [
        ("tx_csum", verilog(TxCsum::default())),
        ("tx_patch", verilog(TxPatch::default())),
        ("tx_finish", verilog(TxFinish::default())),
        ("tx_reader", verilog(TxReader::<12, 13>::default())),
        ("tx_offload_full", verilog(TxOffload::<12, 13>::default())),
        ("tx_offload_small", verilog(TxOffload::<9, 10>::default())),
    ];
    lint_blocks("tx", &blocks);
}

/// The RDMA engine's blocks export on their own and are lint-clean under
/// `verilator --lint-only -Wall` with only the generator waivers.
#[test]
fn rdma_blocks_export_and_lint() {
    use nic_hw::rdma::{RdmaCompleter, RdmaCqWriter, RdmaEngine, RdmaIcrc, RdmaMrCheck, RdmaRequester, RdmaResponder, RdmaResponseTx, RdmaRxParse, RdmaTables, RdmaTxBuild};
    use rust_hdl::prelude::*;
    fn verilog<U: Block>(mut uut: U) -> String {
        uut.connect_all();
        generate_verilog(&uut)
    }
    let blocks = [("rdma_icrc", verilog(RdmaIcrc::default())), ("rdma_rx_parse", verilog(RdmaRxParse::default())), ("rdma_tx_build", verilog(RdmaTxBuild::default())),
        ("rdma_tables", verilog(RdmaTables::default())),
        ("rdma_mr_check", verilog(RdmaMrCheck::default())),
        ("rdma_responder", verilog(RdmaResponder::default())),
        ("rdma_response_tx", verilog(RdmaResponseTx::default())),
        ("rdma_requester", verilog(RdmaRequester::default())),
        ("rdma_cq", verilog(RdmaCqWriter::default())),
        ("rdma_completer", verilog(RdmaCompleter::default())),
        ("rdma_engine", verilog(RdmaEngine::default())),
    ];
    lint_blocks("rdma", &blocks);
}

/// The board's UART blocks, the serial register bridge and the iCE40 board's host link
/// export on their own and are lint-clean under `verilator --lint-only -Wall` with only
/// the generator waivers.
#[test]
fn board_uart_blocks_export_and_lint() {
    use nic_hw::board::bridge::UartBridge;
    use nic_hw::board::host_link::HostLink;
    use nic_hw::board::uart::{UartRx, UartTx};
    use rust_hdl::prelude::*;
    fn verilog<U: Block>(mut uut: U) -> String {
        uut.connect_all();
        generate_verilog(&uut)
    }
    let blocks = [
        ("uart_rx", verilog(UartRx::default())),
        ("uart_tx", verilog(UartTx::default())),
        ("uart_bridge", verilog(UartBridge::default())),
        ("host_link", verilog(HostLink::default())),
    ];
    lint_blocks("board-uart", &blocks);
}

/// The board's host memory exports on its own and is lint-clean under
/// `verilator --lint-only -Wall` with only the generator waivers (the board's size, AW = 11).
#[test]
fn board_host_mem_exports_and_lints() {
    use nic_hw::board::host_mem::HostMem;
    use rust_hdl::prelude::*;
    fn verilog<U: Block>(mut uut: U) -> String {
        uut.connect_all();
        generate_verilog(&uut)
    }
    let blocks = [("board_host_mem", verilog(HostMem::<11>::default()))];
    lint_blocks("board-host-mem", &blocks);
}

/// Writes each block's Verilog and lints it with `verilator --lint-only -Wall` and only
/// the generator waivers; fails with every block's messages.
fn lint_blocks(group: &str, blocks: &[(&str, String)]) {
    let dir = std::env::temp_dir().join(format!("nic-{group}-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("waivers.vlt"), nic_hw::export::LINT_WAIVERS).unwrap();
    let mut failures = String::new();
    for (name, v) in blocks {
        assert!(v.contains("module top("), "{name}: no top module");
        let f = dir.join(format!("{name}.v"));
        std::fs::write(&f, v).unwrap();
        let out = std::process::Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", "top"])
            .arg(dir.join("waivers.vlt"))
            .arg(&f)
            .output()
            .expect("verilator not found: run `make setup`");
        let text = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() || text.contains("%Warning") {
            failures.push_str(&format!("{name}: lint failed:\n{text}\n"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{failures}");
}

/// The RGMII adapter blocks (board section 4) export on their own and are lint-clean under
/// `verilator --lint-only -Wall` with only the generator waivers (the board's FIFO sizes
/// and a small one).
#[test]
fn board_rgmii_blocks_export_and_lint() {
    use nic_hw::board::cdc_fifo::CdcFifo;
    use nic_hw::board::rgmii::{RgmiiRx, RgmiiRxN, RgmiiTx, RgmiiTxN};
    use rust_hdl::prelude::*;
    fn verilog<U: Block>(mut uut: U) -> String {
        uut.connect_all();
        generate_verilog(&uut)
    }
    let blocks = [
        ("cdc_fifo", verilog(CdcFifo::<Bits<74>, 9, 10>::default())),
        ("cdc_fifo_small", verilog(CdcFifo::<Bits<8>, 3, 4>::default())),
        ("rgmii_rx", verilog(RgmiiRx::default())),
        ("rgmii_tx", verilog(RgmiiTx::default())),
        ("rgmii_rx_small", verilog(RgmiiRxN::<4, 5>::default())),
        ("rgmii_tx_small", verilog(RgmiiTxN::<4, 5>::default())),
    ];
    lint_blocks("board-rgmii", &blocks);
}
