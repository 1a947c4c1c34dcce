//! The NIC register map, declared once.
//!
//! Every register is declared in one of the tables below. From these tables come:
//! * the driver's constants (the `pub const` items generated next to each table),
//! * the RTL address decode (`nic-hw` looks every address up here by name, and a test
//!   walks the whole table through the Verilated model),
//! * `docs/regmap.md` ([`render_markdown`]), `docs/nic_regs.h` ([`render_c_header`]) and
//!   `docs/nic_regs.rdl`, SystemRDL 2.0 for PeakRDL and other tools ([`render_systemrdl`]).
//!
//! The address space is a chain of blocks in the style of Corundum: every block starts
//! with `ID`, `VERSION` and `NEXT` (offset of the next block, 0 at the end) so a driver
//! can discover blocks by type instead of hard-coding addresses. Queue blocks repeat a
//! per-queue register set at `base + QUEUE_STRIDE * (q + 1)`.

pub mod render;
pub use render::{render_c_header, render_markdown, render_systemrdl, systemrdl_instances, RdlInstance};

/// How software may access a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read only: a constant or a status/counter driven by the hardware.
    Ro,
    /// Read/write configuration.
    Rw,
    /// Read; writing 1 to a bit clears it.
    W1c,
    /// Write only (a table in block RAM); reads return 0. Drivers keep a shadow copy.
    Wo,
}

impl Access {
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::W1c => "W1C",
            Access::Wo => "WO",
        }
    }
}

/// A bit field inside a register.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
    pub doc: &'static str,
}

impl Field {
    pub const fn mask(&self) -> u32 {
        if self.width >= 32 {
            u32::MAX
        } else {
            ((1u32 << self.width) - 1) << self.lsb
        }
    }
}

/// One 32-bit register.
#[derive(Clone, Copy, Debug)]
pub struct Register {
    pub name: &'static str,
    /// Offset inside its block (or inside one queue's window for queue blocks).
    pub offset: u32,
    pub access: Access,
    /// Value after reset (for constant RO registers: their value).
    pub reset: u32,
    pub doc: &'static str,
    pub fields: &'static [Field],
    /// Number of instances of an array register (1 for a plain register).
    pub count: u32,
    /// Byte distance between array instances.
    pub stride: u32,
}

impl Register {
    /// Offset of instance `i` of an array register.
    pub const fn at(&self, i: u32) -> u32 {
        self.offset + self.stride * i
    }
}

/// A register block.
#[derive(Clone, Copy, Debug)]
pub struct Block {
    pub name: &'static str,
    pub base: u32,
    /// ASCII type tag read from the block's `ID` register.
    pub id: u32,
    pub version: u32,
    /// Registers at `base + offset`.
    pub regs: &'static [Register],
    /// For queue blocks: registers repeated per queue at `base + QUEUE_STRIDE * (q + 1) + offset`.
    pub queue_regs: &'static [Register],
    pub doc: &'static str,
    /// The `FEATURES` bit without which a build leaves the block out of the chain (the
    /// block before it then reads `NEXT` as the block after it); 0: every build has it.
    pub feature: u32,
}

/// Declares a table of registers and one `pub const NAME: u32 = offset;` per register,
/// plus `pub const NAME_FIELD: u32 = mask;` per field, so driver code and the docs read
/// the same declaration.
///
/// An array register is written `NAME[count; stride] @ offset ...`: instance `i` sits at
/// `offset + stride * i`.
macro_rules! registers {
    ($table:ident {
        $( $name:ident $([$count:literal ; $stride:literal])? @ $off:literal : $acc:ident = $reset:literal, $doc:literal
           $( { $( $fname:ident [$lsb:literal ; $width:literal] $fdoc:literal ),* $(,)? } )? ; )*
    }) => {
        $( #[doc = $doc] pub const $name: u32 = $off; )*
        pub const $table: &[Register] = &[
            $( Register {
                name: stringify!($name),
                offset: $off,
                access: Access::$acc,
                reset: $reset,
                doc: $doc,
                fields: &[ $( $( Field { name: stringify!($fname), lsb: $lsb, width: $width, doc: $fdoc } ),* )? ],
                count: registers!(@count $($count)?),
                stride: registers!(@stride $($stride)?),
            } ),*
        ];
    };
    (@count) => { 1 };
    (@count $c:literal) => { $c };
    (@stride) => { 4 };
    (@stride $s:literal) => { $s };
}

/// Bit masks of register fields: `field!(CONTROL_LOOPBACK = GLOBAL_REGS, CONTROL, LOOPBACK)`
/// would be nicer, but `const fn` lookups by string are not stable yet; the masks are
/// written out once here and a unit test checks each against the tables.
pub mod bits {
    /// `CONTROL.LOOPBACK`: wire TX back into RX inside the NIC.
    pub const CONTROL_LOOPBACK: u32 = 1 << 0;
    /// `Q_CONTROL.ENABLE`: the queue fetches descriptors and moves frames.
    pub const Q_CONTROL_ENABLE: u32 = 1 << 0;
    /// `Q_STATUS.ACTIVE`: the queue is enabled and not stopped by an error.
    pub const Q_STATUS_ACTIVE: u32 = 1 << 0;
    /// `Q_STATUS.ERROR`: the queue stopped on an error; `ERROR_CODE` says which.
    pub const Q_STATUS_ERROR: u32 = 1 << 1;
    pub const Q_STATUS_ERROR_CODE_SHIFT: u32 = 8;
    pub const Q_STATUS_ERROR_CODE_MASK: u32 = 0xff << 8;
    /// `FEATURES` bits: what this build has (a driver checks before it relies on one).
    pub const FEATURES_LOOPBACK: u32 = 1 << 0;
    pub const FEATURES_SCATTER_GATHER: u32 = 1 << 1;
    pub const FEATURES_IRQ_MODERATION: u32 = 1 << 2;
    pub const FEATURES_RX_FILTER: u32 = 1 << 3;
    pub const FEATURES_TX_CSUM: u32 = 1 << 4;
    pub const FEATURES_TSO: u32 = 1 << 5;
    pub const FEATURES_RX_CSUM: u32 = 1 << 6;
    pub const FEATURES_RSS: u32 = 1 << 7;
    pub const FEATURES_RDMA: u32 = 1 << 8;
}

/// Why a queue stopped (`Q_STATUS.ERROR_CODE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum QueueError {
    None = 0,
    /// A descriptor fetch hit an address the host never mapped.
    DescReadFault = 1,
    /// A data read (TX) hit an address the host never mapped.
    DataReadFault = 2,
    /// A data or completion write (RX data, write-back) was refused by the host.
    WriteFault = 3,
    /// A descriptor with length 0.
    ZeroLength = 4,
    /// A TX frame longer than `MAX_FRAME_LEN` (sum of its descriptors).
    FrameTooLong = 5,
    /// A TX context descriptor after data descriptors of the same frame.
    MisplacedContext = 6,
    /// A TX frame of more than `desc::TX_MAX_FRAME_DESCS` data descriptors.
    TooManyDescriptors = 7,
    /// A TX context descriptor in a build without TX offload (`FEATURES.TX_CSUM` clear).
    UnsupportedContext = 8,
    /// A data descriptor whose buffer address has a bit at or above `DMA_ADDR_BITS`.
    AddressTooWide = 9,
    /// A TX data descriptor other than its frame's last whose length is not a multiple of
    /// 8, in a build that joins only whole 8-byte beats (`FEATURES.SCATTER_GATHER` clear).
    FragmentNotWhole = 10,
}

