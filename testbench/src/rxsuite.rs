//! Receive-side classification through the real driver: program a configuration,
//! replay frames into the wire, collect what every queue received, and judge it
//! against the golden classifier ([`crate::rxclass`]). Shared by the differential
//! suites and by `nic sim rx`.

use crate::fcs;
use crate::rxclass::{self, RxClassConfig, RxMeta};
use crate::traffic::WireAccess;
use nic_driver::{Device, DriverError, MacFilter, Nic, RegisterVerbs, RxFilterMode, RxFrame, Stats};
use nic_regmap::rxc;

/// Writes `cfg` into the NIC's classification registers through the driver API. The
/// driver refuses queue numbers beyond the queue count (steering targets, indirection
/// entries) and exact-match entries the NIC does not have (`MAC_FILTER_COUNT`); those
/// are written raw instead, so that the hardware's masking of queue numbers, and its
/// ignoring of writes to absent entries, are exercised too.
pub fn program<D: Device>(nic: &mut Nic<D>, cfg: &RxClassConfig) -> Result<(), DriverError> {
    nic.set_rx_filter_mode(RxFilterMode { promisc: cfg.promisc, allmulti: cfg.allmulti, broadcast: cfg.broadcast })?;
    let queues = nic.layout().rx_queues;
    let rxc_base = nic.layout().rxc.ok_or(DriverError::MissingBlock { block: "rxc" })? - rxc::BASE;
    let entries = nic.mac_filter_count();
    for (i, e) in cfg.exact.iter().enumerate() {
        if (e.steer && u32::from(e.queue) >= queues) || i as u32 >= entries {
            let (lo, hi) = e.words();
            nic.device_mut().set_reg32(rxc_base + rxc::mac_filter_hi(i as u32), 0)?;
            nic.device_mut().set_reg32(rxc_base + rxc::mac_filter_lo(i as u32), lo)?;
            nic.device_mut().set_reg32(rxc_base + rxc::mac_filter_hi(i as u32), hi)?;
        } else {
            let f = e.enable.then_some(MacFilter { addr: e.addr, steer_queue: e.steer.then_some(e.queue) });
            nic.set_mac_filter(i as u32, f)?;
        }
    }
    nic.set_mcast_hash(&cfg.mcast_hash)?;
    if !nic.has_rss() {
        // (the driver refuses the RSS registers of a NIC without RSS)
        return Ok(());
    }
    nic.set_rss_key(&cfg.rss_key)?;
    nic.set_rss_types(u32::from(cfg.rss_types))?;
    if cfg.reta.iter().all(|&q| u32::from(q) < queues) {
        nic.set_rss_reta(&cfg.reta)
    } else {
        for (i, w) in cfg.reta_words().into_iter().enumerate() {
            nic.device_mut().set_reg32(rxc_base + rxc::rss_reta(i as u32), w)?;
        }
        Ok(())
    }
}

/// What happened to one frame, as the NIC reported it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxOutcome {
    pub index: usize,
    /// Delivered to a host buffer.
    pub accepted: bool,
    /// Why not (a statistics counter's name, e.g. `unicast_filter`, `no_buffer`, `fcs`).
    pub drop_reason: Option<&'static str>,
    pub queue: Option<u32>,
    pub rss_hash: u32,
    pub rss_type: u8,
    pub l3_csum: u8,
    pub l4_csum: u8,
    pub ptype: u16,
    pub len: usize,
}

/// Names of the drop counters, in the order `drop_reason` reports them.
fn drop_reason(delta: &Stats) -> Option<&'static str> {
    [
        (delta.rx_drop_ucast_filter, "unicast_filter"),
        (delta.rx_drop_mcast_filter, "multicast_filter"),
        (delta.rx_drop_bcast_filter, "broadcast_filter"),
        (delta.rx_drop_no_buffer, "no_buffer"),
        (delta.rx_drop_fcs, "fcs"),
        (delta.rx_drop_runt, "runt"),
        (delta.rx_drop_oversize, "oversize"),
        (delta.rx_drop_truncated, "truncated"),
        (delta.rx_drop_phy_error, "phy_error"),
    ]
    .into_iter()
    .find(|(n, _)| *n != 0)
    .map(|(_, name)| name)
}

/// The golden verdict's drop reason in the same names.
pub fn model_drop_reason(meta: &RxMeta) -> Option<&'static str> {
    match meta.drop {
        rxclass::drop_reason::ACCEPT => None,
        rxclass::drop_reason::UNICAST_MISS => Some("unicast_filter"),
        rxclass::drop_reason::MULTICAST_MISS => Some("multicast_filter"),
        _ => Some("broadcast_filter"),
    }
}

