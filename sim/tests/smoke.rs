//! The Verilated model through `SimDevice`: AXI4-Lite register access on both
//! configurations, several devices in one process, waveform dump.

use nic_regmap::global;
use nic_sim::{Device, HwConfig, LinkWire, Model, SimConfig, SimDevice};

#[test]
fn id_and_version_read_over_axi_lite_on_both_configs() {
    for hw in HwConfig::ALL {
        let mut dev = SimDevice::new(SimConfig::new(hw)).unwrap();
        assert_eq!(dev.cycles(), 4, "reset cycles");
        let id = dev.read32(global::BASE + global::ID).unwrap();
        assert_eq!(id, 0x4E49_4330, "{hw}: ID");
        assert_eq!(id, global::ID_VALUE);
        let version = dev.read32(global::BASE + global::VERSION).unwrap();
        assert_eq!(version >> 16, 1, "{hw}: VERSION {version:#x}");
        assert!(dev.cycles() > 4 && dev.cycles() < 40, "register reads take a few cycles");
    }
}

#[test]
fn register_write_then_read_back() {
    for hw in HwConfig::ALL {
        let mut dev = SimDevice::new(SimConfig::new(hw)).unwrap();
        let reg = global::BASE + global::IRQ_MASK;
        dev.write32(reg, 0x0000_0101).unwrap();
        assert_eq!(dev.read32(reg).unwrap(), 0x0000_0101, "{hw}");
        dev.write32(reg, 0).unwrap();
        assert_eq!(dev.read32(reg).unwrap(), 0, "{hw}");
    }
}

#[test]
fn two_devices_coexist_and_interleave() {
    let mut a = SimDevice::new(SimConfig::new(HwConfig::Small)).unwrap();
    let mut b = SimDevice::new(SimConfig::new(HwConfig::Full)).unwrap();
    let mut c = SimDevice::new(SimConfig::new(HwConfig::Small)).unwrap();
    let reg = global::BASE + global::IRQ_MASK;
    a.write32(reg, 1).unwrap();
    c.write32(reg, 0x100).unwrap();
    for _ in 0..100 {
        a.idle(3);
        b.idle(1);
        c.idle(2);
    }
    assert_eq!(a.read32(reg).unwrap(), 1);
    assert_eq!(c.read32(reg).unwrap(), 0x100);
    assert_eq!(b.read32(reg).unwrap(), 0);
    assert_eq!(b.read32(global::ID).unwrap(), global::ID_VALUE);
    // and on different threads
    let hs: Vec<_> = (0..2)
        .map(|k| {
            std::thread::spawn(move || {
                let mut d = SimDevice::new(SimConfig::new(HwConfig::ALL[k])).unwrap();
                d.idle(10_000);
                d.read32(global::ID).unwrap()
            })
        })
        .collect();
    for h in hs {
        assert_eq!(h.join().unwrap(), global::ID_VALUE);
    }
    // moving a device to another thread
    let h = std::thread::spawn(move || a.read32(reg).unwrap());
    assert_eq!(h.join().unwrap(), 1);
}

#[test]
fn register_access_survives_backpressure_config() {
    let mut dev = SimDevice::new(SimConfig { backpressure: Some((7, 0.5)), ..SimConfig::default() }).unwrap();
    for _ in 0..10 {
        assert_eq!(dev.read32(global::ID).unwrap(), global::ID_VALUE);
    }
}

#[test]
fn dma_memory_through_the_device_trait() {
    let mut dev = SimDevice::new(SimConfig::default()).unwrap();
    let r = dev.alloc_dma(256).unwrap();
    assert!(r.bus_addr >= 0x1_0000_0000 && r.bus_addr.is_multiple_of(64));
    dev.mem_write(r.bus_addr + 10, b"hello").unwrap();
    let mut b = [0u8; 5];
    dev.mem_read(r.bus_addr + 10, &mut b).unwrap();
    assert_eq!(&b, b"hello");
    assert!(dev.mem_read(r.bus_addr + 254, &mut b).is_err());
    dev.free_dma(r);
    assert!(dev.mem_read(r.bus_addr, &mut b).is_err());
}

