//! `nic_top_axi` through `SimDevice` (Bus::Axi4): register access, a frame through the
//! driver's loopback, the AXI slave's counters, several devices side by side.

use nic_driver::{Nic, NicConfig, TxFrame};
use nic_regmap::global;
use nic_sim::{AxiModel, Bus, Device, HwConfig, SimConfig, SimDevice};

#[test]
fn axi_model_is_built_for_every_configuration() {
    for hw in HwConfig::ALL {
        assert!(AxiModel::available(hw), "{hw}");
    }
}

#[test]
fn id_and_registers_over_axi_lite() {
    for hw in HwConfig::ALL {
        let mut dev = SimDevice::new(SimConfig::axi(hw)).unwrap();
        assert_eq!(dev.bus(), Bus::Axi4);
        assert_eq!(dev.cycles(), 4, "reset cycles");
        assert_eq!(dev.read32(global::BASE + global::ID).unwrap(), global::ID_VALUE);
        let reg = global::BASE + global::IRQ_MASK;
        dev.write32(reg, 0x101).unwrap();
        assert_eq!(dev.read32(reg).unwrap(), 0x101);
        assert!(dev.axi_model().is_some() && dev.axi_port().is_some() && dev.axi_outputs().is_some());
        assert!(dev.bus_idle());
    }
}

/// The traced AXI models are built only with NIC_SIM_WAVES=all (sim/build.rs `variants`):
/// without them a waveform request says how to get one and writes nothing; with them
/// it writes the file.
#[test]
fn axi_waveform_is_written_or_refused() {
    for hw in HwConfig::ALL {
        let path = std::env::temp_dir().join(format!("nic_axi_wave_{hw}_{}.fst", std::process::id()));
        let r = SimDevice::new(SimConfig { wave: Some(path.clone()), ..SimConfig::axi(hw) });
        if AxiModel::can_trace(hw) {
            r.unwrap().idle(100);
            let len = std::fs::metadata(&path).unwrap().len();
            assert!(len > 1000, "{hw}: FST file of {len} bytes");
        } else {
            let e = r.err().expect("a waveform of an untraced model is refused");
            assert!(e.to_string().contains("NIC_SIM_WAVES=all"), "{hw}: {e}");
            assert!(!path.exists(), "{hw}: nothing written");
        }
        let _ = std::fs::remove_file(&path);
    }
}

#[test]
fn one_frame_through_driver_loopback() {
    let mut dev = SimDevice::new(SimConfig::axi(HwConfig::Small)).unwrap();
    // B two cycles after the write: one cycle exposes a bridge bug (testbench/tests/axi_loopback.rs).
    dev.axi_port().unwrap().set_write_latency(2);
    {
        let mut nic = Nic::open_with(&mut dev, NicConfig { tx_ring_log2: 4, rx_ring_log2: 4, ..NicConfig::default() }).unwrap();
        nic.set_loopback(true).unwrap();
        let frame: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
        assert_eq!(nic.tx_burst(&[TxFrame::new(&frame)]).unwrap(), 1);
        let got = nic.rx_collect(1, 100_000).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].data, frame);
        nic.tx_flush(100_000).unwrap();
        assert!(nic.device_mut().take_dma_faults().is_empty());
    }
    dev.idle(200);
    let st = dev.axi_port().unwrap().stats();
    eprintln!("{st:#?}");
    assert!(st.ar_bursts > 0 && st.aw_bursts > 0 && st.b_resps == st.aw_bursts);
    dev.axi_port().unwrap().check_idle().unwrap();
}
