//! Wire endpoints without RTL: beat formation, tready handling, frame collection.

use nic_sim::rng::Rng;
use nic_sim::{frame_to_beats, AxisBeat, LinkWire, QueueWire, WireEndpoint, WireFrame};

fn frame(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

/// Plays a NIC that takes RX beats when `ready(cycle)`; returns the beats taken, by cycle.
fn drain_rx(w: &mut QueueWire, cycles: usize, mut ready: impl FnMut(usize) -> bool) -> Vec<(usize, AxisBeat)> {
    let mut got = Vec::new();
    let mut held: Option<AxisBeat> = None;
    for c in 0..cycles {
        let offer = w.rx_offer();
        if let Some(h) = held {
            assert_eq!(offer, Some(h), "a beat not taken must be offered again unchanged");
        }
        held = None;
        if let Some(b) = offer {
            if ready(c) {
                w.rx_taken();
                got.push((c, b));
            } else {
                held = Some(b);
            }
        }
    }
    got
}

#[test]
fn rx_frames_become_contiguous_beats_one_per_cycle() {
    let mut w = QueueWire::default();
    let lens = [1usize, 7, 8, 9, 60, 64, 1514];
    for (i, &l) in lens.iter().enumerate() {
        w.inject_rx(&frame(l, i as u8), i == 2);
    }
    w.inject_rx(&[], false); // ignored
    assert_eq!(w.rx_pending(), lens.len());
    let got = drain_rx(&mut w, 1000, |_| true);
    for pair in got.windows(2) {
        assert_eq!(pair[1].0, pair[0].0 + 1, "no idle cycles without gaps configured");
    }
    let beats: Vec<AxisBeat> = got.iter().map(|g| g.1).collect();
    let expect: Vec<AxisBeat> =
        lens.iter().enumerate().flat_map(|(i, &l)| frame_to_beats(&frame(l, i as u8), i == 2)).collect();
    assert_eq!(beats, expect);
    assert_eq!(w.rx_pending(), 0);
    // keep: contiguous from lane 0, partial only on the last beat
    for b in &beats {
        assert_eq!(b.keep & b.keep.wrapping_add(1), 0);
        assert!(b.last || b.keep == 0xFF);
        assert!(!b.user || b.last);
    }
}

#[test]
fn rx_honours_tready_and_gaps_are_seeded() {
    let run = |seed: u64| {
        let mut w = QueueWire::new(None, Some((seed, 0.25)));
        let frames: Vec<Vec<u8>> = (0..20).map(|i| frame(40 + 13 * i, i as u8)).collect();
        for f in &frames {
            w.inject_rx(f, false);
        }
        let mut rng = Rng::new(99);
        let got = drain_rx(&mut w, 5000, |_| !rng.next_u64().is_multiple_of(3));
        let mut bytes = Vec::new();
        for (_, b) in &got {
            bytes.extend_from_slice(&b.data.to_le_bytes()[..b.keep.count_ones() as usize]);
        }
        assert_eq!(bytes, frames.concat());
        got.iter().map(|g| g.0).collect::<Vec<_>>()
    };
    let a = run(5);
    assert_eq!(a, run(5));
    assert_ne!(a, run(6));
}

#[test]
fn tx_beats_are_collected_into_frames_with_error_flag() {
    let mut w = QueueWire::default();
    let f1 = frame(67, 1);
    let f2 = frame(16, 2);
    for b in frame_to_beats(&f1, false).into_iter().chain(frame_to_beats(&f2, true)) {
        w.tx_beat(b);
    }
    assert_eq!(w.tx_completed(), 2);
    assert_eq!(
        w.take_tx_frames(),
        vec![WireFrame { data: f1, error: false }, WireFrame { data: f2, error: true }]
    );
    assert!(w.take_tx_frames().is_empty());
    assert_eq!(w.tx_keep_violations(), 0);
    w.tx_beat(AxisBeat { data: 0, keep: 0x0F, last: false, user: false });
    assert_eq!(w.tx_keep_violations(), 1);
}

#[test]
fn tx_backpressure_is_seeded() {
    let count = |seed| {
        let mut w = QueueWire::new(Some((seed, 0.4)), None);
        (0..10_000).filter(|_| !w.tx_ready()).count()
    };
    let n = count(1);
    assert!((3500..4500).contains(&n), "{n}");
    assert_eq!(n, count(1));
    let mut w = QueueWire::default();
    assert!((0..1000).all(|_| w.tx_ready()));
}

#[test]
fn link_wire_carries_beats_both_ways_with_capacity() {
    let (mut a, b) = LinkWire::pair(4);
    let mut b = b.capture_tx();
    let beats = frame_to_beats(&frame(50, 3), false);
    let mut sent = 0;
    while a.tx_ready() && sent < beats.len() {
        a.tx_beat(beats[sent]);
        sent += 1;
    }
    assert_eq!(sent, 4, "capacity bounds the beats in flight");
    let mut got = Vec::new();
    while let Some(x) = b.rx_offer() {
        b.rx_taken();
        got.push(x);
    }
    assert_eq!(got, beats[..4]);
    assert!(a.tx_ready());
    // other direction, with the capture on b
    for x in frame_to_beats(&frame(9, 4), true) {
        b.tx_beat(x);
    }
    assert_eq!(b.take_tx_frames(), vec![WireFrame { data: frame(9, 4), error: true }]);
    assert!(a.rx_offer().is_some());
}
