//! The RDMA engine's interface, declared once: its register block, the layouts of the
//! QP, MR and CQ context tables (block RAM the driver reaches through `TABLE_CMD` and
//! `TABLE_DATA`), and the work queue and completion queue entries in host memory.
//!
//! The shapes follow what drivers of RDMA NICs know from ibverbs and mlx5: a queue pair
//! (QP) owns a send queue and a receive queue of 128-byte work queue entries (WQEs) in
//! host memory, each with a doorbell; completions land as 32-byte completion queue
//! entries (CQEs) whose owner bit flips at every pass over the ring; memory regions
//! (MRs) are found by the low byte of their key. docs/rdma.md describes the behaviour.

use super::*;

pub const BASE: u32 = 0x4000;
pub const ID_VALUE: u32 = u32::from_be_bytes(*b"RDMA");

registers!(REGS {
    ID @ 0x00 : Ro = 0x5244_4D41, "Block type: ASCII \"RDMA\". The block is on the chain only in a build with FEATURES.RDMA.";
    VERSION @ 0x04 : Ro = 0x0001_0000, "Block version.";
    NEXT @ 0x08 : Ro = 0x0000, "Offset of the next block (0: end of chain).";
    QP_COUNT @ 0x0C : Ro = 64, "Queue pairs of this build: QPN n is entry n of the QP table; QPNs 0 and 1 are reserved (IB's special QPs) and never carry traffic.";
    MR_COUNT @ 0x10 : Ro = 64, "Memory regions of this build: a key's bits 7:0 select the MR table entry.";
    CQ_COUNT @ 0x14 : Ro = 16, "Completion queues of this build; CQ c raises interrupt vector 16 + c (global IRQ_STATUS).";
    CONTROL @ 0x18 : Rw = 0, "Engine control." {
        ENABLE [0;1] "RoCEv2 frames for LOCAL_IPV4 go to the engine and doorbells are served; clear: they keep the Ethernet path",
    };
    LOCAL_IPV4 @ 0x1C : Rw = 0, "The NIC's own IPv4 address (a.b.c.d as 0xaabbccdd): the source of every RoCEv2 packet it sends, and the destination of those it takes off the Ethernet path.";
    TABLE_CMD @ 0x20 : Wo = 0, "Table access: loads an entry into TABLE_DATA, or stores TABLE_DATA words into it (only those WORD_MASK selects; the others keep their value, so a QP's PSNs and ring indices the engine advances survive a state change)." {
        INDEX [0;8] "entry (QPN, MR index or CQN)",
        TABLE [8;2] "0: QP, 1: MR, 2: CQ",
        WRITE [15;1] "1: store; 0: load",
        WORD_MASK [16;16] "store: bit w selects TABLE_DATA[w]",
    };
    TABLE_STATUS @ 0x24 : Ro = 0, "Table access status." {
        BUSY [0;1] "a TABLE_CMD is running: wait for 0 before touching TABLE_DATA or writing the next command",
        BAD_INDEX [1;1] "the last command named an entry or table this build does not have; it did nothing",
    };
    CAPS @ 0x28 : Ro = 1, "What this engine implements beyond the base transport." {
        RETRANSMIT [0;1] "the requester retransmits (timeouts, go-back-N on PSN sequence NAKs and READ response gaps, RNR waits): the QP's TIMEOUT, RETRY_CNT and RNR_RETRY are honoured; clear, the driver refuses them",
    };
    ACK_EVERY @ 0x2C : Rw = 0, "ACK coalescing: the responder ACKs a QP's requests at least every N it takes, asked (AckReq) or not, so a requester learns of progress inside a long message (its retransmit timer need not cover a whole message)." {
        N [0;3] "1..=7; 0: only the requests that ask (the last of each message)",
    };
    TIMER_UNIT @ 0x30 : Rw = 640, "The transport timer's unit: a QP's timer runs TIMER_UNIT << TIMEOUT core cycles (IBTA: 4.096 us x 2^TIMEOUT, 640 cycles a unit at 156.25 MHz). A smaller unit makes a simulation's timeouts come sooner." {
        CYCLES [0;16] "core cycles per unit (0 acts as 1)",
    };
    TABLE_DATA[16; 4] @ 0x40 : Rw = 0, "Table access: word i of the entry (layouts: `nic_regmap::rdma::{QP_FIELDS, MR_FIELDS, CQ_FIELDS}`, docs/rdma.md).";
    SQ_DOORBELL @ 0x80 : Wo = 0, "Send queue doorbell." {
        QPN [0;8] "queue pair",
        PI [16;16] "producer index, free-running: one past the last WQE posted",
    };
    RQ_DOORBELL @ 0x84 : Wo = 0, "Receive queue doorbell." {
        QPN [0;8] "queue pair",
        PI [16;16] "producer index, free-running: one past the last WQE posted",
    };
    CQ_DOORBELL @ 0x88 : Wo = 0, "Completion queue doorbell: the consumer index, and arming of the CQ's interrupt." {
        CQN [0;4] "completion queue",
        ARM [8;1] "raise the CQ's vector at its next CQE (moderated by the CQ's IRQ_COUNT and IRQ_TIMER); one event per arming",
        SOLICITED [9;1] "with ARM: only at a CQE with the solicited flag, or an error",
        CI [16;16] "consumer index, free-running: one past the last CQE the driver has read",
    };
    TX_PACKETS @ 0xC0 : Ro = 0, "RoCEv2 packets sent (requests, responses, ACKs; wrapping 32-bit counter, as all below).";
    TX_BYTES @ 0xC4 : Ro = 0, "Payload bytes sent in RoCEv2 packets.";
    RX_PACKETS @ 0xC8 : Ro = 0, "RoCEv2 packets accepted by the engine.";
    RX_BYTES @ 0xCC : Ro = 0, "Payload bytes of accepted RoCEv2 packets.";
    RX_DROP_ICRC @ 0xD0 : Ro = 0, "RoCEv2 packets dropped: bad ICRC.";
    RX_DROP_MALFORMED @ 0xD4 : Ro = 0, "RoCEv2 packets dropped: malformed (lengths, BTH version, pad, truncated headers).";
    RX_DROP_QP @ 0xD8 : Ro = 0, "RoCEv2 packets dropped: an unknown destination QP (past QP_COUNT, or the reserved QPs 0 and 1). A QP in the wrong state counts in RX_DROP_STATE.";
    RX_DROP_PSN @ 0xDC : Ro = 0, "RoCEv2 packets dropped: a request ahead of the expected PSN (the first of a gap is answered by a NAK PSN sequence error), or a response no request waits for.";
    TX_ACKS @ 0xE0 : Ro = 0, "ACKs sent.";
    TX_NAKS @ 0xE4 : Ro = 0, "NAKs sent (PSN sequence error, invalid request, remote access error, remote operational error, RNR).";
    RX_NAKS @ 0xE8 : Ro = 0, "NAKs received.";
    CQ_OVERFLOWS @ 0xEC : Ro = 0, "CQEs lost because their CQ was full (the CQ stops: its OVERFLOW bit).";
    RX_DROP_NOBUF @ 0xF0 : Ro = 0, "RoCEv2 packets dropped: the engine's receive buffers were full (packets arriving faster than the responder or completer takes them; the sender's retransmission recovers, issue 19).";
    RX_DUPLICATES @ 0xF4 : Ro = 0, "Duplicate requests (a PSN before the expected one): answered again, never executed twice (a SEND or WRITE by an ACK of the last PSN received, a READ by its response read again from memory).";
    TX_RETRIES @ 0xF8 : Ro = 0, "Times a requester went back to resend (a timeout, a PSN sequence NAK, a READ response after a gap, an RNR NAK's wait over).";
    TX_RESENT @ 0xFC : Ro = 0, "Request packets sent again after going back.";
    RX_DROP_STATE @ 0x100 : Ro = 0, "RoCEv2 packets dropped: the destination QP is in a state that takes no such packet (a request to a QP not in RTR or RTS, a response to one not in RTS: RESET, INIT, ERR). Source address and port are not checked.";
});

