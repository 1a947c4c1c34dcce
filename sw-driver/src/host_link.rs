//! [`LinkDevice`]: the driver's [`Device`] over the iCE40 board's host link (the board
//! side is `nic_hw::board::host_link::HostLink`, whose module doc is the protocol), on any
//! [`ByteLink`]. The board has no host memory: the NIC's DMA requests come over the link
//! and this device serves them from memory in this process, as a PCIe root complex serves
//! a NIC from the host's RAM, with an IOMMU's checks: a request outside every region
//! allocated with [`Device::alloc_dma`] is refused (error beat, or write response with
//! error, no byte written) and logged as a [`DmaFault`].
//!
//! The link carries everything, so this device reads it whenever it waits: for a register
//! answer, in [`Device::wait_irq`] and in [`Device::idle`]. DMA is served only then, as
//! the board cannot reach the host otherwise. Interrupt lines arrive as `'q'` messages
//! when they change.

use crate::device::{DeviceError, DmaFault, DmaRegion};
use crate::dma_window::RegionStack;
use crate::serial_device::{ByteLink, HOST_MEM_BASE};
use crate::Device;

/// The board's answer to `'V'`.
pub const LINK_MAGIC: [u8; 4] = *b"NICL";
pub const LINK_VERSION: u8 = 1;

/// Core cycles to wait for a register answer before giving up (the link may be busy with
/// a write beat or a read request ahead of it: 28 bytes, ~300 bit times).
pub const LINK_ANSWER_TIMEOUT_CYCLES: u64 = 2_000_000;

/// Bytes of host memory this device hands out (from [`HOST_MEM_BASE`]).
pub const LINK_MEM_SIZE: u64 = 16 << 20;

/// Field bytes after the kind byte of each board-to-host message.
pub fn board_message_len(kind: u8) -> Option<usize> {
    match kind {
        b'w' => Some(1),
        b'r' => Some(5),
        b'Q' => Some(11),
        b'X' => Some(27),
        b'q' => Some(2),
        b'v' => Some(6),
        b'?' => Some(1),
        _ => None,
    }
}

/// A board-to-host message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardMessage {
    RegWritten { status: u8 },
    RegRead { status: u8, value: u32 },
    ReadRequest { addr: u64, len: u16, tag: u8 },
    WriteBeat { addr: u64, strb: u16, last: bool, tag: u8, data: [u8; 16] },
    Irq(u16),
    Identity { magic: [u8; 4], version: u8, overruns: u8 },
    Unknown(u8),
}

impl BoardMessage {
    /// Decodes a whole message (kind byte and fields).
    pub fn decode(bytes: &[u8]) -> Option<BoardMessage> {
        let (&kind, f) = bytes.split_first()?;
        if board_message_len(kind)? != f.len() {
            return None;
        }
        let u64_at = |i: usize| u64::from_le_bytes(f[i..i + 8].try_into().unwrap());
        let u16_at = |i: usize| u16::from_le_bytes([f[i], f[i + 1]]);
        Some(match kind {
            b'w' => BoardMessage::RegWritten { status: f[0] },
            b'r' => BoardMessage::RegRead { status: f[0], value: u32::from_le_bytes(f[1..5].try_into().unwrap()) },
            b'Q' => BoardMessage::ReadRequest { addr: u64_at(0), len: u16_at(8), tag: f[10] & 0xf },
            b'X' => BoardMessage::WriteBeat { addr: u64_at(0), strb: u16_at(8), last: f[10] & 1 != 0, tag: f[10] >> 4, data: f[11..27].try_into().unwrap() },
            b'q' => BoardMessage::Irq(u16_at(0)),
            b'v' => BoardMessage::Identity { magic: f[0..4].try_into().unwrap(), version: f[4], overruns: f[5] },
            _ => BoardMessage::Unknown(f[0]),
        })
    }
}

