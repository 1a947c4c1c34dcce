//! The board's serial register bridge protocol (hw `board::bridge::UartBridge`), host side:
//! request encoders and answer decoders, no I/O policy.
//!
//! | command | request | answer |
//! |---|---|---|
//! | write register | `'W'` addr:u32 value:u32 | `'w'` status |
//! | read register | `'R'` addr:u32 | `'r'` status value:u32 (0 unless status 0) |
//! | memory write | `'M'` off:u32 len:u16 data[len] | `'m'` status |
//! | memory read | `'D'` off:u32 len:u16 | `'d'` status, then data[len] only if status 0 |
//! | memory zero | `'Z'` off:u32 len:u32 | `'z'` status |
//! | poll | `'I'` | `'i'` irq:u16 cycles:u64 |
//! | fault log | `'F'` | `'f'` count:u16 addr:u64 len:u16 write:u8 (the board then clears the count) |
//! | identify | `'V'` | `'v'` "NICB" version:u8 mem_size_log2:u8 |
//! | anything else | the byte | `'?'` the byte |
//!
//! All integers are little-endian. The board answers every command, and the host sends
//! the next command only after the whole answer.
//!
//! [`Request::encode`] gives a request's bytes; an [`AnswerParser`] (made for that
//! request) takes the answer bytes one at a time as they arrive and yields the
//! [`Answer`]; [`read_answer`] does the same from any byte source (a serial port).
//! A status other than 0 is part of the answer ([`Status`]), not an error of the codec;
//! [`SerialError`] is for bytes that do not fit the protocol.

use std::fmt;

/// Command bytes (requests) and answer bytes.
pub mod cmd {
    pub const WRITE_REG: u8 = b'W';
    pub const READ_REG: u8 = b'R';
    pub const MEM_WRITE: u8 = b'M';
    pub const MEM_READ: u8 = b'D';
    pub const MEM_ZERO: u8 = b'Z';
    pub const POLL: u8 = b'I';
    pub const FAULTS: u8 = b'F';
    pub const IDENTIFY: u8 = b'V';
    /// The answer to a byte the board does not know, followed by that byte.
    pub const UNKNOWN: u8 = b'?';
}

/// `'V'` answer: magic and the protocol version this codec speaks.
pub const MAGIC: [u8; 4] = *b"NICB";
pub const VERSION: u8 = 1;
/// Register addresses are 16 bits; a larger one gets [`Status::Range`].
pub const REG_SPACE: u32 = 0x1_0000;
/// The most bytes one `'M'` or `'D'` carries.
pub const MAX_XFER: usize = u16::MAX as usize;

/// The status byte of `'w'`, `'r'`, `'m'`, `'d'`, `'z'`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// 0
    Ok,
    /// 1: the register access got no response within 4096 core clocks.
    Timeout,
    /// 2: the register slave answered with an error (`bresp`/`rresp` != 0).
    SlaveError,
    /// 3: register address >= 0x10000, or memory `off + len` beyond the window;
    /// nothing was accessed.
    Range,
    /// Any other value (not defined by version 1).
    Other(u8),
}

impl Status {
    pub fn from_byte(b: u8) -> Self {
        match b {
            0 => Status::Ok,
            1 => Status::Timeout,
            2 => Status::SlaveError,
            3 => Status::Range,
            x => Status::Other(x),
        }
    }

    pub fn to_byte(self) -> u8 {
        match self {
            Status::Ok => 0,
            Status::Timeout => 1,
            Status::SlaveError => 2,
            Status::Range => 3,
            Status::Other(x) => x,
        }
    }

    pub fn is_ok(self) -> bool {
        self == Status::Ok
    }
}

/// One host -> board command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    WriteReg { addr: u32, value: u32 },
    ReadReg { addr: u32 },
    /// At most [`MAX_XFER`] bytes.
    MemWrite { off: u32, data: Vec<u8> },
    MemRead { off: u32, len: u16 },
    MemZero { off: u32, len: u32 },
    Poll,
    Faults,
    Identify,
}