/// `FEATURES.RDMA`: the build has this block.
pub const FEATURES_RDMA: u32 = 1 << 8;

/// `TABLE_CMD.TABLE` values.
pub const TABLE_QP: u32 = 0;
pub const TABLE_MR: u32 = 1;
pub const TABLE_CQ: u32 = 2;
pub const TABLE_CMD_WRITE: u32 = 1 << 15;
pub const TABLE_STATUS_BUSY: u32 = 1 << 0;
/// `CAPS.RETRANSMIT`.
pub const CAPS_RETRANSMIT: u32 = 1 << 0;
pub const TABLE_STATUS_BAD_INDEX: u32 = 1 << 1;
/// First interrupt vector of the CQs (global IRQ_STATUS bit 16 + c).
pub const CQ_IRQ_BASE: u32 = 16;
/// The most CQs the interrupt vectors leave room for.
pub const MAX_CQS: u32 = 16;
/// QPNs below this are reserved (IB's QP0 and QP1).
pub const FIRST_QPN: u32 = 2;
pub const CQ_DOORBELL_ARM: u32 = 1 << 8;
pub const CQ_DOORBELL_SOLICITED: u32 = 1 << 9;

/// A field of a table entry: bits `lsb..lsb + width` of word `word`.
#[derive(Clone, Copy, Debug)]
pub struct TableField {
    pub name: &'static str,
    pub word: usize,
    pub lsb: u32,
    pub width: u32,
    /// The engine updates it as it runs (software reads it; a store overwrites it
    /// only when WORD_MASK selects its word).
    pub engine_owned: bool,
    pub doc: &'static str,
}