/// Replays `frames` (as captured: no FCS) one at a time, attributing each to the queue
/// that received it or to the counter that counted its drop. Every frame is sent with
/// a correct FCS. Slower than a burst, but exact per frame, whatever the NIC does.
pub fn replay_one_by_one<D: Device + WireAccess>(nic: &mut Nic<D>, frames: &[Vec<u8>], timeout_cycles: u64) -> Result<Vec<RxOutcome>, String> {
    replay_one_by_one_with(nic, frames, timeout_cycles, |_| {})
}

/// [`replay_one_by_one`], calling `progress` with the number of frames done after each.
pub fn replay_one_by_one_with<D: Device + WireAccess>(nic: &mut Nic<D>, frames: &[Vec<u8>], timeout_cycles: u64, mut progress: impl FnMut(usize)) -> Result<Vec<RxOutcome>, String> {
    let queues = nic.config().rx_queues;
    let mut out = Vec::with_capacity(frames.len());
    for (index, f) in frames.iter().enumerate() {
        let before = nic.stats().map_err(|e| e.to_string())?;
        nic.device_mut().inject_rx(&fcs::with_fcs(f), false);
        let start = nic.cycles();
        let outcome = loop {
            let got = nic.rx_burst_all(1).map_err(|e| e.to_string())?;
            if let Some(r) = got.first() {
                if got.len() > 1 {
                    return Err(format!("frame {index}: {} frames arrived for one sent", got.len()));
                }
                if r.data != *f {
                    return Err(format!("frame {index} ({} bytes) arrived on queue {} as {} different bytes", f.len(), r.queue, r.data.len()));
                }
                break outcome_of(index, r);
            }
            let delta = nic.stats().map_err(|e| e.to_string())?.since(&before);
            if let Some(reason) = drop_reason(&delta) {
                break RxOutcome { index, accepted: false, drop_reason: Some(reason), queue: None, rss_hash: 0, rss_type: 0, l3_csum: 0, l4_csum: 0, ptype: 0, len: f.len() };
            }
            if nic.cycles() - start > timeout_cycles {
                return Err(format!("frame {index} ({} bytes): neither received on any of {queues} queues nor counted as dropped", f.len()));
            }
            nic.device_mut().idle(32);
        };
        out.push(outcome);
        progress(out.len());
    }
    // nothing more may come: a late frame would have been credited to the wrong index
    nic.device_mut().idle(2_000);
    let late = nic.rx_burst_all(64).map_err(|e| e.to_string())?;
    if !late.is_empty() {
        return Err(format!("{} frames arrived after every frame was accounted for", late.len()));
    }
    Ok(out)
}

fn outcome_of(index: usize, r: &RxFrame) -> RxOutcome {
    RxOutcome {
        index,
        accepted: true,
        drop_reason: None,
        queue: Some(r.queue),
        rss_hash: r.rss_hash(),
        rss_type: r.hash_type(),
        l3_csum: r.l3_csum(),
        l4_csum: r.l4_csum(),
        ptype: r.ptype,
        len: r.data.len(),
    }
}