impl QueueError {
    pub fn from_code(code: u32) -> Option<Self> {
        Some(match code {
            0 => Self::None,
            1 => Self::DescReadFault,
            2 => Self::DataReadFault,
            3 => Self::WriteFault,
            4 => Self::ZeroLength,
            5 => Self::FrameTooLong,
            6 => Self::MisplacedContext,
            7 => Self::TooManyDescriptors,
            8 => Self::UnsupportedContext,
            9 => Self::AddressTooWide,
            10 => Self::FragmentNotWhole,
            _ => return None,
        })
    }
    pub fn describe(self) -> &'static str {
        match self {
            Self::None => "no error",
            Self::DescReadFault => "descriptor fetch from an unmapped address",
            Self::DataReadFault => "buffer read from an unmapped address",
            Self::WriteFault => "DMA write refused by the host (unmapped address)",
            Self::ZeroLength => "descriptor with zero length",
            Self::FrameTooLong => "TX frame longer than MAX_FRAME_LEN",
            Self::MisplacedContext => "TX context descriptor after the frame's data descriptors",
            Self::TooManyDescriptors => "TX frame of more than 64 data descriptors",
            Self::UnsupportedContext => "TX context descriptor, and this build has no TX offload",
            Self::AddressTooWide => "buffer address beyond the NIC's DMA_ADDR_BITS",
            Self::FragmentNotWhole => "TX fragment before the frame's last not a multiple of 8 bytes, and this build has no scatter-gather of arbitrary fragments",
        }
    }
}

/// Bus address width of every build (`global.DMA_ADDR_BITS`): rings and buffers below
/// 16 TiB. Narrower than 64 so that the descriptor FIFOs and the address registers and
/// adders hold 44 bits (an iCE40 block RAM is 16 bits wide: a 48-bit address field with
/// the too-wide flag in bit 44 takes three instead of four).
pub const DMA_ADDR_BITS: u32 = 44;

/// Registers every block starts with.
pub const HEADER_ID: u32 = 0x00;
pub const HEADER_VERSION: u32 = 0x04;
pub const HEADER_NEXT: u32 = 0x08;

/// Per-queue register window size in queue blocks.
pub const QUEUE_STRIDE: u32 = 0x40;
/// Interrupt vectors: bit q is TX queue q, bit `RX_IRQ_BASE + q` is RX queue q.
pub const RX_IRQ_BASE: u32 = 8;
/// Maximum queues per direction this map leaves room for.
pub const MAX_QUEUES: u32 = 8;