impl TableField {
    pub const fn mask(&self) -> u32 {
        if self.width >= 32 {
            u32::MAX
        } else {
            (1u32 << self.width) - 1
        }
    }
    pub fn get(&self, words: &[u32]) -> u32 {
        (words[self.word] >> self.lsb) & self.mask()
    }
    pub fn set(&self, words: &mut [u32], value: u32) {
        let m = self.mask() << self.lsb;
        words[self.word] = (words[self.word] & !m) | ((value << self.lsb) & m);
    }
}

macro_rules! table_fields {
    ($table:ident, $words:ident = $n:literal { $( $name:ident : $word:literal [$lsb:literal ; $width:literal] $owned:literal $doc:literal ; )* }) => {
        /// Words of one entry.
        pub const $words: usize = $n;
        $( #[doc = $doc] pub const $name: TableField = TableField { name: stringify!($name), word: $word, lsb: $lsb, width: $width, engine_owned: $owned, doc: $doc }; )*
        pub const $table: &[TableField] = &[ $( $name ),* ];
    };
}

/// QP context (TABLE 0).
pub mod qpc {
    use super::TableField;
    table_fields!(FIELDS, WORDS = 12 {
        STATE: 0 [0;3] true "QP state (`QpState`: 0 RESET, 1 INIT, 2 RTR, 3 RTS, 6 ERR); the engine moves a QP to ERR on a fatal error";
        PMTU: 0 [4;3] false "path MTU, IB encoding: 1 256, 2 512, 3 1024, 4 2048, 5 4096 bytes";
        SIG_ALL: 0 [7;1] false "every send WQE completes with a CQE, signalled or not";
        SEND_CQ: 0 [8;4] false "CQ of the send queue's completions";
        RECV_CQ: 0 [12;4] false "CQ of the receive queue's completions";
        PD: 0 [16;16] false "protection domain: the MRs this QP may use carry the same";
        DEST_QPN: 1 [0;24] false "the remote QP's number";
        ACCESS: 1 [24;3] false "remote operations this QP accepts (`access` bits: 2 REMOTE_WRITE, 4 REMOTE_READ; bit 0 unused)";
        MIN_RNR_TIMER: 1 [27;5] false "the RNR NAK's timer code (IBTA table 45: 1 0.01 ms .. 31 491.52 ms, 0 655.36 ms): how long the requester should wait before resending a SEND that found no receive WQE";
        SQ_PSN: 2 [0;24] true "PSN of the next request packet";
        RQ_PSN: 3 [0;24] true "expected PSN of the next request packet from the remote QP";
        DEST_IPV4: 4 [0;32] false "the remote NIC's IPv4 address (a.b.c.d as 0xaabbccdd)";
        DEST_MAC_LO: 5 [0;32] false "the next hop's MAC address bytes 0..3, byte 0 in bits 7:0";
        DEST_MAC_HI: 6 [0;16] false "the next hop's MAC address bytes 4 (7:0) and 5 (15:8)";
        UDP_SPORT: 6 [16;16] false "UDP source port of every packet (the flow's entropy for ECMP; RoCEv2 uses 49152..65535)";
        SQ_BASE_LO: 7 [0;32] false "send queue bus address bits 31:0 (128-byte aligned)";
        SQ_BASE_HI: 8 [0;12] false "send queue bus address bits 43:32";
        SQ_LOG2: 8 [16;4] false "log2 of the send queue's WQEs (0: no send queue)";
        TIMEOUT: 8 [20;5] false "local ACK timeout (IBTA): the requester goes back to the first unacknowledged PSN after 4.096 us x 2^TIMEOUT (640 << TIMEOUT cycles at 156.25 MHz) without progress; 0: never. Needs CAPS.RETRANSMIT";
        RETRY_CNT: 8 [25;3] false "times the requester goes back after a timeout or a PSN sequence NAK before the WQE fails with RETRY_EXC_ERR (reset by every ACK that makes progress). Needs CAPS.RETRANSMIT for more than 0";
        RNR_RETRY: 8 [28;3] false "times the requester resends after an RNR NAK (waiting the NAK's timer) before the WQE fails with RNR_RETRY_EXC_ERR; 7: for ever. Needs CAPS.RETRANSMIT for more than 0";
        RQ_BASE_LO: 9 [0;32] false "receive queue bus address bits 31:0 (128-byte aligned)";
        RQ_BASE_HI: 10 [0;12] false "receive queue bus address bits 43:32";
        RQ_LOG2: 10 [16;4] false "log2 of the receive queue's WQEs (0: no receive queue)";
        MAX_RD_ATOMIC: 10 [20;4] false "READs the requester may have outstanding at once (ORD, ibverbs' max_rd_atomic: at most the remote's responder resources); a READ WQE waits at the head of the send queue while that many are; 0: no bound but the outstanding ring's (14 WQEs)";
        SQ_CI: 11 [0;16] true "send WQEs the engine has taken (free-running; 0 after a store of STATE RESET)";
        RQ_CI: 11 [16;16] true "receive WQEs the engine has consumed (free-running; 0 after a store of STATE RESET)";
    });
}

/// MR table entry (TABLE 1).
pub mod mrc {
    use super::TableField;
    table_fields!(FIELDS, WORDS = 7 {
        VALID: 0 [0;1] false "the entry is a registered region";
        ACCESS: 0 [1;3] false "`access` bits: 1 LOCAL_WRITE, 2 REMOTE_WRITE, 4 REMOTE_READ (local read is always allowed)";
        PD: 0 [16;16] false "protection domain";
        KEY: 1 [0;32] false "lkey and rkey: bits 7:0 are the entry's index, bits 31:8 a tag the driver changes at every registration so a stale key misses";
        IOVA_LO: 2 [0;32] false "the region's first address as WQEs and RETHs name it, bits 31:0";
        IOVA_HI: 3 [0;32] false "bits 63:32";
        LENGTH: 4 [0;32] false "bytes";
        BUS_LO: 5 [0;32] false "bus address of the region's first byte, bits 31:0 (the region is contiguous in bus address space)";
        BUS_HI: 6 [0;12] false "bits 43:32";
    });
}

/// CQ context (TABLE 2).
pub mod cqc {
    use super::TableField;
    table_fields!(FIELDS, WORDS = 5 {
        BASE_LO: 0 [0;32] false "ring bus address bits 31:0 (32-byte aligned)";
        BASE_HI: 1 [0;12] false "ring bus address bits 43:32";
        LOG2: 1 [16;4] false "log2 of the ring's CQEs";
        ENABLE: 1 [31;1] false "the CQ takes completions; storing this word resets PI, the owner phase and OVERFLOW";
        IRQ_COUNT: 2 [0;16] false "interrupt moderation: an armed CQ raises its vector after this many CQEs (0, 1: the first)";
        IRQ_TIMER: 3 [0;20] false "interrupt moderation: or this many cycles after the first CQE since arming (0: off)";
        PI: 4 [0;16] true "CQEs written (free-running)";
        OVERFLOW: 4 [31;1] true "a CQE found the ring full and was lost; the CQ takes no more until re-enabled";
    });
}

/// Access rights (ibverbs' `IBV_ACCESS_*` values).
pub mod access {
    pub const LOCAL_WRITE: u32 = 1;
    pub const REMOTE_WRITE: u32 = 2;
    pub const REMOTE_READ: u32 = 4;
}

/// QP states (ibverbs' `IBV_QPS_*` values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum QpState {
    Reset = 0,
    Init = 1,
    Rtr = 2,
    Rts = 3,
    Err = 6,
}