/// Sends `frames` back to back, collects everything the queues deliver, and compares
/// with the golden classifier: per queue the same frames in the same order with the
/// same metadata, and the drop counters by reason. Buffers must be plentiful (no
/// `no_buffer` drops are expected). Returns a description of the first mismatch.
pub fn burst_and_check<D: Device + WireAccess>(nic: &mut Nic<D>, cfg: &RxClassConfig, frames: &[Vec<u8>], timeout_cycles: u64) -> Result<(), String> {
    let queues = nic.config().rx_queues as usize;
    let max_frame_len = nic.max_frame_len().map_err(|e| e.to_string())? as usize;
    // the MAC drops runts and oversize frames before classification
    let mac_ok = |f: &Vec<u8>| (fcs::MIN_FRAME_LEN..=max_frame_len).contains(&(f.len() + fcs::FCS_LEN));
    let runts = frames.iter().filter(|f| f.len() + fcs::FCS_LEN < fcs::MIN_FRAME_LEN).count() as u32;
    let oversize = frames.iter().filter(|f| f.len() + fcs::FCS_LEN > max_frame_len).count() as u32;
    // judged as the NIC's build classifies (FEATURES: with or without RSS and checksums)
    let cfg = &cfg.clone().with_features(nic.layout().features).with_mac_filters(nic.mac_filter_count() as usize);
    let metas: Vec<RxMeta> = frames.iter().map(|f| rxclass::classify(cfg, f)).collect();
    let mut want: Vec<Vec<usize>> = vec![Vec::new(); queues];
    for (i, m) in metas.iter().enumerate() {
        if m.drop == rxclass::drop_reason::ACCEPT && mac_ok(&frames[i]) {
            let q = m.queue as usize;
            if q >= queues {
                return Err(format!("model sends frame {i} to queue {q}, only {queues} are open"));
            }
            want[q].push(i);
        }
    }
    let expected: usize = want.iter().map(Vec::len).sum();
    let before = nic.stats().map_err(|e| e.to_string())?;
    for f in frames {
        nic.device_mut().inject_rx(&fcs::with_fcs(f), false);
    }
    let mut got: Vec<Vec<RxFrame>> = vec![Vec::new(); queues];
    let start = nic.cycles();
    let mut received = 0;
    while received < expected {
        let burst = nic.rx_burst_all(64).map_err(|e| e.to_string())?;
        if burst.is_empty() {
            if nic.cycles() - start > timeout_cycles {
                break;
            }
            nic.device_mut().idle(256);
        }
        for r in burst {
            received += 1;
            got[r.queue as usize].push(r);
        }
    }
    // until every frame is accounted for (delivered or counted as dropped), to catch
    // frames that should not have come and drops still on their way
    let start = nic.cycles();
    loop {
        let d = nic.stats().map_err(|e| e.to_string())?.since(&before);
        if (d.rx_frames + d.rx_drops()) as usize >= frames.len() || nic.cycles() - start > timeout_cycles {
            break;
        }
        nic.device_mut().idle(256);
    }
    for r in nic.rx_burst_all(64).map_err(|e| e.to_string())? {
        got[r.queue as usize].push(r);
    }
    for q in 0..queues {
        for (k, &i) in want[q].iter().enumerate() {
            let Some(r) = got[q].get(k) else {
                return Err(format!("queue {q}: frame {i} ({} bytes, expected {:?}) never arrived; {} of {} arrived on this queue", frames[i].len(), metas[i], got[q].len(), want[q].len()));
            };
            let m = &metas[i];
            if r.data != frames[i] {
                return Err(format!("queue {q}: frame {k} on the queue should be input frame {i} ({} bytes) but differs ({} bytes, first difference at {:?})", frames[i].len(), r.data.len(), crate::traffic::first_difference(&frames[i], &r.data)));
            }
            let seen = (r.rss_hash(), r.hash_type(), r.l3_csum(), r.l4_csum(), r.ptype);
            let model = (m.hash, m.hash_type, m.l3_csum, m.l4_csum, m.ptype);
            if seen != model {
                return Err(format!(
                    "queue {q}, input frame {i} ({} bytes): NIC (hash, type, l3, l4, ptype) = {:08x?} but model = {:08x?}\nframe: {:02x?}",
                    frames[i].len(),
                    seen,
                    model,
                    &frames[i][..frames[i].len().min(96)]
                ));
            }
        }
        if got[q].len() > want[q].len() {
            return Err(format!("queue {q}: {} frames arrived, {} expected", got[q].len(), want[q].len()));
        }
    }
    let d = nic.stats().map_err(|e| e.to_string())?.since(&before);
    let count = |r: u8| metas.iter().zip(frames).filter(|(m, f)| m.drop == r && mac_ok(f)).count() as u32;
    let counters = (d.rx_drop_ucast_filter, d.rx_drop_mcast_filter, d.rx_drop_bcast_filter, d.rx_frames, d.rx_drop_runt, d.rx_drop_oversize);
    let model = (
        count(rxclass::drop_reason::UNICAST_MISS),
        count(rxclass::drop_reason::MULTICAST_MISS),
        count(rxclass::drop_reason::BROADCAST_REJECTED),
        expected as u32,
        runts,
        oversize,
    );
    if counters != model {
        return Err(format!("counters (unicast, multicast, broadcast filter drops, frames, runts, oversize) = {counters:?}, model {model:?}; all: {d:?}"));
    }
    let bad = |f: fn(&RxMeta) -> u8| metas.iter().zip(frames).filter(|(m, fr)| m.drop == 0 && mac_ok(fr) && f(m) == rxclass::csum::BAD).count() as u32;
    let csum = (d.rx_csum_l3_bad, d.rx_csum_l4_bad);
    let model = (bad(|m| m.l3_csum), bad(|m| m.l4_csum));
    if csum != model {
        return Err(format!("bad checksum counters (l3, l4) = {csum:?}, model {model:?}"));
    }
    if d.rx_drops() != d.rx_filter_drops() + runts + oversize {
        return Err(format!("unexpected drops: {d:?}"));
    }
    Ok(())
}
