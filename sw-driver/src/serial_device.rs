//! [`SerialDevice`]: the driver's [`Device`] over the FPGA board's UART register bridge
//! (docs/fpga.md, protocol in [`crate::serial`]), on any [`ByteLink`]: a serial port
//! ([`TtyLink`]) for the board, the simulated board's UART pins (`nic_sim::board`) in the
//! board test. The driver above it is the one that drives the simulator.
//!
//! What differs from a PCIe host, and how this Device bridges it:
//! * **DMA memory is the board's block RAM** (`2^mem_size_log2` bytes at bus address
//!   [`HOST_MEM_BASE`]): [`Device::alloc_dma`] hands out pieces of it (64-byte aligned,
//!   zeroed with one `'Z'` command) and CPU accesses become `'M'`/`'D'` commands. The
//!   board checks only the window's bounds, not regions: a NIC access outside every region
//!   but inside the window is not a fault there (the simulator's IOMMU is stricter).
//! * **Interrupts are polled** (`'I'` gives the 16 irq lines and the core cycle counter).
//! * **Time** is the board's core clock: [`ByteLink::cycles`] (the simulator counts them,
//!   a serial port converts wall-clock time at the core frequency).
//! * **DMA faults** come from the board's fault log (`'F'`): a count and the latest fault;
//!   [`Device::take_dma_faults`] returns the latest one when the count is not zero.

use crate::device::{DeviceError, DmaFault, DmaRegion};
use crate::dma_window::RegionStack;
use crate::serial::{Answer, AnswerParser, Request, SerialError, Status, MAX_XFER, VERSION};
use crate::Device;
use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// Bus address of the board's host memory (as the simulator's first region: above
/// 4 GiB, so an address truncated to 32 bits faults).
pub const HOST_MEM_BASE: u64 = 0x1_0000_0000;


/// Core cycles to wait for the first byte of an answer before giving up. Generous: the
/// longest answer (a 64 KiB memory read) takes ~650 k bit times at 3 Mbaud, but the
/// board starts answering at once.
pub const ANSWER_TIMEOUT_CYCLES: u64 = 2_000_000;

/// A byte stream to the board and the board's notion of time.
pub trait ByteLink {
    /// Sends bytes to the board.
    fn send(&mut self, bytes: &[u8]) -> std::io::Result<()>;
    /// The next byte from the board; `ErrorKind::TimedOut` when none came within
    /// `timeout_cycles` core cycles.
    fn recv(&mut self, timeout_cycles: u64) -> std::io::Result<u8>;
    /// Lets `cycles` core cycles pass.
    fn wait_cycles(&mut self, cycles: u64);
    /// Core cycles since the link was opened.
    fn cycles(&self) -> u64;
}

/// The driver's [`Device`] over a [`ByteLink`] to the board's UART bridge.
pub struct SerialDevice<L: ByteLink> {
    link: L,
    /// The regions handed out of the board's host memory.
    window: RegionStack,
    /// Core cycles to wait for an answer.
    pub answer_timeout_cycles: u64,
}

impl<L: ByteLink> SerialDevice<L> {
    /// Identifies the board (`'V'`: magic and protocol version) and learns its memory size.
    pub fn open(link: L) -> Result<Self, SerialError> {
        let mut d = SerialDevice { link, window: RegionStack::new(HOST_MEM_BASE, 0), answer_timeout_cycles: ANSWER_TIMEOUT_CYCLES };
        match d.transact(&Request::Identify)? {
            Answer::Identify { version, mem_size_log2 } => {
                if version != VERSION {
                    return Err(SerialError::Io(std::io::Error::other(format!("board speaks bridge protocol version {version}, this driver {VERSION}"))));
                }
                d.window = RegionStack::new(HOST_MEM_BASE, 1u64 << mem_size_log2);
            }
            other => unreachable!("identify answered {other:?}"),
        }
        Ok(d)
    }

    /// Bytes of host memory on the board.
    pub fn mem_size(&self) -> u64 {
        self.window.size()
    }
    pub fn link(&self) -> &L {
        &self.link
    }
    pub fn link_mut(&mut self) -> &mut L {
        &mut self.link
    }