impl Request {
    /// The command byte.
    pub fn command(&self) -> u8 {
        match self {
            Request::WriteReg { .. } => cmd::WRITE_REG,
            Request::ReadReg { .. } => cmd::READ_REG,
            Request::MemWrite { .. } => cmd::MEM_WRITE,
            Request::MemRead { .. } => cmd::MEM_READ,
            Request::MemZero { .. } => cmd::MEM_ZERO,
            Request::Poll => cmd::POLL,
            Request::Faults => cmd::FAULTS,
            Request::Identify => cmd::IDENTIFY,
        }
    }

    /// The answer byte that must open this request's answer (`command` in lower case).
    pub fn answer_tag(&self) -> u8 {
        self.command().to_ascii_lowercase()
    }

    /// The request's bytes. Panics if a `MemWrite` carries more than [`MAX_XFER`] bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = vec![self.command()];
        match self {
            Request::WriteReg { addr, value } => {
                v.extend_from_slice(&addr.to_le_bytes());
                v.extend_from_slice(&value.to_le_bytes());
            }
            Request::ReadReg { addr } => v.extend_from_slice(&addr.to_le_bytes()),
            Request::MemWrite { off, data } => {
                let len = u16::try_from(data.len()).expect("MemWrite: at most 65535 bytes per request");
                v.extend_from_slice(&off.to_le_bytes());
                v.extend_from_slice(&len.to_le_bytes());
                v.extend_from_slice(data);
            }
            Request::MemRead { off, len } => {
                v.extend_from_slice(&off.to_le_bytes());
                v.extend_from_slice(&len.to_le_bytes());
            }
            Request::MemZero { off, len } => {
                v.extend_from_slice(&off.to_le_bytes());
                v.extend_from_slice(&len.to_le_bytes());
            }
            Request::Poll | Request::Faults | Request::Identify => {}
        }
        v
    }

    /// The answer's length in bytes when its status is 0 (the longest it can be).
    pub fn answer_len(&self) -> usize {
        match self {
            Request::WriteReg { .. } | Request::MemWrite { .. } | Request::MemZero { .. } => 2,
            Request::ReadReg { .. } => 6,
            Request::MemRead { len, .. } => 2 + usize::from(*len),
            Request::Poll => 11,
            Request::Faults => 14,
            Request::Identify => 7,
        }
    }
}

/// The board's fault log (host memory accesses of the NIC outside the window).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct FaultLog {
    /// Faults since the last `'F'` (saturating).
    pub count: u16,
    /// The latest fault's bus address, length and direction.
    pub addr: u64,
    pub len: u16,
    pub write: bool,
}

/// A decoded answer; the variant matches the request it answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    WriteReg { status: Status },
    /// `value` is 0 unless `status` is ok.
    ReadReg { status: Status, value: u32 },
    MemWrite { status: Status },
    /// `data` is empty unless `status` is ok.
    MemRead { status: Status, data: Vec<u8> },
    MemZero { status: Status },
    Poll { irq: u16, cycles: u64 },
    Faults(FaultLog),
    Identify { version: u8, mem_size_log2: u8 },
}

impl Answer {
    /// The status byte, for the answers that carry one.
    pub fn status(&self) -> Option<Status> {
        match self {
            Answer::WriteReg { status }
            | Answer::ReadReg { status, .. }
            | Answer::MemWrite { status }
            | Answer::MemRead { status, .. }
            | Answer::MemZero { status } => Some(*status),
            _ => None,
        }
    }
}

/// Bytes that do not fit the protocol, or a failing byte source.
#[derive(Debug)]
pub enum SerialError {
    /// The board did not know the command byte it got (`'?'` then that byte): the two
    /// sides are out of step.
    Unknown { byte: u8 },
    /// The answer started with `got` instead of `expected`.
    UnexpectedTag { expected: u8, got: u8 },
    /// `'v'` without the "NICB" magic.
    BadMagic([u8; 4]),
    /// The byte source failed or ended.
    Io(std::io::Error),
}