impl QpState {
    pub fn from_code(c: u32) -> Option<Self> {
        Some(match c {
            0 => Self::Reset,
            1 => Self::Init,
            2 => Self::Rtr,
            3 => Self::Rts,
            6 => Self::Err,
            _ => return None,
        })
    }
}

/// Send and receive work queue entries: 128 bytes, little-endian.
pub mod wqe {
    pub const SIZE: usize = 128;
    pub const WR_ID: usize = 0;
    /// u8: `OP_*` (send queue; ignored in the receive queue).
    pub const OPCODE: usize = 8;
    /// u8: `FLAG_*`.
    pub const FLAGS: usize = 9;
    /// u8: scatter-gather entries used, 0..=MAX_SGE.
    pub const NUM_SGE: usize = 10;
    /// u32: immediate data (SEND_IMM, WRITE_IMM), sent big-endian in the ImmDt header.
    pub const IMM: usize = 12;
    /// u64: WRITE and READ: the remote address.
    pub const REMOTE_ADDR: usize = 16;
    /// u32: WRITE and READ: the remote key.
    pub const RKEY: usize = 24;
    /// Scatter-gather entry i at `SGE + SGE_SIZE * i`: u64 address (in the MR's IOVA
    /// space), u32 length, u32 lkey.
    pub const SGE: usize = 32;
    pub const SGE_SIZE: usize = 16;
    pub const SGE_ADDR: usize = 0;
    pub const SGE_LENGTH: usize = 8;
    pub const SGE_LKEY: usize = 12;
    pub const MAX_SGE: usize = 6;
    pub const OP_SEND: u8 = 0;
    pub const OP_SEND_IMM: u8 = 1;
    pub const OP_WRITE: u8 = 2;
    pub const OP_WRITE_IMM: u8 = 3;
    pub const OP_READ: u8 = 4;
    /// Write a CQE when the WQE completes successfully (errors always do).
    pub const FLAG_SIGNALED: u8 = 1;
    /// Set the BTH's solicited event bit on the message's last packet.
    pub const FLAG_SOLICITED: u8 = 2;
    /// The longest message: 2^31 bytes less one (a RETH's DMA length is 32 bits).
    pub const MAX_MESSAGE: u64 = (1 << 31) - 1;
}