    /// Sends one request and reads its whole answer.
    pub fn transact(&mut self, req: &Request) -> Result<Answer, SerialError> {
        self.link.send(&req.encode())?;
        let mut parser = AnswerParser::new(req);
        loop {
            let b = self.link.recv(self.answer_timeout_cycles)?;
            if let Some(a) = parser.push(b)? {
                return Ok(a);
            }
        }
    }

    /// The board's fault log (clears its count).
    pub fn fault_log(&mut self) -> Result<crate::serial::FaultLog, SerialError> {
        match self.transact(&Request::Faults)? {
            Answer::Faults(f) => Ok(f),
            other => unreachable!("fault log answered {other:?}"),
        }
    }

    /// The NIC's interrupt lines and the board's core cycle counter.
    pub fn poll(&mut self) -> Result<(u16, u64), SerialError> {
        match self.transact(&Request::Poll)? {
            Answer::Poll { irq, cycles } => Ok((irq, cycles)),
            other => unreachable!("poll answered {other:?}"),
        }
    }

    /// Window offset of `[bus_addr, bus_addr + len)` if it lies inside one region.
    fn offset_in_region(&self, bus_addr: u64, len: usize) -> Result<u32, DeviceError> {
        let off = self.window.offset_of(bus_addr, len as u64).ok_or(DeviceError::BadHostAccess { addr: bus_addr, len })?;
        Ok(off as u32)
    }
}

fn link_error(what: &str, e: SerialError) -> DeviceError {
    DeviceError::Link { detail: format!("{what}: {e}") }
}

fn status_error(what: &str, offset: u32, status: Status) -> DeviceError {
    match status {
        Status::Timeout => DeviceError::RegisterTimeout { offset },
        s => DeviceError::Link { detail: format!("{what} at {offset:#x}: board answered {s:?}") },
    }
}

impl<L: ByteLink> Device for SerialDevice<L> {
    fn read32(&mut self, offset: u32) -> Result<u32, DeviceError> {
        match self.transact(&Request::ReadReg { addr: offset }).map_err(|e| link_error("register read", e))? {
            Answer::ReadReg { status: Status::Ok, value } => Ok(value),
            Answer::ReadReg { status, .. } => Err(status_error("register read", offset, status)),
            other => unreachable!("register read answered {other:?}"),
        }
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DeviceError> {
        match self.transact(&Request::WriteReg { addr: offset, value }).map_err(|e| link_error("register write", e))? {
            Answer::WriteReg { status: Status::Ok } => Ok(()),
            Answer::WriteReg { status } => Err(status_error("register write", offset, status)),
            other => unreachable!("register write answered {other:?}"),
        }
    }

    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        let region = self.window.alloc(len)?;
        let off = (region.bus_addr - HOST_MEM_BASE) as u32;
        let zeroed = match self.transact(&Request::MemZero { off, len: len as u32 }) {
            Ok(Answer::MemZero { status: Status::Ok }) => Ok(()),
            Ok(Answer::MemZero { status }) => Err(DeviceError::Link { detail: format!("memory zero at {off:#x}: board answered {status:?}") }),
            Ok(other) => unreachable!("memory zero answered {other:?}"),
            Err(e) => Err(link_error("memory zero", e)),
        };
        if let Err(e) = zeroed {
            self.window.free(region);
            return Err(e);
        }
        Ok(region)
    }

    /// Frees the region; its memory is reused only when it is the newest one (the
    /// allocator is a stack, which is how the driver opens and closes queues).
    fn free_dma(&mut self, region: DmaRegion) {
        self.window.free(region);
    }