/// Host-to-board messages.
pub fn encode_reg_write(addr: u16, value: u32) -> Vec<u8> {
    let mut m = vec![b'W'];
    m.extend_from_slice(&addr.to_le_bytes());
    m.extend_from_slice(&value.to_le_bytes());
    m
}
pub fn encode_reg_read(addr: u16) -> Vec<u8> {
    let mut m = vec![b'R'];
    m.extend_from_slice(&addr.to_le_bytes());
    m
}
fn flags(last: bool, error: bool, tag: u8) -> u8 {
    u8::from(last) | u8::from(error) << 1 | (tag & 0xf) << 4
}
pub fn encode_read_beat(last: bool, error: bool, tag: u8, data: &[u8; 16]) -> Vec<u8> {
    let mut m = vec![b'B', flags(last, error, tag)];
    m.extend_from_slice(data);
    m
}
pub fn encode_write_response(error: bool, tag: u8) -> Vec<u8> {
    vec![b'K', flags(false, error, tag)]
}

/// The driver's [`Device`] over a [`ByteLink`] to the board's host link.
pub struct LinkDevice<L: ByteLink> {
    link: L,
    /// DMA memory: `LINK_MEM_SIZE` bytes from `HOST_MEM_BASE`, and its regions.
    mem: Vec<u8>,
    window: RegionStack,
    irq: u16,
    faults: Vec<DmaFault>,
    /// Some beat of the write burst in progress was refused.
    burst_error: bool,
    /// Bytes of the message being received.
    partial: Vec<u8>,
    /// The answer to the register command in flight, once it came.
    answer: Option<BoardMessage>,
    /// Core cycles to wait for a register answer.
    pub answer_timeout_cycles: u64,
    /// DMA served: read requests, write beats.
    pub reads_served: u64,
    pub beats_written: u64,
}

impl<L: ByteLink> LinkDevice<L> {
    /// Identifies the board (`'V'`: magic and version).
    pub fn open(link: L) -> Result<Self, DeviceError> {
        let mut d = LinkDevice {
            link,
            mem: vec![0; LINK_MEM_SIZE as usize],
            window: RegionStack::new(HOST_MEM_BASE, LINK_MEM_SIZE),
            irq: 0,
            faults: Vec::new(),
            burst_error: false,
            partial: Vec::new(),
            answer: None,
            answer_timeout_cycles: LINK_ANSWER_TIMEOUT_CYCLES,
            reads_served: 0,
            beats_written: 0,
        };
        match d.command(&[b'V'], "identify")? {
            BoardMessage::Identity { magic, version, .. } if magic == LINK_MAGIC && version == LINK_VERSION => Ok(d),
            BoardMessage::Identity { magic, version, .. } => Err(link_error(format!("board identifies as {magic:?} version {version}, this driver speaks {LINK_MAGIC:?} version {LINK_VERSION}"))),
            other => Err(link_error(format!("identify answered {other:?}"))),
        }
    }

    pub fn link(&self) -> &L {
        &self.link
    }
    pub fn link_mut(&mut self) -> &mut L {
        &mut self.link
    }

    /// Read response beats the board lost (`'v'`).
    pub fn overruns(&mut self) -> Result<u8, DeviceError> {
        match self.command(&[b'V'], "identify")? {
            BoardMessage::Identity { overruns, .. } => Ok(overruns),
            other => Err(link_error(format!("identify answered {other:?}"))),
        }
    }

    /// Sends a command and serves the link until its answer comes.
    fn command(&mut self, msg: &[u8], what: &str) -> Result<BoardMessage, DeviceError> {
        self.answer = None;
        self.link.send(msg).map_err(|e| link_error(format!("{what}: {e}")))?;
        let deadline = self.link.cycles() + self.answer_timeout_cycles;
        while self.answer.is_none() {
            let left = deadline.saturating_sub(self.link.cycles());
            if left == 0 {
                return Err(link_error(format!("{what}: no answer within {} core cycles", self.answer_timeout_cycles)));
            }
            match self.link.recv(left) {
                Ok(b) => self.take_byte(b)?,
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(e) => return Err(link_error(format!("{what}: {e}"))),
            }
        }
        Ok(self.answer.take().unwrap())
    }

    /// Serves the link for `cycles` core cycles, or until `stop` holds.
    fn serve(&mut self, cycles: u64, stop: impl Fn(&Self) -> bool) -> Result<(), DeviceError> {
        let deadline = self.link.cycles() + cycles;
        while !stop(self) {
            let left = deadline.saturating_sub(self.link.cycles());
            if left == 0 {
                break;
            }
            match self.link.recv(left) {
                Ok(b) => self.take_byte(b)?,
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => break,
                Err(e) => return Err(link_error(e.to_string())),
            }
        }
        Ok(())
    }