/// Completion queue entries: 32 bytes, little-endian.
pub mod cqe {
    pub const SIZE: usize = 32;
    pub const WR_ID: usize = 0;
    /// u32: bytes moved (receive side: bytes received; READ: bytes read).
    pub const BYTE_LEN: usize = 8;
    /// u32: immediate data, when FLAG_IMM.
    pub const IMM: usize = 12;
    /// u32: the local QPN.
    pub const QPN: usize = 16;
    /// u8: `OP_*`.
    pub const OPCODE: usize = 20;
    /// u8: `WcStatus`.
    pub const STATUS: usize = 21;
    /// u8: `FLAG_*`.
    pub const FLAGS: usize = 22;
    /// u8: the AETH syndrome of a NAK that failed the WQE (0 otherwise).
    pub const SYNDROME: usize = 23;
    pub const OP_SEND: u8 = 0;
    pub const OP_RDMA_WRITE: u8 = 1;
    pub const OP_RDMA_READ: u8 = 2;
    pub const OP_RECV: u8 = 128;
    pub const OP_RECV_RDMA_WITH_IMM: u8 = 129;
    pub const FLAG_IMM: u8 = 1;
    pub const FLAG_SOLICITED: u8 = 2;
    /// The owner bit: 1 in the CQEs of the first pass over the ring, 0 in the second,
    /// and so on; the driver zeroes the ring, so a CQE is new when its owner bit is the
    /// pass's.
    pub const FLAG_OWNER: u8 = 0x80;
}