pub mod global {
    use super::*;
    pub const BASE: u32 = 0x0000;
    pub const ID_VALUE: u32 = u32::from_be_bytes(*b"NIC0");
    registers!(REGS {
        ID @ 0x00 : Ro = 0x4E49_4330, "Block type: ASCII \"NIC0\".";
        VERSION @ 0x04 : Ro = 0x0001_0001, "Block version, major.minor in the upper/lower 16 bits (1.1 added DMA_ADDR_BITS).";
        NEXT @ 0x08 : Ro = 0x0100, "Offset of the next block (statistics).";
        FEATURES @ 0x0C : Ro = 0x0000_01FF, "Feature bits of this build (the reset value has every feature; `full` clears RDMA until its engine is in the RTL, `small` also clears SCATTER_GATHER, IRQ_MODERATION, TX_CSUM, TSO, RX_CSUM and RSS)." {
            LOOPBACK [0;1] "internal loopback switch",
            SCATTER_GATHER [1;1] "multi-descriptor TX frames of fragments of any length; clear: every data descriptor but a frame's last must hold a multiple of 8 bytes, else the queue stops (FragmentNotWhole)",
            IRQ_MODERATION [2;1] "per-queue interrupt moderation (count and timer); clear: Q_IRQ_COUNT and Q_IRQ_TIMER ignore writes and read 0, and every completion raises its queue's vector",
            RX_FILTER [3;1] "RX MAC filter: exact-match, multicast hash, broadcast (docs/rx-classification.md)",
            TX_CSUM [4;1] "TX checksum offload, generic and full, through context descriptors (docs/tx-offload.md); clear: a context descriptor stops the queue (UnsupportedContext)",
            TSO [5;1] "TCP segmentation offload (docs/tx-offload.md)",
            RX_CSUM [6;1] "RX IPv4 header and TCP/UDP checksum verdicts in the completion (docs/rx-classification.md)",
            RSS [7;1] "RSS: Toeplitz hash, hash type, packet type and the indirection table (docs/rx-classification.md)",
            RDMA [8;1] "the RoCEv2 RDMA engine and its register block (docs/rdma.md)",
        };
        QUEUES @ 0x10 : Ro = 0x0000_0101, "Queue counts of this configuration." {
            TX [0;8] "number of TX queues",
            RX [8;8] "number of RX queues",
        };
        CONTROL @ 0x14 : Rw = 0x0000_0000, "Global control." {
            LOOPBACK [0;1] "1: MAC TX output is fed to MAC RX; the wire ports are idle",
        };
        MAC_ADDR_LO @ 0x18 : Rw = 0x0000_0000, "Station MAC address bytes 0..3 (byte 0 in bits 7:0).";
        MAC_ADDR_HI @ 0x1C : Rw = 0x0000_0000, "Station MAC address bytes 4..5." {
            ADDR [0;16] "bytes 4 (7:0) and 5 (15:8)",
        };
        MAX_FRAME_LEN @ 0x20 : Rw = 9022, "Longest accepted frame in bytes, FCS included (default: 9000-byte MTU + VLAN tag). Longer RX frames are dropped as oversize; longer TX frames stop the queue." {
            LEN [0;16] "bytes",
        };
        IRQ_STATUS @ 0x24 : W1c = 0x0000_0000, "Pending interrupt vectors: bit q = TX queue q, bit 8+q = RX queue q, bit 16+c = RDMA completion queue c. Write 1 to clear.";
        IRQ_MASK @ 0x28 : Rw = 0x0000_0000, "Enabled interrupt vectors (same bit layout); the irq line of a vector is STATUS & MASK.";
        CYCLE_COUNT @ 0x2C : Ro = 0x0000_0000, "Free-running core clock cycle counter (wraps).";
        DMA_ADDR_BITS @ 0x30 : Ro = 44, "Width of the bus addresses the NIC can reach (the driver's DMA mask): rings and buffers must lie below 2^BITS. A data descriptor whose buffer address has a bit at or above it stops its queue (AddressTooWide) before any byte moves." {
            BITS [0;8] "address bits",
        };
    });
}

pub mod stats {
    use super::*;
    pub const BASE: u32 = 0x0100;
    registers!(REGS {
        ID @ 0x00 : Ro = 0x5354_4154, "Block type: ASCII \"STAT\".";
        VERSION @ 0x04 : Ro = 0x0001_0000, "Block version.";
        NEXT @ 0x08 : Ro = 0x1000, "Offset of the next block (TX queues).";
        TX_FRAMES @ 0x10 : Ro = 0, "Frames sent on the wire (wrapping 32-bit counter, as all below).";
        TX_BYTES @ 0x14 : Ro = 0, "Bytes sent, FCS excluded.";
        TX_ERRORS @ 0x18 : Ro = 0, "TX frames aborted (DMA fault or bad descriptor mid-frame; sent with a bad FCS).";
        RX_FRAMES @ 0x1C : Ro = 0, "Frames delivered to a host buffer.";
        RX_BYTES @ 0x20 : Ro = 0, "Bytes delivered, FCS excluded.";
        RX_DROP_NO_BUFFER @ 0x24 : Ro = 0, "Frames dropped: no RX descriptor posted (or the RX queue disabled/stopped).";
        RX_DROP_FCS @ 0x28 : Ro = 0, "Frames dropped: bad FCS.";
        RX_DROP_RUNT @ 0x2C : Ro = 0, "Frames dropped: shorter than 64 bytes with FCS.";
        RX_DROP_OVERSIZE @ 0x30 : Ro = 0, "Frames dropped: longer than MAX_FRAME_LEN.";
        RX_DROP_TRUNCATED @ 0x34 : Ro = 0, "Frames dropped: longer than the posted buffer.";
        RX_DROP_PHY_ERROR @ 0x38 : Ro = 0, "Frames dropped: the PHY flagged an error (tuser on the RX wire).";
        RX_DROP_UCAST_FILTER @ 0x3C : Ro = 0, "Frames dropped by the MAC filter: unicast destination not in the exact-match table.";
        RX_DROP_MCAST_FILTER @ 0x40 : Ro = 0, "Frames dropped by the MAC filter: multicast destination neither in the table nor in the hash.";
        RX_DROP_BCAST_FILTER @ 0x44 : Ro = 0, "Frames dropped by the MAC filter: broadcast while rxc FILTER_CTRL.BROADCAST is clear.";
        RX_CSUM_L3_BAD @ 0x48 : Ro = 0, "Frames delivered with a bad IPv4 header checksum.";
        RX_CSUM_L4_BAD @ 0x4C : Ro = 0, "Frames delivered with a bad TCP/UDP checksum.";
        TX_OFFLOAD_ERRORS @ 0x50 : Ro = 0, "TX frames refused by the offload engine (invalid request, docs/tx-offload.md): not sent, completed with the ERROR write-back flag.";
        TX_TSO_SEGMENTS @ 0x54 : Ro = 0, "TCP segments sent by TSO (each also counts in TX_FRAMES).";
    });
}