impl fmt::Display for SerialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SerialError::Unknown { byte } => write!(f, "board did not know command byte {byte:#04x}"),
            SerialError::UnexpectedTag { expected, got } => {
                write!(f, "answer starts with {got:#04x}, expected {:?}", *expected as char)
            }
            SerialError::BadMagic(m) => write!(f, "identify answer without NICB magic: {m:02x?}"),
            SerialError::Io(e) => write!(f, "serial port: {e}"),
        }
    }
}

impl std::error::Error for SerialError {}

impl From<std::io::Error> for SerialError {
    fn from(e: std::io::Error) -> Self {
        SerialError::Io(e)
    }
}

/// Takes one request's answer a byte at a time.
#[derive(Clone, Debug)]
pub struct AnswerParser {
    req: Request,
    buf: Vec<u8>,
    done: bool,
}

impl AnswerParser {
    pub fn new(req: &Request) -> Self {
        // the request's payload is not needed to parse the answer
        let req = match req {
            Request::MemWrite { off, .. } => Request::MemWrite { off: *off, data: Vec::new() },
            r => r.clone(),
        };
        AnswerParser { req, buf: Vec::new(), done: false }
    }

    /// The bytes needed for the answer given what has arrived so far.
    fn needed(&self) -> usize {
        if self.buf.first() == Some(&cmd::UNKNOWN) {
            return 2;
        }
        match self.req {
            // no data after a bad status
            Request::MemRead { .. } if self.buf.len() >= 2 && self.buf[1] != 0 => 2,
            _ => self.req.answer_len(),
        }
    }

    /// Feeds one byte: `Ok(Some(answer))` when it completes the answer, `Ok(None)` while
    /// more are needed, an error when the bytes cannot be this request's answer (the
    /// parser is then finished; resynchronise, e.g. with `Identify`).
    /// Panics if fed after it finished.
    pub fn push(&mut self, b: u8) -> Result<Option<Answer>, SerialError> {
        assert!(!self.done, "AnswerParser fed after its answer was complete");
        if self.buf.is_empty() && b != self.req.answer_tag() && b != cmd::UNKNOWN {
            self.done = true;
            return Err(SerialError::UnexpectedTag { expected: self.req.answer_tag(), got: b });
        }
        self.buf.push(b);
        if self.buf.len() < self.needed() {
            return Ok(None);
        }
        self.done = true;
        self.decode().map(Some)
    }

    /// Whether the answer (or an error) is complete.
    pub fn is_done(&self) -> bool {
        self.done
    }

    fn decode(&self) -> Result<Answer, SerialError> {
        let b = &self.buf;
        if b[0] == cmd::UNKNOWN {
            return Err(SerialError::Unknown { byte: b[1] });
        }
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let status = || Status::from_byte(b[1]);
        Ok(match self.req {
            Request::WriteReg { .. } => Answer::WriteReg { status: status() },
            Request::ReadReg { .. } => Answer::ReadReg { status: status(), value: u32_at(2) },
            Request::MemWrite { .. } => Answer::MemWrite { status: status() },
            Request::MemRead { .. } => Answer::MemRead { status: status(), data: b[2..].to_vec() },
            Request::MemZero { .. } => Answer::MemZero { status: status() },
            Request::Poll => Answer::Poll { irq: u16_at(1), cycles: u64_at(3) },
            Request::Faults => Answer::Faults(FaultLog { count: u16_at(1), addr: u64_at(3), len: u16_at(11), write: b[13] != 0 }),
            Request::Identify => {
                let magic: [u8; 4] = b[1..5].try_into().unwrap();
                if magic != MAGIC {
                    return Err(SerialError::BadMagic(magic));
                }
                Answer::Identify { version: b[5], mem_size_log2: b[6] }
            }
        })
    }
}

/// Reads `req`'s answer from `src` (blocking reads; a read of 0 bytes is an error).
pub fn read_answer<R: std::io::Read + ?Sized>(req: &Request, src: &mut R) -> Result<Answer, SerialError> {
    let mut p = AnswerParser::new(req);
    let mut byte = [0u8; 1];
    loop {
        src.read_exact(&mut byte)?;
        if let Some(a) = p.push(byte[0])? {
            return Ok(a);
        }
    }
}

