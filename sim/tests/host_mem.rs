//! Host memory / IOMMU model: mapping, CPU access checks, and the DMA port protocol,
//! driven with hand-made port values (no RTL involved).

use nic_sim::host_mem::{HostMemConfig, HostMemory, DMA_BASE, GUARD_GAP};
use nic_sim::{DeviceError, DmaFault, Inputs, Outputs};

/// One cycle of the DMA port with the NIC side given by `out`: returns what the memory drove.
fn cycle(m: &mut HostMemory, out: &Outputs) -> Inputs {
    let mut inp = Inputs::default();
    m.drive(&mut inp);
    m.observe(&inp, out);
    inp
}

fn rd_req(addr: u64, len: u16, tag: u8) -> Outputs {
    Outputs {
        dma_rd_req_valid: true,
        dma_rd_req_addr: addr,
        dma_rd_req_len: len,
        dma_rd_req_tag: tag,
        dma_rd_rsp_ready: true,
        ..Outputs::default()
    }
}

fn rsp_ready() -> Outputs {
    Outputs { dma_rd_rsp_ready: true, ..Outputs::default() }
}

/// A write beat using the low 8 of the port's 16 lanes.
fn wr_beat(addr: u64, data: u64, strb: u8, last: bool, tag: u8) -> Outputs {
    Outputs {
        dma_wr_valid: true,
        dma_wr_addr: addr,
        dma_wr_data_lo: data,
        dma_wr_data_hi: 0,
        dma_wr_strb: strb as u16,
        dma_wr_last: last,
        dma_wr_tag: tag,
        ..Outputs::default()
    }
}

/// Collects read-response beats (cycle index, data, last, error, tag) for `n` cycles.
fn collect(m: &mut HostMemory, n: usize) -> Vec<(usize, u128, bool, bool, u8)> {
    let mut v = Vec::new();
    for c in 0..n {
        let i = cycle(m, &rsp_ready());
        if i.dma_rd_rsp_valid {
            v.push((c, i.dma_rd_rsp_data_lo as u128 | (i.dma_rd_rsp_data_hi as u128) << 64, i.dma_rd_rsp_last, i.dma_rd_rsp_error, i.dma_rd_rsp_tag));
        }
    }
    v
}

#[test]
fn alloc_maps_zeroed_aligned_regions_above_4g_with_guard_gaps() {
    let mut m = HostMemory::default();
    let a = m.alloc(100).unwrap();
    let b = m.alloc(4096).unwrap();
    let c = m.alloc(1).unwrap();
    assert!(a.bus_addr >= DMA_BASE && a.bus_addr > u32::MAX as u64);
    for r in [a, b, c] {
        assert_eq!(r.bus_addr % 64, 0);
        assert_eq!(m.read_vec(r.bus_addr, r.len).unwrap(), vec![0u8; r.len]);
    }
    assert!(b.bus_addr >= a.bus_addr + 100 + GUARD_GAP);
    assert!(c.bus_addr >= b.bus_addr + 4096 + GUARD_GAP);
    assert_eq!(m.mapped_bytes(), 100 + 4096 + 1);
    assert!(m.is_mapped(a.bus_addr, 100));
    assert!(!m.is_mapped(a.bus_addr, 101));
    assert!(!m.is_mapped(a.bus_addr - 1, 1));
}

#[test]
fn cpu_access_is_checked() {
    let mut m = HostMemory::default();
    let a = m.alloc(64).unwrap();
    m.write(a.bus_addr + 60, &[1, 2, 3, 4]).unwrap();
    assert_eq!(m.read_u32(a.bus_addr + 60).unwrap(), 0x0403_0201);
    assert_eq!(m.write(a.bus_addr + 61, &[0; 4]), Err(DeviceError::BadHostAccess { addr: a.bus_addr + 61, len: 4 }));
    let mut buf = [0u8; 8];
    assert!(m.read(a.bus_addr + 64, &mut buf).is_err());
    assert!(m.read(0x1000, &mut buf).is_err());
    // unchanged after the refused write
    assert_eq!(m.read_vec(a.bus_addr + 56, 8).unwrap(), vec![0, 0, 0, 0, 1, 2, 3, 4]);
    assert!(m.free(a.bus_addr));
    assert!(m.read(a.bus_addr, &mut buf).is_err());
    assert_eq!(m.mapped_bytes(), 0);
}

#[test]
fn out_of_memory() {
    let mut m = HostMemory::new(HostMemConfig { capacity: 10_000, ..HostMemConfig::default() });
    m.alloc(6000).unwrap();
    assert_eq!(m.alloc(6000), Err(DeviceError::OutOfDmaMemory { requested: 6000 }));
}

