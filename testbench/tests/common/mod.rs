//! Helpers shared by the suites.
#![allow(dead_code)]

pub mod hdl;
pub mod icarus;

use nic_driver::{Device, Dir, DriverError, Nic, NicConfig, RxFrame, TxFrame};
pub use nic_testbench::backend::{Backend, HwSize, TestDevice};
use nic_testbench::gen::sequence_of;

/// Cycles a test waits for something that should take far less.
pub const TIMEOUT: u64 = 200_000;

pub type TestNic<'a> = Nic<&'a mut Box<dyn TestDevice>>;

/// Runs `f` once per selected backend (NIC_BACKEND=rtl|model|both), naming the backend
/// in any panic message.
pub fn each_backend(size: HwSize, mut f: impl FnMut(Backend, &mut Box<dyn TestDevice>)) {
    for b in Backend::selected() {
        eprintln!("-- backend {b:?}, {size:?}");
        let mut dev = b.open(size);
        f(b, &mut dev);
    }
}

pub fn open<'a>(dev: &'a mut Box<dyn TestDevice>, cfg: NicConfig) -> TestNic<'a> {
    Nic::open_with(dev, cfg).expect("open NIC")
}

/// Polls TX completions until the queue reports an error; panics if none comes.
pub fn wait_tx_error<D: Device>(nic: &mut Nic<D>) -> DriverError {
    wait_tx_error_within(nic, TIMEOUT)
}

/// [`wait_tx_error`] with a timeout of its own (a slow device: the iCE40 board's link).
pub fn wait_tx_error_within<D: Device>(nic: &mut Nic<D>, timeout: u64) -> DriverError {
    let start = nic.cycles();
    loop {
        if let Err(e) = nic.tx_reap() {
            return e;
        }
        assert!(nic.cycles() - start < timeout, "TX queue never reported an error; state {:?}", nic.queue_state(Dir::Tx, 0));
        nic.device_mut().idle(64);
    }
}

/// Polls RX until the queue reports an error; panics if a frame or nothing arrives.
pub fn wait_rx_error<D: Device>(nic: &mut Nic<D>) -> DriverError {
    wait_rx_error_within(nic, TIMEOUT)
}

/// [`wait_rx_error`] with a timeout of its own.
pub fn wait_rx_error_within<D: Device>(nic: &mut Nic<D>, timeout: u64) -> DriverError {
    let start = nic.cycles();
    loop {
        match nic.rx_burst(16) {
            Err(e) => return e,
            Ok(f) => assert!(f.is_empty(), "unexpected frames {:?}", f.iter().map(|f| f.data.len()).collect::<Vec<_>>()),
        }
        assert!(nic.cycles() - start < timeout, "RX queue never reported an error; state {:?}", nic.queue_state(Dir::Rx, 0));
        nic.device_mut().idle(64);
    }
}

/// Sends frames in one burst (all must fit) and waits until they are reaped.
pub fn send_all<D: Device>(nic: &mut Nic<D>, frames: &[Vec<u8>]) {
    let tx: Vec<TxFrame<'_>> = frames.iter().map(|f| TxFrame::new(f)).collect();
    let n = nic.tx_burst(&tx).expect("tx_burst");
    assert_eq!(n, frames.len(), "ring too small for the test's burst");
    nic.tx_flush(TIMEOUT).expect("tx_flush");
}

/// Receives exactly `count` frames (polling), failing with what arrived on timeout.
pub fn receive<D: Device>(nic: &mut Nic<D>, count: usize) -> Vec<RxFrame> {
    let got = nic.rx_collect(count, TIMEOUT).expect("rx");
    assert_eq!(got.len(), count, "received {} of {count} frames: sequence numbers {:?}", got.len(), seqs(&got));
    got
}

/// Lets the device run, then asserts no frame is waiting.
pub fn expect_no_frames<D: Device>(nic: &mut Nic<D>) {
    nic.device_mut().idle(20_000);
    let got = nic.rx_burst(64).expect("rx");
    assert!(got.is_empty(), "unexpected frames: sequence numbers {:?}", seqs(&got));
}

pub fn seqs(frames: &[RxFrame]) -> Vec<Option<u32>> {
    frames.iter().map(|f| sequence_of(&f.data)).collect()
}

/// Asserts received frames equal the expected ones, byte for byte and in order.
pub fn assert_frames_eq(got: &[RxFrame], want: &[Vec<u8>]) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if g.data != *w {
            panic!(
                "frame {i}: sent {} bytes (seq {:?}), received {} bytes (seq {:?}), first difference at {:?}",
                w.len(),
                sequence_of(w),
                g.data.len(),
                sequence_of(&g.data),
                nic_testbench::traffic::first_difference(w, &g.data)
            );
        }
    }
}

/// Waits until the device put `count` frames on the TX wire.
pub fn take_wire_frames<W: Device + nic_testbench::WireAccess + ?Sized>(dev: &mut W, count: usize) -> Vec<(Vec<u8>, bool)> {
    let mut out = Vec::new();
    let start = dev.cycles();
    while out.len() < count {
        out.extend(dev.take_tx_frames());
        assert!(dev.cycles() - start < TIMEOUT, "only {} of {count} frames reached the wire", out.len());
        dev.idle(64);
    }
    out.extend(dev.take_tx_frames());
    out
}
