//! Seeded random RoCEv2 packets for the suites: every field random (the ones the ICRC
//! masks too), the headers the opcode calls for present, the rest absent. Suites set
//! what their case needs afterwards.

use super::opcode;
use super::RoceRepr;
use crate::wire::{bth, AethRepr, BthRepr, EthernetAddress, NakCode, RethRepr, Syndrome};
use rand::Rng;
use std::net::IpAddr;

/// A packet of `op` (a row of `opcode::TABLE`) over IPv4, or IPv6 when `v6`.
pub fn random_repr(rng: &mut impl Rng, op: u8, v6: bool) -> RoceRepr {
    let info = opcode::info(op).expect("an opcode of the table");
    let (ip_src, ip_dst): (IpAddr, IpAddr) = if v6 {
        (format!("fd00::{:x}:{:x}", rng.gen::<u16>(), rng.gen::<u16>()).parse().unwrap(), format!("fd00::{:x}", rng.gen::<u16>()).parse().unwrap())
    } else {
        (IpAddr::V4(rng.gen::<u32>().into()), IpAddr::V4(rng.gen::<u32>().into()))
    };
    let syndromes = [
        Syndrome::Ack { credits: rng.gen_range(0..32) },
        Syndrome::RnrNak { timer: rng.gen_range(0..32) },
        Syndrome::Nak(NakCode::PsnSequenceError),
        Syndrome::Nak(NakCode::RemoteAccessError),
    ];
    RoceRepr {
        eth_src: EthernetAddress([2, rng.gen(), rng.gen(), rng.gen(), rng.gen(), rng.gen()]),
        eth_dst: EthernetAddress([2, rng.gen(), rng.gen(), rng.gen(), rng.gen(), rng.gen()]),
        ip_src,
        ip_dst,
        traffic_class: rng.gen(),
        ttl: rng.gen(),
        udp_src_port: rng.gen(),
        bth: BthRepr {
            opcode: op,
            solicited: rng.gen(),
            mig_req: rng.gen(),
            pad_count: 0,
            pkey: rng.gen(),
            fecn: rng.gen(),
            becn: rng.gen(),
            dest_qp: rng.gen::<u32>() & bth::MASK_24,
            ack_req: rng.gen(),
            psn: rng.gen::<u32>() & bth::MASK_24,
        },
        reth: info.reth.then(|| RethRepr { virtual_addr: rng.gen(), rkey: rng.gen(), dma_len: rng.gen() }),
        aeth: info.aeth.then(|| AethRepr { syndrome: syndromes[rng.gen_range(0..syndromes.len())], msn: rng.gen::<u32>() & bth::MASK_24 }),
        immdt: info.immdt.then(|| rng.gen()),
    }
}

/// A random opcode of the table.
pub fn random_opcode(rng: &mut impl Rng) -> u8 {
    opcode::TABLE[rng.gen_range(0..opcode::TABLE.len())].opcode
}

/// `len` random payload bytes, or none for an opcode without payload.
pub fn random_payload(rng: &mut impl Rng, op: u8, len: usize) -> Vec<u8> {
    if opcode::info(op).is_some_and(|i| i.payload) {
        (0..len).map(|_| rng.gen()).collect()
    } else {
        Vec::new()
    }
}
