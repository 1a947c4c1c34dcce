//! SIGINT and SIGTERM as a flag the long-running commands (`nic tap`, `nic rdma-perf`)
//! poll: they end their loops, print their summaries and remove their interfaces instead
//! of dying mid-frame.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Installs the handlers. No SA_RESTART, so a poll(2) in progress returns at once.
pub fn catch_stop_signals() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only stores to an atomic.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// A signal came (or [`request_stop`] was called).
pub fn stopped() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Stops as a signal would (a thread that failed ends the others).
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}