#[test]
fn unaligned_read_is_packed_from_lane_0_after_latency() {
    let mut m = HostMemory::new(HostMemConfig { latency: 16, ..HostMemConfig::default() });
    let r = m.alloc(64).unwrap();
    let bytes: Vec<u8> = (0..64u8).collect();
    m.write(r.bus_addr, &bytes).unwrap();
    // request 27 bytes from offset 3, accepted at the edge of cycle 0
    let i = cycle(&mut m, &rd_req(r.bus_addr + 3, 27, 5));
    assert!(i.dma_rd_req_ready);
    let beats = collect(&mut m, 40);
    assert_eq!(beats.len(), 2);
    // accepted at the end of cycle 0: first beat offered 16 cycles later (cycle 16 overall,
    // which is cycle 15 of `collect`)
    assert_eq!(beats[0].0, 15);
    assert_eq!(beats[0].1, u128::from_le_bytes(std::array::from_fn(|x| 3 + x as u8)));
    assert_eq!(beats[1].1, u128::from_le_bytes(std::array::from_fn(|x| if x < 11 { 19 + x as u8 } else { 0 })));
    assert_eq!((beats[0].2, beats[1].2), (false, true));
    assert!(beats.iter().all(|b| !b.3 && b.4 == 5));
    assert_eq!(beats[1].0, beats[0].0 + 1);
    assert!(m.take_faults().is_empty());
    assert!(m.dma_idle());
}

#[test]
fn back_to_back_reads_stream_without_bubbles_in_order() {
    let mut m = HostMemory::new(HostMemConfig { latency: 10, ..HostMemConfig::default() });
    let r = m.alloc(256).unwrap();
    let bytes: Vec<u8> = (0..=255u8).collect();
    m.write(r.bus_addr, &bytes).unwrap();
    for k in 0..4u64 {
        let i = cycle(&mut m, &rd_req(r.bus_addr + 64 * k, 64, k as u8));
        assert!(i.dma_rd_req_ready);
    }
    let beats = collect(&mut m, 40);
    assert_eq!(beats.len(), 16);
    for w in beats.windows(2) {
        assert_eq!(w[1].0, w[0].0 + 1, "bubble between beats");
    }
    for (j, b) in beats.iter().enumerate() {
        assert_eq!(b.4 as usize, j / 4);
        assert_eq!(b.2, j % 4 == 3);
        let first = (j * 16) as u8;
        assert_eq!(b.1, u128::from_le_bytes(std::array::from_fn(|x| first + x as u8)));
    }
}

#[test]
fn response_waits_for_rsp_ready() {
    let mut m = HostMemory::new(HostMemConfig { latency: 2, ..HostMemConfig::default() });
    let r = m.alloc(32).unwrap();
    m.write(r.bus_addr, &[7; 32]).unwrap();
    cycle(&mut m, &rd_req(r.bus_addr, 32, 1));
    let mut seen = 0;
    for c in 0..20 {
        let ready = c % 3 == 0;
        let out = Outputs { dma_rd_rsp_ready: ready, ..Outputs::default() };
        let i = cycle(&mut m, &out);
        if i.dma_rd_rsp_valid && ready {
            seen += 1;
        }
    }
    assert_eq!(seen, 2);
    assert!(m.dma_idle());
}

#[test]
fn unmapped_read_returns_one_error_beat_and_logs_fault() {
    let mut m = HostMemory::default();
    let r = m.alloc(64).unwrap();
    // runs 1 byte past the end into the guard gap
    cycle(&mut m, &rd_req(r.bus_addr + 8, 57, 2));
    // and one good read right behind it
    cycle(&mut m, &rd_req(r.bus_addr, 8, 3));
    let beats = collect(&mut m, 40);
    assert_eq!(beats.len(), 2);
    assert_eq!((beats[0].2, beats[0].3, beats[0].4), (true, true, 2));
    assert_eq!((beats[1].2, beats[1].3, beats[1].4), (true, false, 3));
    assert_eq!(m.take_faults(), vec![DmaFault { write: false, addr: r.bus_addr + 8, len: 57 }]);
    assert!(m.take_faults().is_empty());
}

#[test]
fn read_queue_limit_drops_request_ready() {
    let mut m = HostMemory::new(HostMemConfig { latency: 100, max_outstanding_reads: 2, ..HostMemConfig::default() });
    let r = m.alloc(64).unwrap();
    assert!(cycle(&mut m, &rd_req(r.bus_addr, 8, 0)).dma_rd_req_ready);
    assert!(cycle(&mut m, &rd_req(r.bus_addr, 8, 0)).dma_rd_req_ready);
    assert!(!cycle(&mut m, &rd_req(r.bus_addr, 8, 0)).dma_rd_req_ready);
    assert_eq!(m.outstanding_reads(), 2);
}

#[test]
fn strobed_writes_and_one_response_the_cycle_after_last() {
    let mut m = HostMemory::default();
    let r = m.alloc(32).unwrap();
    let a = r.bus_addr;
    let i = cycle(&mut m, &wr_beat(a, 0x1122_3344_5566_7788, 0b1111_0000, false, 1));
    assert!(i.dma_wr_ready && !i.dma_wr_rsp_valid);
    let i = cycle(&mut m, &wr_beat(a + 8, 0xAABB_CCDD_EEFF_0011, 0b0101_1010, true, 1));
    assert!(!i.dma_wr_rsp_valid);
    let i = cycle(&mut m, &Outputs::default());
    assert!(i.dma_wr_rsp_valid && !i.dma_wr_rsp_error);
    assert_eq!(i.dma_wr_rsp_tag, 1);
    let i = cycle(&mut m, &Outputs::default());
    assert!(!i.dma_wr_rsp_valid, "response must be a single-cycle pulse");
    assert_eq!(
        m.read_vec(a, 16).unwrap(),
        vec![0, 0, 0, 0, 0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0xEE, 0xDD, 0, 0xBB, 0]
    );
    assert_eq!(m.stats().write_bytes, 8);
    assert!(m.take_faults().is_empty());
}