#[test]
fn idle_and_wait_irq_count_cycles() {
    let mut dev = SimDevice::new(SimConfig::default()).unwrap();
    let c0 = dev.cycles();
    dev.idle(1000);
    assert_eq!(dev.cycles(), c0 + 1000);
    // nothing pending: times out after exactly the timeout
    assert_eq!(dev.wait_irq(0xFFFF, 500), 0);
    assert_eq!(dev.cycles(), c0 + 1500);
    assert!(dev.take_dma_faults().is_empty());
}

#[test]
fn devices_can_be_cabled_together() {
    let (wa, wb) = LinkWire::pair(64);
    let mut a = SimDevice::new(SimConfig::default()).unwrap();
    let mut b = SimDevice::new(SimConfig::default()).unwrap();
    a.set_wire(Box::new(wa));
    b.set_wire(Box::new(wb));
    for _ in 0..100 {
        a.step();
        b.step();
    }
    assert_eq!(a.read32(global::ID).unwrap(), global::ID_VALUE);
}

#[test]
fn waveform_dump_writes_an_fst_file() {
    // sim/build.rs always builds the traced `small` models
    assert!(Model::can_trace(HwConfig::Small));
    let path = std::env::temp_dir().join(format!("nic-sim-wave-{}.fst", std::process::id()));
    {
        let mut dev = SimDevice::new(SimConfig { wave: Some(path.clone()), ..SimConfig::default() }).unwrap();
        dev.read32(global::ID).unwrap();
        dev.idle(100);
    }
    let meta = std::fs::metadata(&path).expect("FST file written");
    assert!(meta.len() > 100, "FST file too small: {}", meta.len());
    let _ = std::fs::remove_file(&path);
}

#[test]
fn untraced_model_refuses_to_trace_or_falls_back() {
    // Whatever the build holds, asking for a wave on a model built without tracing
    // must fail cleanly, not crash.
    let mut m = Model::new_variant(HwConfig::Small, false).unwrap();
    let p = std::env::temp_dir().join(format!("nic-sim-nowave-{}.fst", std::process::id()));
    let r = m.open_wave(&p);
    assert_eq!(r.is_ok(), m.traced_build());
    let _ = std::fs::remove_file(&p);
}

#[test]
fn waveform_of_full_needs_the_traced_build() {
    // `full`'s traced models are built only with NIC_SIM_WAVES=all (sim/build.rs
    // `variants`): without them a waveform request says how to get one; with them it
    // writes the file.
    let path = std::env::temp_dir().join(format!("nic-sim-wave-full-{}.fst", std::process::id()));
    let r = SimDevice::new(SimConfig { wave: Some(path.clone()), ..SimConfig::new(HwConfig::Full) });
    if Model::can_trace(HwConfig::Full) {
        let mut dev = r.unwrap();
        dev.idle(10);
        drop(dev);
        assert!(std::fs::metadata(&path).expect("FST file written").len() > 100);
    } else {
        let e = r.err().expect("a waveform of an untraced model is refused");
        assert!(e.to_string().contains("NIC_SIM_WAVES=all"), "{e}");
        assert!(!path.exists(), "nothing written");
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
fn board_waveform_is_written_or_refused() {
    // The board model is traced only in a build with NIC_SIM_WAVES=all (sim/build.rs):
    // without it a waveform request says how to get one and writes nothing.
    let path = std::env::temp_dir().join(format!("nic-sim-wave-board-{}.fst", std::process::id()));
    let mut m = nic_sim::board_model::BoardModel::new();
    match m.open_trace(&path) {
        Ok(()) => {
            for t in 0..100u64 {
                let inputs = nic_sim::board_model::BoardInputs { clk_core: t & 1 == 1, ..Default::default() };
                m.eval(&inputs, t * 1000);
            }
            m.close_trace();
            assert!(std::fs::metadata(&path).expect("FST file written").len() > 100);
        }
        Err(e) => {
            assert!(e.contains("NIC_SIM_WAVES=all"), "{e}");
            assert!(!path.exists(), "nothing written");
        }
    }
    let _ = std::fs::remove_file(&path);
}