/// Registers common to TX and RX queues.
macro_rules! queue_registers {
    ($table:ident $(, $($extra:tt)*)?) => {
        registers!($table {
            Q_BASE_LO @ 0x00 : Rw = 0, "Ring base bus address, bits 31:0." {
                ADDR [4;28] "address bits 31:4 (the ring is 16-byte aligned; bits 3:0 are ignored)",
            };
            Q_BASE_HI @ 0x04 : Rw = 0, "Ring base bus address, bits 43:32 (global DMA_ADDR_BITS)." {
                ADDR [0;12] "address bits 43:32",
            };
            Q_SIZE_LOG2 @ 0x08 : Rw = 0, "Ring size." {
                LOG2 [0;4] "log2 of the number of 16-byte descriptors in the ring (1..15)",
            };
            Q_CONTROL @ 0x0C : Rw = 0, "Queue control. Clearing ENABLE resets HEAD, TAIL and the error state." {
                ENABLE [0;1] "the queue is running",
            };
            Q_TAIL @ 0x10 : Rw = 0, "Producer index (doorbell), free-running 16 bits: the driver writes the index one past the last descriptor it posted." {
                INDEX [0;16] "descriptor index",
            };
            Q_HEAD @ 0x14 : Ro = 0, "Consumer index, free-running 16 bits: descriptors the NIC has completed.";
            Q_STATUS @ 0x18 : Ro = 0, "Queue status." {
                ACTIVE [0;1] "enabled and not stopped",
                ERROR [1;1] "stopped by an error",
                ERROR_CODE [8;8] "why: see QueueError (1 desc fetch fault, 2 data read fault, 3 write fault, 4 zero-length descriptor, 5 frame too long, 6 TX context descriptor after data, 7 TX frame of more than 64 data descriptors, 8 TX context descriptor without TX offload, 9 buffer address at or above 2^DMA_ADDR_BITS, 10 TX fragment before the frame's last not a multiple of 8 bytes without FEATURES.SCATTER_GATHER)",
            };
            Q_IRQ_COUNT @ 0x1C : Rw = 1, "Interrupt moderation: raise the vector after this many completions (0 and 1: every completion). A build without FEATURES.IRQ_MODERATION has neither this register nor Q_IRQ_TIMER: they ignore writes and read 0." {
                COUNT [0;16] "completions",
            };
            Q_IRQ_TIMER @ 0x20 : Rw = 0, "Interrupt moderation: raise the vector this many cycles after the first unsignalled completion (0: timer off)." {
                CYCLES [0;20] "core clock cycles, at most 1,048,575 (6.7 ms at 156.25 MHz, 25 ms at 41.67 MHz)",
            };
            $($($extra)*)?
        });
    };
}

pub mod txq {
    use super::*;
    pub const BASE: u32 = 0x1000;
    registers!(REGS {
        ID @ 0x00 : Ro = 0x5458_5130, "Block type: ASCII \"TXQ0\".";
        VERSION @ 0x04 : Ro = 0x0001_0000, "Block version.";
        NEXT @ 0x08 : Ro = 0x2000, "Offset of the next block (RX queues).";
        COUNT @ 0x0C : Ro = 1, "Number of TX queues; queue q's registers are at BASE + 0x40 * (q + 1).";
    });
    queue_registers!(QUEUE_REGS,
        Q_WEIGHT @ 0x24 : Rw = 1514, "Scheduler: deficit round-robin quantum added at each visit (docs/tx-offload.md, Scheduler)." {
            BYTES [0;16] "quantum in bytes, 1..65535",
        };
        Q_PRIORITY @ 0x28 : Rw = 0, "Scheduler class." {
            STRICT [0;1] "strict priority: served before every other class while it has a frame",
        };
    );
    /// Address of a per-queue register of TX queue `q`.
    pub const fn reg(q: u32, offset: u32) -> u32 {
        BASE + QUEUE_STRIDE * (q + 1) + offset
    }
}

pub mod rxq {
    use super::*;
    pub const BASE: u32 = 0x2000;
    registers!(REGS {
        ID @ 0x00 : Ro = 0x5258_5130, "Block type: ASCII \"RXQ0\".";
        VERSION @ 0x04 : Ro = 0x0001_0000, "Block version.";
        NEXT @ 0x08 : Ro = 0x3000, "Offset of the next block (RX classification).";
        COUNT @ 0x0C : Ro = 1, "Number of RX queues; queue q's registers are at BASE + 0x40 * (q + 1).";
    });
    queue_registers!(QUEUE_REGS,
        Q_DROPS @ 0x24 : Ro = 0, "Frames for this queue dropped because it was stopped or had no buffer posted (wrapping; also counted in RX_DROP_NO_BUFFER).";
    );
    pub const fn reg(q: u32, offset: u32) -> u32 {
        BASE + QUEUE_STRIDE * (q + 1) + offset
    }
}