#[test]
fn unaligned_write_address_lane_0() {
    let mut m = HostMemory::default();
    let r = m.alloc(32).unwrap();
    // addr is the bus address of lane 0; lanes 5..7 land at addr+5..addr+7
    cycle(&mut m, &wr_beat(r.bus_addr + 3, u64::from_le_bytes([1, 2, 3, 4, 5, 6, 7, 8]), 0b1110_0000, true, 0));
    assert_eq!(m.read_vec(r.bus_addr + 8, 3).unwrap(), vec![6, 7, 8]);
    // a lane-0 address below the region is fine when the enabled lanes are inside it
    cycle(&mut m, &wr_beat(r.bus_addr - 4, u64::from_le_bytes([9; 8]), 0b1111_0000, true, 0));
    assert_eq!(m.read_vec(r.bus_addr, 4).unwrap(), vec![9; 4]);
    assert!(m.take_faults().is_empty());
}

#[test]
fn refused_write_beat_leaves_memory_untouched_and_fails_the_burst() {
    let mut m = HostMemory::default();
    let r = m.alloc(16).unwrap();
    let a = r.bus_addr;
    cycle(&mut m, &wr_beat(a, u64::MAX, 0xFF, false, 2));
    // straddles the end of the region: refused whole
    cycle(&mut m, &wr_beat(a + 12, u64::MAX, 0xFF, false, 2));
    // entirely in the guard gap, contiguous with the previous refused beat
    cycle(&mut m, &wr_beat(a + 20, u64::MAX, 0xFF, false, 2));
    // back inside (legal beat in a failed burst is still written)
    cycle(&mut m, &wr_beat(a + 8, 0x0101_0101_0101_0101, 0x0F, true, 2));
    let i = cycle(&mut m, &Outputs::default());
    assert!(i.dma_wr_rsp_valid && i.dma_wr_rsp_error);
    assert_eq!(i.dma_wr_rsp_tag, 2);
    let mut expect = vec![0xFFu8; 8];
    expect.extend_from_slice(&[1, 1, 1, 1, 0, 0, 0, 0]);
    assert_eq!(m.read_vec(a, 16).unwrap(), expect);
    assert_eq!(m.take_faults(), vec![DmaFault { write: true, addr: a + 12, len: 16 }]);
    // next burst is clean again
    cycle(&mut m, &wr_beat(a, 0, 0x01, true, 0));
    let i = cycle(&mut m, &Outputs::default());
    assert!(i.dma_wr_rsp_valid && !i.dma_wr_rsp_error);
}

#[test]
fn write_with_no_strobes_touches_nothing() {
    let mut m = HostMemory::default();
    cycle(&mut m, &wr_beat(0x10, u64::MAX, 0, true, 0));
    let i = cycle(&mut m, &Outputs::default());
    assert!(i.dma_wr_rsp_valid && !i.dma_wr_rsp_error);
    assert!(m.take_faults().is_empty());
}

#[test]
fn random_backpressure_is_seeded_and_still_delivers_everything() {
    let run = |seed: u64| {
        let mut m = HostMemory::new(HostMemConfig { latency: 4, backpressure: Some((seed, 0.3)), ..HostMemConfig::default() });
        let r = m.alloc(512).unwrap();
        let bytes: Vec<u8> = (0..512).map(|i| (i * 7 % 251) as u8).collect();
        m.write(r.bus_addr, &bytes).unwrap();
        let mut got = Vec::new();
        let mut trace = Vec::new();
        let mut issued = 0u64;
        let mut wr_stalls = 0;
        for _ in 0..2000 {
            let mut out = rsp_ready();
            if issued < 8 {
                out.dma_rd_req_valid = true;
                out.dma_rd_req_addr = r.bus_addr + 64 * issued;
                out.dma_rd_req_len = 64;
            }
            let i = cycle(&mut m, &out);
            if !i.dma_wr_ready {
                wr_stalls += 1;
            }
            if out.dma_rd_req_valid && i.dma_rd_req_ready {
                issued += 1;
            }
            trace.push(i.dma_rd_rsp_valid);
            if i.dma_rd_rsp_valid {
                got.extend_from_slice(&i.dma_rd_rsp_data_lo.to_le_bytes());
                got.extend_from_slice(&i.dma_rd_rsp_data_hi.to_le_bytes());
            }
        }
        assert_eq!(got, bytes);
        assert!(wr_stalls > 300 && wr_stalls < 900, "{wr_stalls}");
        trace
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}
