// scratch: watch TX write-backs
use nic_driver::{IrqMode, Nic, NicConfig, TxFrame};
use nic_sim::{HwConfig, SimConfig, SimDevice};
fn main() {
    let dev = SimDevice::new(SimConfig::new(HwConfig::Small)).unwrap();
    let cfg = NicConfig { tx_ring_log2: 4, rx_ring_log2: 6, irq_mode: IrqMode::Polling, ..NicConfig::default() };
    let mut nic = Nic::open_with(dev, cfg).unwrap();
    nic.set_loopback(true).unwrap();
    let frame = vec![0x55u8; 60];
    let frames: Vec<TxFrame> = (0..4).map(|_| TxFrame::new(&frame)).collect();
    let n = nic.tx_burst(&frames).unwrap();
    eprintln!("queued {n}");
    let dev = nic.device_mut();
    for c in 0..400 {
        let i = dev.inputs().clone();
        let o = dev.step().clone();
        if o.dma_wr_valid && i.dma_wr_ready { println!("{c} wr tag {} addr {:#x} lo {:#018x} strb {:#x} last {}", o.dma_wr_tag, o.dma_wr_addr, o.dma_wr_data_lo, o.dma_wr_strb, o.dma_wr_last as u8); }
        if o.dma_rd_req_valid && i.dma_rd_req_ready { println!("{c} rd req tag {} addr {:#x} len {}", o.dma_rd_req_tag, o.dma_rd_req_addr, o.dma_rd_req_len); }
        if i.dma_wr_rsp_valid { println!("{c} wr rsp tag {} err {}", i.dma_wr_rsp_tag, i.dma_wr_rsp_error as u8); }
    }
}