/// RX classification: MAC filter, RSS (docs/rx-classification.md).
pub mod rxc {
    use super::*;
    pub const BASE: u32 = 0x3000;
    pub const ID_VALUE: u32 = u32::from_be_bytes(*b"RXC0");
    registers!(REGS {
        ID @ 0x00 : Ro = 0x5258_4330, "Block type: ASCII \"RXC0\".";
        VERSION @ 0x04 : Ro = 0x0001_0001, "Block version (1.1 added MAC_FILTER_COUNT).";
        NEXT @ 0x08 : Ro = 0x4000, "Offset of the next block (RDMA; 0, the end of the chain, in a build without FEATURES.RDMA).";
        MAC_FILTER_COUNT @ 0x0C : Ro = 16, "Exact-match entries this build has (the reset value is the `full` configuration's; `small` has 2). Entries at and above it ignore writes and read as 0.";
        FILTER_CTRL @ 0x10 : Rw = 0x0000_0005, "MAC filter modes (docs/rx-classification.md section 1)." {
            PROMISC [0;1] "accept every frame",
            ALLMULTI [1;1] "accept every multicast frame",
            BROADCAST [2;1] "accept broadcast frames",
        };
        RSS_CTRL @ 0x14 : Rw = 0x0000_003F, "RSS hash types enabled (section 4); none: every frame goes to queue 0." {
            IPV4 [0;1] "hash IPv4 addresses",
            TCP_IPV4 [1;1] "hash IPv4 TCP addresses and ports",
            UDP_IPV4 [2;1] "hash IPv4 UDP addresses and ports",
            IPV6 [3;1] "hash IPv6 addresses",
            TCP_IPV6 [4;1] "hash IPv6 TCP addresses and ports",
            UDP_IPV6 [5;1] "hash IPv6 UDP addresses and ports",
        };
        RSS_KEY[10; 4] @ 0x40 : Rw = 0, "Toeplitz key bytes 4i..4i+3, byte 4i in bits 31:24. Reset: the common default key 6d5a56da... (see RSS_DEFAULT_KEY). A build without RSS (`FEATURES.RSS` clear) has no key: it ignores writes and reads 0.";
        MAC_FILTER_LO[16; 8] @ 0x100 : Rw = 0, "Exact-match entry i: destination address bytes 0..3, byte 0 in bits 7:0.";
        MAC_FILTER_HI[16; 8] @ 0x104 : Rw = 0, "Exact-match entry i: address bytes 4..5 and control." {
            ADDR [0;16] "address bytes 4 (7:0) and 5 (15:8)",
            QUEUE [16;8] "steering target queue",
            STEER [30;1] "a hit sends the frame to QUEUE instead of the RSS queue",
            ENABLE [31;1] "the entry takes part in matching",
        };
        RSS_RETA[32; 4] @ 0x200 : Wo = 0, "Indirection table entries 4i..4i+3, entry 4i in bits 7:0. Reset: entry j = j (masked to the queue count).";
        MCAST_HASH[128; 4] @ 0x400 : Wo = 0, "Multicast hash filter bits 32i..32i+31; bit crc32(dst) & 0xfff accepts a multicast destination. Reset: 0.";
    });
    /// The common default RSS key (Microsoft's verification key).
    pub const RSS_DEFAULT_KEY: [u8; 40] = [
        0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
        0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
        0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
    ];
    /// Reset value of `RSS_KEY[i]`.
    pub const fn rss_key_reset(i: usize) -> u32 {
        u32::from_be_bytes([RSS_DEFAULT_KEY[4 * i], RSS_DEFAULT_KEY[4 * i + 1], RSS_DEFAULT_KEY[4 * i + 2], RSS_DEFAULT_KEY[4 * i + 3]])
    }
    pub const fn mac_filter_lo(i: u32) -> u32 {
        BASE + MAC_FILTER_LO + 8 * i
    }
    pub const fn mac_filter_hi(i: u32) -> u32 {
        BASE + MAC_FILTER_HI + 8 * i
    }
    pub const fn rss_key(i: u32) -> u32 {
        BASE + RSS_KEY + 4 * i
    }
    pub const fn rss_reta(i: u32) -> u32 {
        BASE + RSS_RETA + 4 * i
    }
    pub const fn mcast_hash(i: u32) -> u32 {
        BASE + MCAST_HASH + 4 * i
    }
    /// Exact-match entries the map has room for; a build may have fewer
    /// (`MAC_FILTER_COUNT`).
    pub const MAC_FILTERS: u32 = 16;
    /// `MAC_FILTER_COUNT` of the `small` configuration.
    pub const MAC_FILTERS_SMALL: u32 = 2;
    pub const RETA_ENTRIES: u32 = 128;
}

/// The RDMA engine's register block, tables and host-memory entries.
pub mod rdma;

