//! Frames shorter than 60 bytes: the MAC pads them with zeros to 60 before the FCS (IEEE
//! 802.3 minimum frame, what NICs do for the stack), on the wire and through loopback;
//! 60 bytes and longer go out unchanged. Golden: `fcs::padded` + `fcs::with_fcs`.

mod common;

use common::*;
use nic_driver::{NicConfig, TxFrame};
use nic_testbench::fcs;
use nic_testbench::gen::{random_cuts, FrameGen};
use rand::RngCore;

const LENGTHS: [usize; 12] = [1, 7, 8, 14, 42, 52, 53, 56, 57, 59, 60, 61];

#[test]
fn short_frames_are_padded_on_the_wire() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig::default());
        nic.set_loopback(false).unwrap();
        nic.device_mut().take_tx_frames();
        let mut g = FrameGen::new(11);
        let frames: Vec<Vec<u8>> = LENGTHS.iter().map(|&l| (0..l).map(|_| g.rng().next_u32() as u8 | 1).collect()).collect();
        // scatter-gather too: a short frame may arrive in pieces
        let tx: Vec<TxFrame<'_>> = frames.iter().map(|f| TxFrame::split(f, &random_cuts(g.rng(), f.len(), 2.min(f.len())))).collect();
        assert_eq!(nic.tx_burst(&tx).unwrap(), frames.len());
        let wire = take_wire_frames(nic.device_mut(), frames.len());
        assert_eq!(wire.len(), frames.len());
        for ((w, bad), f) in wire.iter().zip(&frames) {
            assert!(!bad, "{}-byte frame marked bad on the wire", f.len());
            assert_eq!(w, &fcs::with_fcs(&fcs::padded(f)), "{}-byte frame on the wire", f.len());
        }
        nic.tx_flush(TIMEOUT).unwrap();
        let s = nic.stats().unwrap();
        assert_eq!(s.tx_frames, frames.len() as u32);
        assert_eq!(s.tx_bytes, frames.iter().map(|f| f.len() as u32).sum::<u32>(), "TX_BYTES counts what the driver handed over");
    });
}

#[test]
fn short_frames_come_back_padded_through_loopback() {
    each_backend(HwSize::Small, |_, dev| {
        let mut nic = open(dev, NicConfig::default());
        nic.set_loopback(true).unwrap();
        let mut g = FrameGen::new(12);
        let frames: Vec<Vec<u8>> = LENGTHS.iter().map(|&l| (0..l).map(|_| g.rng().next_u32() as u8).collect()).collect();
        let tx: Vec<TxFrame<'_>> = frames.iter().map(|f| TxFrame::new(f)).collect();
        assert_eq!(nic.tx_burst(&tx).unwrap(), frames.len());
        let want: Vec<Vec<u8>> = frames.iter().map(|f| fcs::padded(f)).collect();
        assert_frames_eq(&receive(&mut nic, frames.len()), &want);
        let s = nic.stats().unwrap();
        assert_eq!(s.rx_drops(), 0, "{s:?}");
    });
}
