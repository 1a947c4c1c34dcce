//! The RoCEv2 golden model judged by tools written elsewhere: scapy's RoCE layer
//! recomputes every ICRC the model emits, and tshark's InfiniBand dissector decodes every
//! BTH, RETH and AETH field, which must equal what the model put there.

use nic_testbench::pcap;
use nic_testbench::roce::{gen, opcode, packet::pad_for, RoceRepr};
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use std::process::Command;

fn workdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nic-roce-wire-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Random packets over every opcode, both IP families, payloads of 0..=300 bytes.
fn random_packets(seed: u64, n: usize) -> Vec<(RoceRepr, Vec<u8>)> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let op = opcode::TABLE[i % opcode::TABLE.len()].opcode;
            let v6 = rng.gen_bool(0.3);
            let r = gen::random_repr(&mut rng, op, v6);
            let len = rng.gen_range(0..=300);
            (r, gen::random_payload(&mut rng, op, len))
        })
        .collect()
}

#[test]
fn scapy_agrees_with_every_icrc() {
    let python = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.venv/bin/python"));
    assert!(python.exists(), "{} missing: `make setup` installs scapy into the project's venv", python.display());
    let packets = random_packets(0x4791, 200);
    let mut frames: Vec<Vec<u8>> = packets.iter().map(|(r, p)| r.emit_frame(p)).collect();
    // One frame with a flipped payload bit: scapy must disagree with its ICRC, so the
    // comparison below can fail.
    let corrupt = frames.len();
    let mut bad = frames[0].clone();
    let at = bad.len() - 5;
    bad[at] ^= 0x10;
    frames.push(bad);
    let path = workdir("scapy").join("roce.pcap");
    pcap::write_file(&path, &frames).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scripts/roce_icrc_check.py");
    let out = Command::new(&python).arg(script).arg(&path).output().unwrap();
    assert!(out.status.success(), "scapy: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), frames.len());
    for (i, line) in lines.iter().enumerate() {
        let f: Vec<u32> = line.split(' ').map(|x| u32::from_str_radix(x, 16).unwrap_or_else(|_| panic!("frame {i}: scapy printed `{line}`"))).collect();
        if i == corrupt {
            assert_ne!(f[0], f[1], "a corrupted frame's ICRC must not verify");
            continue;
        }
        let (r, _) = &packets[i];
        assert_eq!(f[0], f[1], "frame {i} ({}): ICRC {:08x}, scapy computes {:08x}", opcode::info(r.bth.opcode).unwrap().name, f[0], f[1]);
        assert_eq!((f[2], f[3], f[4], f[5] != 0), (u32::from(r.bth.opcode), r.bth.dest_qp, r.bth.psn, r.bth.ack_req), "frame {i}");
    }
}

#[test]
fn tshark_decodes_every_field() {
    let packets = random_packets(0x1bad, 120);
    let frames: Vec<Vec<u8>> = packets.iter().map(|(r, p)| r.emit_frame(p)).collect();
    let path = workdir("tshark").join("roce.pcap");
    pcap::write_file(&path, &frames).unwrap();
    let fields = [
        "infiniband.bth.opcode", "infiniband.bth.se", "infiniband.bth.m", "infiniband.bth.padcnt", "infiniband.bth.p_key",
        "infiniband.bth.destqp", "infiniband.bth.a", "infiniband.bth.psn", "infiniband.reth.va", "infiniband.reth.r_key",
        "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn", "infiniband.immdt", "infiniband.invariant.crc",
    ];
    let mut cmd = Command::new("tshark");
    // RPC-over-RDMA's heuristic dissector claims random SEND payloads and then gives up
    // on them, taking the ICRC field with it: payloads here are random bytes.
    cmd.arg("-r").arg(&path).args(["--disable-protocol", "rpcordma", "-T", "fields", "-E", "separator=;"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("tshark is installed by `make setup`");
    assert!(out.status.success(), "tshark: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), frames.len());
    let num = |s: &str| -> u64 {
        let s = s.trim();
        match s {
            "True" | "1" => 1,
            "False" | "0" => 0,
            _ if s.starts_with("0x") => u64::from_str_radix(&s[2..], 16).unwrap(),
            _ => s.parse().unwrap_or_else(|_| panic!("tshark printed `{s}`")),
        }
    };
    for (i, line) in lines.iter().enumerate() {
        let (r, payload) = &packets[i];
        let f: Vec<&str> = line.split(';').collect();
        let b = &r.bth;
        let name = opcode::info(b.opcode).unwrap().name;
        let got = [num(f[0]), num(f[1]), num(f[2]), num(f[3]), num(f[4]), num(f[5]), num(f[6]), num(f[7])];
        let want: [u64; 8] = [b.opcode.into(), b.solicited.into(), b.mig_req.into(), pad_for(payload.len()).into(), b.pkey.into(), b.dest_qp.into(), b.ack_req.into(), b.psn.into()];
        assert_eq!(got, want, "frame {i} ({name}): BTH opcode se m padcnt pkey destqp a psn");
        match &r.reth {
            Some(h) => assert_eq!([num(f[8]), num(f[9]), num(f[10])], [h.virtual_addr, u64::from(h.rkey), u64::from(h.dma_len)], "frame {i} ({name}): RETH"),
            None => assert!(f[8].is_empty(), "frame {i} ({name}): tshark saw a RETH"),
        }
        match &r.aeth {
            Some(h) => assert_eq!([num(f[11]), num(f[12])], [u64::from(h.syndrome.to_byte()), u64::from(h.msn)], "frame {i} ({name}): AETH"),
            None => assert!(f[11].is_empty(), "frame {i} ({name}): tshark saw an AETH"),
        }
        match r.immdt {
            // tshark 4.0 lists the ImmDt field twice (header and value share the name)
            Some(v) => assert_eq!(f[13].split(',').next().unwrap().replace(':', ""), format!("{v:08x}"), "frame {i} ({name}): ImmDt"),
            None => assert!(f[13].is_empty(), "frame {i} ({name}): tshark saw an ImmDt"),
        }
        // tshark shows the ICRC as the big-endian reading of the 4 bytes on the wire
        let frame = &frames[i];
        let ip_end = 14 + if r.ip_src.is_ipv4() { u16::from_be_bytes([frame[16], frame[17]]) as usize } else { 40 + u16::from_be_bytes([frame[18], frame[19]]) as usize };
        let wire_icrc = u32::from_be_bytes(frame[ip_end - 4..ip_end].try_into().unwrap());
        assert_eq!(num(f[14]), u64::from(wire_icrc), "frame {i} ({name}): ICRC position");
    }
}