/// All blocks in chain order.
pub const BLOCKS: &[Block] = &[
    Block { name: "global", base: global::BASE, id: global::ID_VALUE, version: 0x0001_0001, regs: global::REGS, queue_regs: &[], doc: "Identification, control, station address, interrupts.", feature: 0 },
    Block { name: "stats", base: stats::BASE, id: 0x5354_4154, version: 0x0001_0000, regs: stats::REGS, queue_regs: &[], doc: "Statistics counters (per direction: frames, bytes, drops and errors by reason).", feature: 0 },
    Block { name: "txq", base: txq::BASE, id: 0x5458_5130, version: 0x0001_0000, regs: txq::REGS, queue_regs: txq::QUEUE_REGS, doc: "TX descriptor rings.", feature: 0 },
    Block { name: "rxq", base: rxq::BASE, id: 0x5258_5130, version: 0x0001_0000, regs: rxq::REGS, queue_regs: rxq::QUEUE_REGS, doc: "RX descriptor rings.", feature: 0 },
    Block { name: "rxc", base: rxc::BASE, id: rxc::ID_VALUE, version: 0x0001_0001, regs: rxc::REGS, queue_regs: &[], doc: "RX classification: MAC filter and RSS (docs/rx-classification.md).", feature: 0 },
    Block { name: "rdma", base: rdma::BASE, id: rdma::ID_VALUE, version: 0x0001_0000, regs: rdma::REGS, queue_regs: &[], doc: "RDMA engine: RoCEv2 reliable connected QPs, the QP, MR and CQ tables, doorbells, counters (docs/rdma.md). Only in a build with FEATURES.RDMA.", feature: bits::FEATURES_RDMA },
];

/// The blocks a build with this `FEATURES` register has, in chain order.
pub fn blocks_present(features: u32) -> impl Iterator<Item = &'static Block> {
    BLOCKS.iter().filter(move |b| b.feature == 0 || features & b.feature != 0)
}

/// What a block's `NEXT` reads in a build with this `FEATURES` register: the next block
/// the build has, 0 at the end.
pub fn next_of(block: &str, features: u32) -> u32 {
    let mut present = blocks_present(features).skip_while(|b| b.name != block);
    assert!(present.next().is_some(), "block {block} is not in a build with FEATURES {features:#x}");
    present.next().map_or(0, |b| b.base)
}

/// Looks a register up by block and name; used by the RTL generator so that the
/// decode takes its addresses from this table. Panics on a name that is not declared,
/// which makes a typo a build-time failure of the generator.
pub fn offset_of(block: &str, reg: &str) -> u32 {
    let b = BLOCKS.iter().find(|b| b.name == block).unwrap_or_else(|| panic!("no register block {block}"));
    if let Some(r) = b.regs.iter().find(|r| r.name == reg) {
        return b.base + r.offset;
    }
    if let Some(r) = b.queue_regs.iter().find(|r| r.name == reg) {
        return b.base + QUEUE_STRIDE + r.offset; // queue 0
    }
    panic!("no register {reg} in block {block}")
}

/// The bits a register holds: the union of its fields, all 32 when it declares none.
/// Writes to other bits are ignored and they read as 0.
pub fn bits_of(block: &str, reg: &str) -> u32 {
    let b = BLOCKS.iter().find(|b| b.name == block).unwrap_or_else(|| panic!("no register block {block}"));
    let r = b.regs.iter().chain(b.queue_regs.iter()).find(|r| r.name == reg).unwrap_or_else(|| panic!("no register {reg} in {block}"));
    if r.fields.is_empty() {
        u32::MAX
    } else {
        r.fields.iter().fold(0, |m, f| m | f.mask())
    }
}

/// The reset value declared for a register.
pub fn reset_of(block: &str, reg: &str) -> u32 {
    let b = BLOCKS.iter().find(|b| b.name == block).unwrap();
    b.regs.iter().chain(b.queue_regs.iter()).find(|r| r.name == reg).map(|r| r.reset).unwrap_or_else(|| panic!("no register {reg} in {block}"))
}

/// The optional blocks of a build, which decide its `FEATURES` register: the RTL's
/// constant (`nic_hw::Config`) and the golden model's read-back (`RefNicConfig`) both
/// fill this and read [`BuildFeatures::register`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildFeatures {
    /// The TX offload engine: TX_CSUM, TSO.
    pub tx_offload: bool,
    /// RSS with RX checksum validation: RSS, RX_CSUM.
    pub rx_offload: bool,
    /// Per-queue interrupt moderation: IRQ_MODERATION.
    pub irq_moderation: bool,
    /// The TX byte packer that joins fragments of any length: SCATTER_GATHER.
    pub scatter_gather: bool,
    /// The RDMA engine: RDMA.
    pub rdma: bool,
}

impl BuildFeatures {
    /// The `FEATURES` register: its reset value with the bits of absent blocks cleared.
    pub fn register(self) -> u32 {
        use bits::*;
        let mut f = reset_of("global", "FEATURES");
        if !self.tx_offload {
            f &= !(FEATURES_TX_CSUM | FEATURES_TSO);
        }
        if !self.rx_offload {
            f &= !(FEATURES_RX_CSUM | FEATURES_RSS);
        }
        if !self.irq_moderation {
            f &= !FEATURES_IRQ_MODERATION;
        }
        if !self.scatter_gather {
            f &= !FEATURES_SCATTER_GATHER;
        }
        if !self.rdma {
            f &= !FEATURES_RDMA;
        }
        f
    }
}