/// Completion status (ibverbs' `IBV_WC_*` values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum WcStatus {
    #[default]
    Success = 0,
    /// A receive WQE too short for the SEND, or a message longer than MAX_MESSAGE.
    LocLenErr = 1,
    /// A WQE the QP cannot run (unknown opcode, too many SGEs).
    LocQpOpErr = 2,
    /// An lkey that misses, another PD's MR, or an SGE outside its MR, or without the
    /// local write access it needs.
    LocProtErr = 4,
    /// The QP went to ERR before this WQE ran.
    WrFlushErr = 5,
    /// The remote QP refused the request as invalid (NAK invalid request).
    RemInvReqErr = 9,
    /// The remote QP refused the rkey, range or access (NAK remote access error).
    RemAccessErr = 10,
    /// The remote QP could not complete the request (NAK remote operational error).
    RemOpErr = 11,
    /// No ACK came in the QP's TIMEOUT, or a PSN sequence NAK, RETRY_CNT + 1 times in a row.
    RetryExcErr = 12,
    /// The remote QP had no receive WQE (RNR NAK), RNR_RETRY + 1 times in a row.
    RnrRetryExcErr = 13,
}

impl WcStatus {
    pub fn from_code(c: u8) -> Option<Self> {
        Some(match c {
            0 => Self::Success,
            1 => Self::LocLenErr,
            2 => Self::LocQpOpErr,
            4 => Self::LocProtErr,
            5 => Self::WrFlushErr,
            9 => Self::RemInvReqErr,
            10 => Self::RemAccessErr,
            11 => Self::RemOpErr,
            12 => Self::RetryExcErr,
            13 => Self::RnrRetryExcErr,
            _ => return None,
        })
    }
}

/// AETH syndromes the engine sends (IBTA 9.7.5.2.1 table 44).
pub mod syndrome {
    /// ACK; the low 5 bits are the credit count, 0x1f: credits not limited.
    pub const ACK: u8 = 0x1f;
    /// RNR NAK; the low 5 bits carry the QP's MIN_RNR_TIMER code (1: 0.01 ms).
    pub const RNR_NAK: u8 = 0x20;
    pub const NAK_PSN_SEQUENCE: u8 = 0x60;
    pub const NAK_INVALID_REQUEST: u8 = 0x61;
    pub const NAK_REMOTE_ACCESS: u8 = 0x62;
    pub const NAK_REMOTE_OPERATIONAL: u8 = 0x63;
}