    /// One byte from the board: completes a message and acts on it.
    fn take_byte(&mut self, b: u8) -> Result<(), DeviceError> {
        self.partial.push(b);
        let kind = self.partial[0];
        let Some(len) = board_message_len(kind) else {
            self.partial.clear();
            return Err(link_error(format!("the board sent {kind:#04x}, which starts no message")));
        };
        if self.partial.len() < 1 + len {
            return Ok(());
        }
        let msg = BoardMessage::decode(&self.partial).expect("a whole message decodes");
        self.partial.clear();
        match msg {
            BoardMessage::ReadRequest { addr, len, tag } => self.serve_read(addr, len, tag),
            BoardMessage::WriteBeat { addr, strb, last, tag, data } => self.serve_write(addr, strb, last, tag, &data),
            BoardMessage::Irq(irq) => {
                self.irq = irq;
                Ok(())
            }
            answer => {
                self.answer = Some(answer);
                Ok(())
            }
        }
    }

    /// Offset in `mem` of `[addr, addr + len)` if it lies inside one region.
    fn mapped(&self, addr: u64, len: u64) -> Option<usize> {
        self.window.offset_of(addr, len).map(|o| o as usize)
    }

    fn serve_read(&mut self, addr: u64, len: u16, tag: u8) -> Result<(), DeviceError> {
        self.reads_served += 1;
        let mut out = Vec::new();
        match self.mapped(addr, u64::from(len)).filter(|_| len > 0) {
            None => {
                self.faults.push(DmaFault { write: false, addr, len: u64::from(len) });
                out.extend(encode_read_beat(true, true, tag, &[0; 16]));
            }
            Some(off) => {
                let bytes = &self.mem[off..off + usize::from(len)];
                let beats = bytes.chunks(16).count();
                for (i, chunk) in bytes.chunks(16).enumerate() {
                    let mut data = [0u8; 16];
                    data[..chunk.len()].copy_from_slice(chunk);
                    out.extend(encode_read_beat(i + 1 == beats, false, tag, &data));
                }
            }
        }
        self.link.send(&out).map_err(|e| link_error(format!("read response: {e}")))
    }

    fn serve_write(&mut self, addr: u64, strb: u16, last: bool, tag: u8, data: &[u8; 16]) -> Result<(), DeviceError> {
        self.beats_written += 1;
        if strb != 0 {
            let (lo, hi) = (strb.trailing_zeros() as u64, 15 - strb.leading_zeros() as u64);
            let first = addr.wrapping_add(lo);
            match self.mapped(first, hi - lo + 1) {
                Some(off) => {
                    for j in lo..=hi {
                        if strb >> j & 1 != 0 {
                            self.mem[off + (j - lo) as usize] = data[j as usize];
                        }
                    }
                }
                None => {
                    self.faults.push(DmaFault { write: true, addr: first, len: hi - lo + 1 });
                    self.burst_error = true;
                }
            }
        }
        if last {
            let error = std::mem::take(&mut self.burst_error);
            self.link.send(&encode_write_response(error, tag)).map_err(|e| link_error(format!("write response: {e}")))?;
        }
        Ok(())
    }
}

fn link_error(detail: String) -> DeviceError {
    DeviceError::Link { detail }
}

impl<L: ByteLink> Device for LinkDevice<L> {
    fn read32(&mut self, offset: u32) -> Result<u32, DeviceError> {
        let addr = u16::try_from(offset).map_err(|_| link_error(format!("register offset {offset:#x} is past the 64 KiB register space")))?;
        match self.command(&encode_reg_read(addr), "register read")? {
            BoardMessage::RegRead { status: 0, value } => Ok(value),
            BoardMessage::RegRead { status, .. } => Err(link_error(format!("register read at {offset:#x}: status {status}"))),
            other => Err(link_error(format!("register read answered {other:?}"))),
        }
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), DeviceError> {
        let addr = u16::try_from(offset).map_err(|_| link_error(format!("register offset {offset:#x} is past the 64 KiB register space")))?;
        match self.command(&encode_reg_write(addr, value), "register write")? {
            BoardMessage::RegWritten { status: 0 } => Ok(()),
            BoardMessage::RegWritten { status } => Err(link_error(format!("register write at {offset:#x}: status {status}"))),
            other => Err(link_error(format!("register write answered {other:?}"))),
        }
    }