/// Descriptor layouts shared by the RTL and the driver (16 bytes, little-endian).
pub mod desc {
    /// Size of every descriptor.
    pub const SIZE: u64 = 16;
    /// Byte offset of the 64-bit buffer address.
    pub const ADDR: usize = 0;
    /// Byte offset of the 16-bit buffer length.
    pub const LEN: usize = 8;
    /// Byte offset of the 16-bit flags.
    pub const FLAGS: usize = 10;
    /// Byte offset of the 32-bit word the NIC writes back (RX: RSS hash; TX: 0).
    pub const INFO: usize = 12;
    /// TX write-back covers bytes 8..16 (LEN, FLAGS, INFO); the address stays intact.
    /// RX write-back covers the whole descriptor (`RX_PTYPE` replaces the address).
    pub const WRITEBACK_OFFSET: u64 = 8;

    /// TX flags: last descriptor of a frame.
    pub const TX_EOP: u16 = 1 << 0;
    /// TX flags: write this descriptor back (set DONE) once its data has been read.
    pub const TX_REPORT_STATUS: u16 = 1 << 1;
    /// TX flags: a context descriptor (no data; carries the frame's offload request,
    /// docs/tx-offload.md). Its other fields: bytes 0..2 `l3_offset`, 2..4 `l4_offset`,
    /// 4..6 `csum_start`, 6..8 `csum_offset`, 8..10 `mss`, 12..14 `hdr_len`.
    pub const TX_CTX: u16 = 1 << 2;
    /// TX context flags: generic checksum (`csum_start`/`csum_offset`).
    pub const TX_GENERIC_CSUM: u16 = 1 << 3;
    /// TX context flags: compute the IPv4 header checksum.
    pub const TX_IPV4_CSUM: u16 = 1 << 4;
    /// TX context flags: compute the TCP/UDP checksum with the pseudo-header.
    pub const TX_L4_CSUM: u16 = 1 << 5;
    /// TX context flags: TCP segmentation (`mss`, `hdr_len`).
    pub const TX_TSO: u16 = 1 << 6;
    /// TX context flags: the L3 header is IPv6 (else IPv4).
    pub const TX_IPV6: u16 = 1 << 7;
    /// TX context flags: the L4 header is UDP (else TCP).
    pub const TX_UDP: u16 = 1 << 8;
    /// The most data descriptors a TX frame may have (its completions wait for the
    /// frame's offload verdict in a 128-entry FIFO); one more stops the queue
    /// (`QueueError::TooManyDescriptors`).
    pub const TX_MAX_FRAME_DESCS: usize = 64;
    /// TX write-back flags: the frame's offload request was refused; it was not sent.
    pub const TX_ERROR: u16 = 1 << 14;
    /// Context descriptor: byte offsets of its 16-bit fields.
    pub const CTX_L3_OFFSET: usize = 0;
    pub const CTX_L4_OFFSET: usize = 2;
    pub const CTX_CSUM_START: usize = 4;
    pub const CTX_CSUM_OFFSET: usize = 6;
    pub const CTX_MSS: usize = 8;
    pub const CTX_HDR_LEN: usize = 12;
    /// Set by the NIC in the write-back.
    pub const DONE: u16 = 1 << 15;
    /// RX write-back flags: the frame ends in this buffer (always 1: no RX scatter yet).
    pub const RX_EOP: u16 = 1 << 0;
    /// RX write-back flags: IPv4 header checksum verdict (`CSUM_*`), bits 3:2.
    pub const RX_L3_CSUM_SHIFT: u16 = 2;
    /// RX write-back flags: TCP/UDP checksum verdict (`CSUM_*`), bits 5:4.
    pub const RX_L4_CSUM_SHIFT: u16 = 4;
    /// RX write-back flags: RSS hash type (`HASH_*`), bits 9:6.
    pub const RX_HASH_TYPE_SHIFT: u16 = 6;
    pub const CSUM_NOT_CHECKED: u8 = 0;
    pub const CSUM_GOOD: u8 = 1;
    pub const CSUM_BAD: u8 = 2;
    pub const HASH_NONE: u8 = 0;
    pub const HASH_IPV4: u8 = 1;
    pub const HASH_TCP_IPV4: u8 = 2;
    pub const HASH_UDP_IPV4: u8 = 3;
    pub const HASH_IPV6: u8 = 4;
    pub const HASH_TCP_IPV6: u8 = 5;
    pub const HASH_UDP_IPV6: u8 = 6;
    /// RX write-back: byte offset of the 16-bit packet type (docs/rx-classification.md
    /// section 2); the RX write-back covers the whole descriptor.
    pub const RX_PTYPE: usize = 0;
    /// RX write-back: byte offset of the 32-bit RSS hash.
    pub const RX_HASH: usize = 12;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_unique_and_aligned() {
        let mut seen = std::collections::BTreeMap::new();
        for b in BLOCKS {
            let mut addrs: Vec<(u32, &str)> =
                b.regs.iter().flat_map(|r| (0..r.count).map(move |i| (b.base + r.at(i), r.name))).collect();
            for q in 0..MAX_QUEUES {
                addrs.extend(b.queue_regs.iter().map(|r| (b.base + QUEUE_STRIDE * (q + 1) + r.offset, r.name)));
            }
            for (a, n) in addrs {
                assert_eq!(a % 4, 0, "{n} unaligned");
                assert!(seen.insert(a, n).is_none(), "{n} overlaps at {a:#x}");
            }
        }
    }

