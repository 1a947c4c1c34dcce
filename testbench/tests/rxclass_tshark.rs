//! The golden classifier's checksum verdicts judged by an independent implementation:
//! tshark's IPv4/TCP/UDP checksum validation, on random traffic with bad checksums,
//! VLANs, options, IPv6 and malformed headers. Wherever the model gives a verdict
//! (good or bad), tshark must agree; where the model refuses to judge (malformed,
//! fragments), tshark's opinion is not asked.

use nic_testbench::pcap::{self, tshark_checksum_verdicts};
use nic_testbench::rxclass::{self, csum, ptype, RxClassConfig};
use nic_testbench::rxgen::{self, RxGenOptions};
use rand::rngs::StdRng;
use rand::SeedableRng;

#[test]
fn model_checksum_verdicts_agree_with_tshark() {
    let mut rng = StdRng::seed_from_u64(0x75_6172_6b);
    let opts = RxGenOptions { p_bad_l3_csum: 0.2, p_bad_l4_csum: 0.2, ..RxGenOptions::default() };
    let frames: Vec<Vec<u8>> = (0..3000).map(|_| rxgen::random_frame(&mut rng, &opts)).collect();
    let dir = std::env::temp_dir().join(format!("nic-rxclass-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rx.pcap");
    let mut w = pcap::PcapWriter::new(std::fs::File::create(&path).unwrap(), pcap::LINKTYPE_ETHERNET).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write(i as u64, f).unwrap();
    }
    drop(w);
    let verdicts = tshark_checksum_verdicts(&path).expect("tshark is installed by `make setup`").unwrap();
    assert_eq!(verdicts.len(), frames.len());
    let cfg = RxClassConfig::reset_default(1);
    let (mut l3_judged, mut l4_judged, mut l3_bad, mut l4_bad) = (0, 0, 0, 0);
    for (i, (f, t)) in frames.iter().zip(&verdicts).enumerate() {
        let m = rxclass::classify(&cfg, f);
        let ctx = || format!("frame {i} ({} bytes, ptype {:#x}): model {m:?}, tshark {t:?}\n{:02x?}", f.len(), m.ptype, &f[..f.len().min(80)]);
        if m.l3_csum != csum::NOT_CHECKED {
            assert_eq!(t.ip, Some(m.l3_csum == csum::GOOD), "IPv4 header checksum: {}", ctx());
            l3_judged += 1;
            l3_bad += usize::from(m.l3_csum == csum::BAD);
        }
        if m.l4_csum != csum::NOT_CHECKED {
            let l4 = m.ptype & ptype::L4_MASK;
            let tshark = if l4 == ptype::L4_TCP { t.tcp } else { t.udp };
            // tshark skips UDP/IPv6 zero checksums as "none"; the model calls them bad (RFC 8200)
            if tshark.is_some() {
                assert_eq!(tshark, Some(m.l4_csum == csum::GOOD), "L4 checksum: {}", ctx());
                l4_judged += 1;
                l4_bad += usize::from(m.l4_csum == csum::BAD);
            }
        }
    }
    eprintln!("tshark agreed on {l3_judged} IPv4 header verdicts ({l3_bad} bad) and {l4_judged} TCP/UDP verdicts ({l4_bad} bad)");
    assert!(l3_judged > 500 && l3_bad > 50 && l4_judged > 500 && l4_bad > 50, "too few verdicts compared to mean anything");
    std::fs::remove_dir_all(&dir).ok();
}