/// Encodes an answer as the board sends it (for board models and tests).
pub fn encode_answer(a: &Answer) -> Vec<u8> {
    let mut v = Vec::new();
    match a {
        Answer::WriteReg { status } => v.extend_from_slice(&[b'w', status.to_byte()]),
        Answer::ReadReg { status, value } => {
            v.extend_from_slice(&[b'r', status.to_byte()]);
            v.extend_from_slice(&value.to_le_bytes());
        }
        Answer::MemWrite { status } => v.extend_from_slice(&[b'm', status.to_byte()]),
        Answer::MemRead { status, data } => {
            v.extend_from_slice(&[b'd', status.to_byte()]);
            v.extend_from_slice(data);
        }
        Answer::MemZero { status } => v.extend_from_slice(&[b'z', status.to_byte()]),
        Answer::Poll { irq, cycles } => {
            v.push(b'i');
            v.extend_from_slice(&irq.to_le_bytes());
            v.extend_from_slice(&cycles.to_le_bytes());
        }
        Answer::Faults(f) => {
            v.push(b'f');
            v.extend_from_slice(&f.count.to_le_bytes());
            v.extend_from_slice(&f.addr.to_le_bytes());
            v.extend_from_slice(&f.len.to_le_bytes());
            v.push(f.write as u8);
        }
        Answer::Identify { version, mem_size_log2 } => {
            v.push(b'v');
            v.extend_from_slice(&MAGIC);
            v.extend_from_slice(&[*version, *mem_size_log2]);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(req: &Request, bytes: &[u8]) -> Result<Answer, SerialError> {
        read_answer(req, &mut &bytes[..])
    }

    #[test]
    fn encodes_every_request_little_endian() {
        assert_eq!(Request::WriteReg { addr: 0x1234, value: 0xdead_beef }.encode(), [b'W', 0x34, 0x12, 0, 0, 0xef, 0xbe, 0xad, 0xde]);
        assert_eq!(Request::ReadReg { addr: 0x0001_0008 }.encode(), [b'R', 8, 0, 1, 0]);
        assert_eq!(Request::MemWrite { off: 0x100, data: vec![1, 2, 3] }.encode(), [b'M', 0, 1, 0, 0, 3, 0, 1, 2, 3]);
        assert_eq!(Request::MemRead { off: 0x0102_0304, len: 0x0506 }.encode(), [b'D', 4, 3, 2, 1, 6, 5]);
        assert_eq!(Request::MemZero { off: 7, len: 0x0001_0000 }.encode(), [b'Z', 7, 0, 0, 0, 0, 0, 1, 0]);
        assert_eq!(Request::Poll.encode(), [b'I']);
        assert_eq!(Request::Faults.encode(), [b'F']);
        assert_eq!(Request::Identify.encode(), [b'V']);
    }

    #[test]
    #[should_panic(expected = "65535")]
    fn mem_write_too_long_panics() {
        Request::MemWrite { off: 0, data: vec![0; 65536] }.encode();
    }

    #[test]
    fn decodes_every_answer() {
        let w = Request::WriteReg { addr: 0, value: 0 };
        assert_eq!(parse(&w, b"w\x00").unwrap(), Answer::WriteReg { status: Status::Ok });
        assert_eq!(parse(&w, b"w\x01").unwrap(), Answer::WriteReg { status: Status::Timeout });
        let r = Request::ReadReg { addr: 4 };
        assert_eq!(parse(&r, b"r\x00\x78\x56\x34\x12").unwrap(), Answer::ReadReg { status: Status::Ok, value: 0x1234_5678 });
        assert_eq!(parse(&r, b"r\x02\x00\x00\x00\x00").unwrap(), Answer::ReadReg { status: Status::SlaveError, value: 0 });
        let m = Request::MemWrite { off: 0, data: vec![9; 5] };
        assert_eq!(parse(&m, b"m\x03").unwrap(), Answer::MemWrite { status: Status::Range });
        let d = Request::MemRead { off: 0, len: 3 };
        assert_eq!(parse(&d, b"d\x00abc").unwrap(), Answer::MemRead { status: Status::Ok, data: b"abc".to_vec() });
        // a bad status ends the answer after two bytes
        assert_eq!(parse(&d, b"d\x03").unwrap(), Answer::MemRead { status: Status::Range, data: vec![] });
        let z = Request::MemZero { off: 0, len: 9 };
        assert_eq!(parse(&z, b"z\x00").unwrap(), Answer::MemZero { status: Status::Ok });
        assert_eq!(
            parse(&Request::Poll, &[b'i', 0x03, 0x80, 1, 2, 3, 4, 5, 6, 7, 8]).unwrap(),
            Answer::Poll { irq: 0x8003, cycles: 0x0807_0605_0403_0201 }
        );
        assert_eq!(
            parse(&Request::Faults, &[b'f', 2, 0, 0x10, 0, 0, 0, 1, 0, 0, 0, 0x40, 0, 1]).unwrap(),
            Answer::Faults(FaultLog { count: 2, addr: 0x1_0000_0010, len: 0x40, write: true })
        );
        assert_eq!(parse(&Request::Identify, b"vNICB\x01\x14").unwrap(), Answer::Identify { version: 1, mem_size_log2: 20 });
    }

    #[test]
    fn encode_answer_round_trips() {
        let cases = [
            (Request::WriteReg { addr: 1, value: 2 }, Answer::WriteReg { status: Status::SlaveError }),
            (Request::ReadReg { addr: 1 }, Answer::ReadReg { status: Status::Ok, value: 0xfeed_f00d }),
            (Request::MemWrite { off: 1, data: vec![1] }, Answer::MemWrite { status: Status::Ok }),
            (Request::MemRead { off: 1, len: 4 }, Answer::MemRead { status: Status::Ok, data: vec![4, 3, 2, 1] }),
            (Request::MemZero { off: 1, len: 4 }, Answer::MemZero { status: Status::Range }),
            (Request::Poll, Answer::Poll { irq: 5, cycles: u64::MAX - 3 }),
            (Request::Faults, Answer::Faults(FaultLog { count: 65535, addr: u64::MAX, len: 1, write: false })),
            (Request::Identify, Answer::Identify { version: VERSION, mem_size_log2: 16 }),
        ];
        for (req, ans) in cases {
            let bytes = encode_answer(&ans);
            if ans.status().is_none_or(|s| s.is_ok()) {
                assert_eq!(bytes.len(), req.answer_len(), "{req:?}");
            }
            assert_eq!(parse(&req, &bytes).unwrap(), ans);
        }
    }

    #[test]
    fn incremental_parser_completes_on_the_last_byte_only() {
        let req = Request::MemRead { off: 0, len: 2 };
        let mut p = AnswerParser::new(&req);
        assert!(p.push(b'd').unwrap().is_none());
        assert!(p.push(0).unwrap().is_none());
        assert!(p.push(0xaa).unwrap().is_none());
        assert!(!p.is_done());
        assert_eq!(p.push(0xbb).unwrap(), Some(Answer::MemRead { status: Status::Ok, data: vec![0xaa, 0xbb] }));
        assert!(p.is_done());
    }

    #[test]
    fn protocol_errors() {
        // the board did not know the byte: '?' + the byte
        match parse(&Request::Poll, b"?\x55") {
            Err(SerialError::Unknown { byte: 0x55 }) => {}
            e => panic!("{e:?}"),
        }
        match parse(&Request::Poll, b"w\x00") {
            Err(SerialError::UnexpectedTag { expected: b'i', got: b'w' }) => {}
            e => panic!("{e:?}"),
        }
        match parse(&Request::Identify, b"vNICX\x01\x10") {
            Err(SerialError::BadMagic(m)) => assert_eq!(&m, b"NICX"),
            e => panic!("{e:?}"),
        }
        // a source that ends early
        match parse(&Request::ReadReg { addr: 0 }, b"r\x00\x01") {
            Err(SerialError::Io(e)) => assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof),
            e => panic!("{e:?}"),
        }
    }
}