    fn alloc_dma(&mut self, len: usize) -> Result<DmaRegion, DeviceError> {
        let region = self.window.alloc(len)?;
        let off = (region.bus_addr - HOST_MEM_BASE) as usize;
        self.mem[off..off + len].fill(0);
        Ok(region)
    }

    /// Frees the region; its memory is reused only when it is the newest one (a stack).
    fn free_dma(&mut self, region: DmaRegion) {
        self.window.free(region);
    }

    fn mem_write(&mut self, bus_addr: u64, data: &[u8]) -> Result<(), DeviceError> {
        let off = self.mapped(bus_addr, data.len() as u64).ok_or(DeviceError::BadHostAccess { addr: bus_addr, len: data.len() })?;
        self.mem[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn mem_read(&mut self, bus_addr: u64, buf: &mut [u8]) -> Result<(), DeviceError> {
        let off = self.mapped(bus_addr, buf.len() as u64).ok_or(DeviceError::BadHostAccess { addr: bus_addr, len: buf.len() })?;
        buf.copy_from_slice(&self.mem[off..off + buf.len()]);
        Ok(())
    }

    fn wait_irq(&mut self, mask: u32, timeout_cycles: u64) -> u32 {
        let _ = self.serve(timeout_cycles, |d| u32::from(d.irq) & mask != 0);
        u32::from(self.irq) & mask
    }

    fn idle(&mut self, cycles: u64) {
        let _ = self.serve(cycles, |_| false);
    }

    fn cycles(&self) -> u64 {
        self.link.cycles()
    }

    fn take_dma_faults(&mut self) -> Vec<DmaFault> {
        std::mem::take(&mut self.faults)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_every_board_message() {
        let mut x = vec![b'X'];
        x.extend_from_slice(&0x1_0000_0040u64.to_le_bytes());
        x.extend_from_slice(&0x00f0u16.to_le_bytes());
        x.push(0x21);
        x.extend(0..16u8);
        assert_eq!(
            BoardMessage::decode(&x),
            Some(BoardMessage::WriteBeat { addr: 0x1_0000_0040, strb: 0xf0, last: true, tag: 2, data: core::array::from_fn(|i| i as u8) })
        );
        let mut q = vec![b'Q'];
        q.extend_from_slice(&0x1_0000_1000u64.to_le_bytes());
        q.extend_from_slice(&300u16.to_le_bytes());
        q.push(9);
        assert_eq!(BoardMessage::decode(&q), Some(BoardMessage::ReadRequest { addr: 0x1_0000_1000, len: 300, tag: 9 }));
        assert_eq!(BoardMessage::decode(&[b'r', 0, 0x78, 0x56, 0x34, 0x12]), Some(BoardMessage::RegRead { status: 0, value: 0x1234_5678 }));
        assert_eq!(BoardMessage::decode(&[b'w', 2]), Some(BoardMessage::RegWritten { status: 2 }));
        assert_eq!(BoardMessage::decode(&[b'q', 0x01, 0x81]), Some(BoardMessage::Irq(0x8101)));
        assert_eq!(BoardMessage::decode(&[b'v', b'N', b'I', b'C', b'L', 1, 3]), Some(BoardMessage::Identity { magic: LINK_MAGIC, version: 1, overruns: 3 }));
        assert_eq!(BoardMessage::decode(&[b'?', b'z']), Some(BoardMessage::Unknown(b'z')));
        // wrong lengths and unknown kinds do not decode
        assert_eq!(BoardMessage::decode(&[b'w']), None);
        assert_eq!(BoardMessage::decode(&[b'w', 0, 0]), None);
        assert_eq!(BoardMessage::decode(&[b'Z', 0]), None);
    }

    #[test]
    fn encodes_host_messages_little_endian() {
        assert_eq!(encode_reg_write(0x1234, 0xa1b2_c3d4), vec![b'W', 0x34, 0x12, 0xd4, 0xc3, 0xb2, 0xa1]);
        assert_eq!(encode_reg_read(0x0010), vec![b'R', 0x10, 0x00]);
        let beat = encode_read_beat(true, false, 9, &[7; 16]);
        assert_eq!((beat.len(), beat[0], beat[1]), (18, b'B', 0x91));
        assert_eq!(encode_write_response(true, 8), vec![b'K', 0x82]);
    }
}