    #[test]
    fn chain_links_every_block_in_order() {
        for (i, b) in BLOCKS.iter().enumerate() {
            let next = b.regs.iter().find(|r| r.name == "NEXT").unwrap().reset;
            let want = BLOCKS.get(i + 1).map(|n| n.base).unwrap_or(0);
            assert_eq!(next, want, "{} NEXT", b.name);
            assert_eq!(next_of(b.name, u32::MAX), want, "{} NEXT with every feature", b.name);
            let id = b.regs.iter().find(|r| r.name == "ID").unwrap().reset;
            assert_eq!(id, b.id, "{} ID", b.name);
        }
    }

    #[test]
    fn a_build_without_rdma_ends_its_chain_at_rxc() {
        let features = BuildFeatures { tx_offload: true, rx_offload: true, irq_moderation: true, scatter_gather: true, rdma: false }.register();
        assert_eq!(next_of("rxc", features), 0);
        assert_eq!(blocks_present(features).count(), BLOCKS.len() - 1);
        assert_eq!(rdma::FEATURES_RDMA, bits::FEATURES_RDMA);
    }

    #[test]
    fn rdma_table_fields_fit_and_do_not_overlap() {
        for (fields, words) in [(rdma::qpc::FIELDS, rdma::qpc::WORDS), (rdma::mrc::FIELDS, rdma::mrc::WORDS), (rdma::cqc::FIELDS, rdma::cqc::WORDS)] {
            let mut used = vec![0u32; words];
            assert!(words <= 16, "TABLE_DATA holds 16 words");
            for f in fields {
                assert!(f.word < words && f.lsb + f.width <= 32, "{}", f.name);
                let m = f.mask() << f.lsb;
                assert_eq!(used[f.word] & m, 0, "{} overlaps", f.name);
                used[f.word] |= m;
            }
        }
        assert!(rdma::wqe::SGE + rdma::wqe::SGE_SIZE * rdma::wqe::MAX_SGE <= rdma::wqe::SIZE);
    }

    #[test]
    fn field_masks_match_tables() {
        let f = |regs: &[Register], r: &str, f: &str| regs.iter().find(|x| x.name == r).unwrap().fields.iter().find(|x| x.name == f).unwrap().mask();
        assert_eq!(f(global::REGS, "CONTROL", "LOOPBACK"), bits::CONTROL_LOOPBACK);
        assert_eq!(f(txq::QUEUE_REGS, "Q_CONTROL", "ENABLE"), bits::Q_CONTROL_ENABLE);
        assert_eq!(f(txq::QUEUE_REGS, "Q_STATUS", "ACTIVE"), bits::Q_STATUS_ACTIVE);
        assert_eq!(f(txq::QUEUE_REGS, "Q_STATUS", "ERROR"), bits::Q_STATUS_ERROR);
        assert_eq!(f(txq::QUEUE_REGS, "Q_STATUS", "ERROR_CODE"), bits::Q_STATUS_ERROR_CODE_MASK);
        let features = [
            ("LOOPBACK", bits::FEATURES_LOOPBACK),
            ("SCATTER_GATHER", bits::FEATURES_SCATTER_GATHER),
            ("IRQ_MODERATION", bits::FEATURES_IRQ_MODERATION),
            ("RX_FILTER", bits::FEATURES_RX_FILTER),
            ("TX_CSUM", bits::FEATURES_TX_CSUM),
            ("TSO", bits::FEATURES_TSO),
            ("RX_CSUM", bits::FEATURES_RX_CSUM),
            ("RSS", bits::FEATURES_RSS),
            ("RDMA", bits::FEATURES_RDMA),
        ];
        for (name, mask) in features {
            assert_eq!(f(global::REGS, "FEATURES", name), mask, "FEATURES.{name}");
        }
    }

    #[test]
    fn dma_addr_bits_register_and_ring_base_agree() {
        assert_eq!(reset_of("global", "DMA_ADDR_BITS"), DMA_ADDR_BITS);
        // Q_BASE_HI holds exactly the address bits above 31 the NIC can reach
        for regs in [txq::QUEUE_REGS, rxq::QUEUE_REGS] {
            let hi = regs.iter().find(|r| r.name == "Q_BASE_HI").unwrap();
            let held: u32 = hi.fields.iter().map(|f| f.mask()).fold(0, |a, m| a | m);
            assert_eq!(u64::from(held) << 32 | 0xffff_ffff, (1u64 << DMA_ADDR_BITS) - 1);
        }
        assert_eq!(QueueError::from_code(QueueError::AddressTooWide as u32), Some(QueueError::AddressTooWide));
    }

    #[test]
    fn generated_docs_are_committed_and_current() {
        // docs/regmap.md and docs/nic_regs.h are generated from these tables; regenerate
        // with `cargo run --bin nic -- regmap --out docs` when this fails.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let md = std::fs::read_to_string(root.join("docs/regmap.md")).unwrap_or_default();
        let h = std::fs::read_to_string(root.join("docs/nic_regs.h")).unwrap_or_default();
        assert!(md == render_markdown(), "docs/regmap.md is stale: run `make regmap`");
        assert!(h == render_c_header(), "docs/nic_regs.h is stale: run `make regmap`");
        let rdl = std::fs::read_to_string(root.join("docs/nic_regs.rdl")).unwrap_or_default();
        assert!(rdl == render_systemrdl(), "docs/nic_regs.rdl is stale: run `make regmap`");
    }
}