    fn mem_write(&mut self, bus_addr: u64, data: &[u8]) -> Result<(), DeviceError> {
        let off = self.offset_in_region(bus_addr, data.len())?;
        for (i, chunk) in data.chunks(MAX_XFER).enumerate() {
            let o = off + (i * MAX_XFER) as u32;
            match self.transact(&Request::MemWrite { off: o, data: chunk.to_vec() }).map_err(|e| link_error("memory write", e))? {
                Answer::MemWrite { status: Status::Ok } => {}
                Answer::MemWrite { status } => return Err(DeviceError::Link { detail: format!("memory write at {o:#x}: board answered {status:?}") }),
                other => unreachable!("memory write answered {other:?}"),
            }
        }
        Ok(())
    }

    fn mem_read(&mut self, bus_addr: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        let off = self.offset_in_region(bus_addr, buf.len())?;
        for (i, chunk) in buf.chunks_mut(MAX_XFER).enumerate() {
            let o = off + (i * MAX_XFER) as u32;
            match self.transact(&Request::MemRead { off: o, len: chunk.len() as u16 }).map_err(|e| link_error("memory read", e))? {
                Answer::MemRead { status: Status::Ok, data } if data.len() == chunk.len() => chunk.copy_from_slice(&data),
                Answer::MemRead { status, data } => return Err(DeviceError::Link { detail: format!("memory read at {o:#x}: board answered {status:?} with {} bytes", data.len()) }),
                other => unreachable!("memory read answered {other:?}"),
            }
        }
        Ok(())
    }

    fn wait_irq(&mut self, mask: u32, timeout_cycles: u64) -> u32 {
        let start = self.link.cycles();
        loop {
            match self.poll() {
                Ok((irq, _)) if irq as u32 & mask != 0 => return irq as u32 & mask,
                Ok(_) => {}
                Err(_) => return 0,
            }
            if self.link.cycles().saturating_sub(start) >= timeout_cycles {
                return 0;
            }
        }
    }

    fn idle(&mut self, cycles: u64) {
        self.link.wait_cycles(cycles);
    }

    fn cycles(&self) -> u64 {
        self.link.cycles()
    }

    fn take_dma_faults(&mut self) -> Vec<DmaFault> {
        match self.fault_log() {
            Ok(f) if f.count > 0 => vec![DmaFault { write: f.write, addr: f.addr, len: f.len as u64 }],
            _ => Vec::new(),
        }
    }
}

/// A serial port (the FT2232H's UART channel): raw 8N1 at `baud`, set with `stty`.
pub struct TtyLink {
    port: std::fs::File,
    core_hz: f64,
    opened: Instant,
}

impl TtyLink {
    /// Opens `path` (e.g. /dev/ttyUSB1) at `baud`; `core_hz` converts wall-clock time to
    /// the board's core cycles.
    pub fn open(path: &Path, baud: u32, core_hz: f64) -> std::io::Result<Self> {
        // raw bytes, no echo, reads return after 0.1 s without data (VMIN 0, VTIME 1)
        let st = std::process::Command::new("stty")
            .arg("-F")
            .arg(path)
            .args(["raw", "-echo", "-crtscts", "min", "0", "time", "1"])
            .arg(baud.to_string())
            .status()?;
        if !st.success() {
            return Err(std::io::Error::other(format!("stty could not set {} to {baud} baud raw", path.display())));
        }
        let port = std::fs::OpenOptions::new().read(true).write(true).open(path)?;
        Ok(TtyLink { port, core_hz, opened: Instant::now() })
    }
}

impl ByteLink for TtyLink {
    fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.port.write_all(bytes)?;
        self.port.flush()
    }
    fn recv(&mut self, timeout_cycles: u64) -> std::io::Result<u8> {
        let deadline = Instant::now() + Duration::from_secs_f64((timeout_cycles as f64 / self.core_hz).max(0.2));
        let mut b = [0u8; 1];
        loop {
            if self.port.read(&mut b)? == 1 {
                return Ok(b[0]);
            }
            if Instant::now() >= deadline {
                return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "no answer from the board"));
            }
        }
    }
    fn wait_cycles(&mut self, cycles: u64) {
        std::thread::sleep(Duration::from_secs_f64(cycles as f64 / self.core_hz));
    }
    fn cycles(&self) -> u64 {
        (self.opened.elapsed().as_secs_f64() * self.core_hz) as u64
    }
}
