//! Unit tests of the cache: day spans, the chunk codec, derived columns, input series, loading
//! and the swap.

use super::chunk::{N, Page, PageBytes, RECENT_SLOTS};
use super::*;
use gridprint_core::derived::{DerivedDay, SeriesKey, SlotFlags};
use gridprint_core::production::ProductionType;
use gridprint_core::quality::DataState;
use gridprint_core::slot::{Slot, SlotRange};
use std::sync::Arc;

#[test]
fn day_spans_cut_the_window() {
    let days = [10, 11, 13];
    let r = SlotRange::new(Slot(10 * 96 + 5), Slot(13 * 96 + 2));
    let spans: Vec<_> = day_spans(&days, r).collect();
    assert_eq!(spans.len(), 3);
    assert_eq!((spans[0].pos, spans[0].lo, spans[0].hi), (0, 5, 96));
    assert_eq!((spans[1].pos, spans[1].lo, spans[1].hi), (1, 0, 96));
    assert_eq!((spans[2].pos, spans[2].lo, spans[2].hi), (2, 0, 2));
    let r = SlotRange::new(Slot(12 * 96), Slot(13 * 96));
    assert_eq!(day_spans(&days, r).count(), 0);
    let r = SlotRange::new(Slot(11 * 96 + 3), Slot(11 * 96 + 4));
    let s: Vec<_> = day_spans(&days, r).collect();
    assert_eq!((s[0].pos, s[0].lo, s[0].hi), (1, 3, 4));
}

#[test]
fn derived_days_out_of_order_are_sorted_and_the_last_duplicate_wins() {
    use gridprint_core::quality::ZoneStatus;
    let code = gridprint_core::zone::ZoneCode::parse("ES").unwrap();
    let key = SeriesKey::Mix(ProductionType::Coal);
    let day = |d: i64, v: f64| {
        let mut x = DerivedDay::new(code.clone(), d);
        x.flags[0] = SlotFlags::new(ZoneStatus::Complete, true, true);
        x.set(key.clone(), 0, v);
        x
    };
    let mut z = DerivedZone::default();
    let mut pool = ChunkPool::default();
    for (d, v) in [(5, 1.0), (3, 2.0), (5, 3.0)] {
        z.add_day(&mut pool, &day(d, v));
    }
    z.finish();
    z.pool = Arc::new(pool);
    assert_eq!(z.days(), &[3, 5]);
    let col = z.column(&key).unwrap();
    assert_eq!(z.chunk(col, 0).unwrap()[0], 2.0);
    assert_eq!(z.chunk(col, 1).unwrap()[0], 3.0);
    assert!(z.flags(1)[0].present() && !z.flags(1)[1].present());
}

/// A refresh replacing one day of a long history copies only the blocks of that day: the other
/// days' flags and chunk numbers stay shared with the cache being replaced.
#[test]
fn replacing_a_day_copies_only_its_block() {
    use gridprint_core::quality::ZoneStatus;
    let code = gridprint_core::zone::ZoneCode::parse("ES").unwrap();
    let keys = [
        SeriesKey::Mix(ProductionType::Coal),
        SeriesKey::Mix(ProductionType::Nuclear),
    ];
    let day = |d: i64, v: f64| {
        let mut x = DerivedDay::new(code.clone(), d);
        x.flags[0] = SlotFlags::new(ZoneStatus::Complete, true, true);
        for k in &keys {
            x.set(k.clone(), 0, v);
        }
        x
    };
    let days = 10 * blocks::BLOCK_DAYS as i64;
    let mut z = DerivedZone::default();
    let mut pool = ChunkPool::default();
    for d in 0..days {
        z.add_day(&mut pool, &day(d, d as f64));
    }
    z.finish();
    let old = z.clone();
    assert_eq!(
        z.days_shared_with(&old),
        (3 * days as usize, 3 * days as usize)
    );
    let dropped = z.replace_day(&mut pool, 500, Some(&day(500, -1.0)));
    assert_eq!(dropped, 2, "the two old chunks of the day");
    let (shared, total) = z.days_shared_with(&old);
    assert_eq!(total, 3 * days as usize);
    assert_eq!(
        total - shared,
        3 * blocks::BLOCK_DAYS,
        "one block of flags and of each column copied"
    );
    z.pool = Arc::new(pool);
    let col = z.column(&keys[0]).unwrap();
    assert_eq!(z.chunk_of_day(col, 500).unwrap()[0], -1.0);
    assert_eq!(z.chunk_of_day(col, 501).unwrap()[0], 501.0);
}

/// Bit patterns of values, for exact comparisons (NaN payloads and the sign of zero included).
fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn chunk_of(f: impl Fn(usize) -> f32) -> Vec<f32> {
    (0..N).map(f).collect()
}

#[test]
fn chunk_pool_gives_back_the_exact_bits() {
    let nan2 = f32::from_bits(0x7fc0_0001);
    let cases: Vec<Vec<f32>> = vec![
        chunk_of(|i| 100.0 + i as f32 * 0.37),
        chunk_of(|i| 1e-3 * (i as f32 + 1.0).powi(3)),
        chunk_of(|i| {
            if i % 2 == 0 {
                -5.5 * i as f32
            } else {
                7.25 * i as f32
            }
        }),
        chunk_of(|i| if i < 40 { f32::NAN } else { 300.0 - i as f32 }),
        chunk_of(|i| {
            if i == 3 {
                f32::NAN
            } else if i == 9 {
                nan2
            } else {
                1.5
            }
        }),
        chunk_of(|i| match i % 5 {
            0 => f32::INFINITY,
            1 => f32::NEG_INFINITY,
            2 => -0.0,
            3 => 0.0,
            _ => f32::MIN_POSITIVE,
        }),
        chunk_of(|i| if i % 3 == 0 { 0.0 } else { i as f32 }),
        chunk_of(|i| f32::from_bits(0x8000_0000u32.wrapping_sub(i as u32))),
        chunk_of(|i| f32::from_bits(u32::MAX - i as u32 * 7)),
        chunk_of(|_| 42.0),
        chunk_of(|i| if i == 95 { f32::NAN } else { 42.0 }),
    ];
    let mut pool = ChunkPool::with_page_bytes(2_000);
    let ids: Vec<u32> = cases.iter().map(|c| pool.push(0, c)).collect();
    pool.shrink();
    assert!(
        pool.pages.len() > 1,
        "small pages: chunks spread over several"
    );
    for (c, id) in cases.iter().zip(&ids) {
        assert_eq!(bits(&pool.get(*id).unwrap()), bits(c));
    }
    assert_eq!(pool.get(ids.len() as u32), None);
    // The same chunks, day i for case i, in a pool that spills the pages of days before 5: the
    // early pages go to files, those holding a day from 5 on stay in memory, every chunk reads back
    // with its exact bits.
    let dir = tempfile::tempdir().unwrap();
    let mut spilling = ChunkPool::new(Some(Spill::before_day(dir.path(), 5)));
    spilling.page_bytes = 2_000;
    let ids: Vec<u32> = (0..)
        .zip(&cases)
        .map(|(day, c)| spilling.push(day, c))
        .collect();
    spilling.shrink();
    let spilled = |p: &Page| matches!(p.bytes, PageBytes::File { .. });
    assert!(spilling.pages.iter().any(|p| spilled(p)));
    assert!(spilling.pages.iter().any(|p| !spilled(p)));
    for p in &spilling.pages {
        assert_eq!(spilled(p), p.last_day < 5, "{} bytes", p.bytes.len());
    }
    assert!(spilling.spilled_bytes() > 0);
    for (c, id) in cases.iter().zip(&ids) {
        assert_eq!(bits(&spilling.get(*id).unwrap()), bits(c));
    }
    // Narrow values take fewer bytes than 96 × 4.
    let mut small = ChunkPool::default();
    small.push(0, &cases[0]);
    small.shrink();
    assert!(
        small.pages[0].bytes.len() < 96 * 3,
        "{} bytes",
        small.pages[0].bytes.len()
    );
}

#[test]
fn spilled_chunks_read_again_are_the_same_bits() {
    // More chunks than the table of recent reads has slots, all on spilled pages: chunks `c` and
    // `c + RECENT_SLOTS` share a slot, and each reads back its own bits whatever was read before.
    let dir = tempfile::tempdir().unwrap();
    let mut pool = ChunkPool::new(Some(Spill::before_day(dir.path(), 5)));
    pool.page_bytes = 1 << 20;
    let values = |c: usize| chunk_of(|i| (c * N + i) as f32 * 0.25);
    let ids: Vec<u32> = (0..RECENT_SLOTS + 3)
        .map(|c| pool.push(0, &values(c)))
        .collect();
    pool.shrink();
    assert!(pool.spilled_bytes() > 0 && pool.pages.len() > 1);
    let without_reads = pool.memory_bytes();
    for c in [1, 1 + RECENT_SLOTS, 1, 2, 2, RECENT_SLOTS + 2, 2, 0, 0] {
        assert_eq!(
            bits(&pool.get(ids[c]).unwrap()),
            bits(&values(c)),
            "chunk {c}"
        );
    }
    // The table is counted in the pool's memory once a spilled chunk was read.
    assert!(pool.memory_bytes() >= without_reads + RECENT_SLOTS * N * 4);
}

#[test]
fn constant_chunks_are_stored_once() {
    let mut pool = ChunkPool::default();
    let zero = pool.push(0, &[0.0; N]);
    let other = pool.push(0, &chunk_of(|i| i as f32));
    assert_eq!(pool.push(0, &[0.0; N]), zero);
    let neg_zero = pool.push(0, &[-0.0; N]);
    assert_ne!(neg_zero, zero, "-0.0 and 0.0 differ in their bits");
    assert_eq!(pool.push(0, &[-0.0; N]), neg_zero);
    pool.shrink();
    assert_eq!(pool.chunks(), 3);
    assert_eq!(bits(&pool.get(zero).unwrap()), bits(&[0.0; N]));
    assert_eq!(bits(&pool.get(neg_zero).unwrap()), bits(&[-0.0; N]));
    assert_eq!(pool.get(other).unwrap()[95], 95.0);
}

#[test]
fn days_without_a_value_keep_no_chunk() {
    use gridprint_core::quality::ZoneStatus;
    let code = gridprint_core::zone::ZoneCode::parse("ES").unwrap();
    let (a, b) = (SeriesKey::Generation, SeriesKey::Consumption);
    let mut z = DerivedZone::default();
    let mut pool = ChunkPool::default();
    for d in 0..3 {
        let mut x = DerivedDay::new(code.clone(), d);
        x.flags[0] = SlotFlags::new(ZoneStatus::Complete, true, true);
        if d != 1 {
            for i in 0..N {
                x.set(a.clone(), i, 0.0);
            }
        }
        if d == 2 {
            x.set(b.clone(), 5, 7.0);
        }
        z.add_day(&mut pool, &x);
    }
    z.finish();
    pool.shrink();
    z.pool = Arc::new(pool);
    let (ca, cb) = (z.column(&a).unwrap(), z.column(&b).unwrap());
    let (va, vb) = (ca.to_vec(), cb.to_vec());
    assert_eq!(
        va,
        [va[0], NO_CHUNK, va[0]],
        "all-zero days share one chunk"
    );
    assert_eq!(&vb[..2], &[NO_CHUNK, NO_CHUNK]);
    assert!(z.chunk(ca, 1).is_none() && z.chunk(cb, 0).is_none());
    assert_eq!(bits(&z.chunk(ca, 2).unwrap()), bits(&[0.0; N]));
    assert!(z.chunk(cb, 2).unwrap()[4].is_nan());
    assert_eq!(z.chunk_of_day(cb, 2).unwrap()[5], 7.0);
    assert!(z.chunk_of_day(cb, 7).is_none());
}

/// Packs the pending days of a test series into `pool` and shares the pool with it.
fn finish_series(s: &mut InputSeries, mut pool: ChunkPool) {
    s.flush(&mut pool);
    s.shrink();
    pool.shrink();
    s.pool = Arc::new(pool);
}

#[test]
fn input_series_inserts_out_of_order_days() {
    let mut s = InputSeries::default();
    let mut pool = ChunkPool::default();
    s.set(&pool, Slot(5 * 96 + 1), 1.0, DataState::Official, 0);
    s.flush(&mut pool);
    // A day before the packed one, and a point into the packed day (unpacked, then repacked).
    s.set(&pool, Slot(3 * 96 + 2), 2.0, DataState::Estimated, 1);
    s.set(&pool, Slot(5 * 96 + 3), 3.0, DataState::Official, 0);
    s.flush(&mut pool);
    s.set(&pool, Slot(4 * 96), 4.0, DataState::Missing, 2);
    finish_series(&mut s, pool);
    assert_eq!(s.days(), &[3, 4, 5]);
    let mut got = Vec::new();
    s.for_each_point(SlotRange::new(Slot(0), Slot(1000)), |sl, v, st, ds| {
        got.push((sl.0, v, st, ds))
    });
    assert_eq!(
        got,
        vec![
            (3 * 96 + 2, 2.0, DataState::Estimated, 1),
            (4 * 96, 4.0, DataState::Missing, 2),
            (5 * 96 + 1, 1.0, DataState::Official, 0),
            (5 * 96 + 3, 3.0, DataState::Official, 0)
        ]
    );
}

/// The day a series must read back: what `set` was given, NaN / ABSENT / 0 elsewhere.
fn expect_day(points: &[(usize, f64, DataState, u16)]) -> PlainDay {
    let mut d = PlainDay::default();
    for &(i, mw, st, ds) in points {
        d.values[i] = if mw.is_finite() { mw as f32 } else { f32::NAN };
        d.states[i] = st as u8;
        d.sources[i] = ds;
    }
    d
}

fn assert_same_day(got: &PlainDay, want: &PlainDay) {
    assert_eq!(bits(&got.values), bits(&want.values));
    assert_eq!(got.states, want.states);
    assert_eq!(got.sources, want.sources);
}

#[test]
fn input_days_round_trip_bit_exact_with_mixed_states_and_sources() {
    use DataState::*;
    let full = |st: DataState, ds: u16| -> Vec<(usize, f64, DataState, u16)> {
        (0..N)
            .map(|i| (i, 1000.0 + i as f64 * 0.123, st, ds))
            .collect()
    };
    let mut days: Vec<Vec<(usize, f64, DataState, u16)>> = vec![
        // Constant state and source: one run.
        full(Official, 3),
        // Estimated gap in the middle of official data.
        full(Official, 3)
            .into_iter()
            .map(|(i, v, st, ds)| (i, v, if (40..52).contains(&i) { Estimated } else { st }, ds))
            .collect(),
        // Datasource changes mid-day (same state).
        full(Official, 1)
            .into_iter()
            .map(|(i, v, st, ds)| (i, v, st, if i >= 48 { 7 } else { ds }))
            .collect(),
        // ABSENT slots: the day starts late, has a hole, and ends early.
        full(Estimated, 2)
            .into_iter()
            .filter(|p| (5..30).contains(&p.0) || (33..90).contains(&p.0))
            .collect(),
        // A single point; values that need care (negative zero, NaN, infinities, tiny, huge).
        vec![(17, -0.0, Missing, 0)],
        vec![
            (0, -0.0, Official, 0),
            (1, 0.0, Official, 0),
            (2, f64::NAN, Missing, 0),
            (3, f64::INFINITY, Estimated, 9),
            (4, -1e-40, Official, u16::MAX),
            (5, 3e38, Official, u16::MAX),
            (95, -123.456, Estimated, 1),
        ],
        // Every slot a different (state, source).
        (0..N)
            .map(|i| {
                (
                    i,
                    i as f64,
                    DataState::from_u8((i % 3) as u8).unwrap(),
                    i as u16,
                )
            })
            .collect(),
        // Missing points with a value of zero, and a constant value.
        full(Missing, 0)
            .into_iter()
            .map(|(i, _, st, ds)| (i, 0.0, st, ds))
            .collect(),
    ];
    // A pseudo-random day as well.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    days.push(
        (0..N)
            .filter_map(|i| {
                let r = rnd();
                (r % 5 != 0).then(|| {
                    let st = DataState::from_u8(((r >> 8) % 3) as u8).unwrap();
                    let ds = ((r >> 16) % 3) as u16;
                    (i, (r >> 32) as f64 / 1e3 - 2e6, st, ds)
                })
            })
            .collect(),
    );
    // Written in both day orders, with a flush after every day, after all, or in between.
    for (order, flush_every) in [(false, 1), (true, 1), (false, 100), (true, 3)] {
        let mut s = InputSeries::default();
        let mut pool = ChunkPool::with_page_bytes(1_000);
        let mut idx: Vec<usize> = (0..days.len()).collect();
        if order {
            idx.reverse();
        }
        for (k, &d) in idx.iter().enumerate() {
            // Points of a day in reverse slot order: order within a day does not matter.
            for &(i, mw, st, ds) in days[d].iter().rev() {
                s.set(&pool, Slot(d as i64 * 96 + i as i64), mw, st, ds);
            }
            if (k + 1) % flush_every == 0 {
                s.flush(&mut pool);
            }
        }
        finish_series(&mut s, pool);
        assert_eq!(s.days(), (0..days.len() as i64).collect::<Vec<_>>());
        for (pos, pts) in days.iter().enumerate() {
            assert_same_day(&s.day(pos), &expect_day(pts));
        }
        // for_each_point: exactly the points written, in time order, none for ABSENT slots.
        let mut got = Vec::new();
        s.for_each_point(
            SlotRange::new(Slot(-5), Slot(days.len() as i64 * 96 + 5)),
            |sl, v, st, ds| got.push((sl.0, v.to_bits(), st, ds)),
        );
        let want: Vec<_> = days
            .iter()
            .enumerate()
            .flat_map(|(d, pts)| {
                let mut pts = pts.clone();
                pts.sort_by_key(|p| p.0);
                pts.into_iter().map(move |(i, mw, st, ds)| {
                    let v = if mw.is_finite() { mw as f32 } else { f32::NAN };
                    ((d * 96 + i) as i64, v.to_bits(), st, ds)
                })
            })
            .collect();
        assert_eq!(got, want);
        // Runs: one for a constant day, three for the gap, two for the source change.
        let runs = |pos: usize| s.day_runs(pos).len();
        assert_eq!((runs(0), runs(1), runs(2), runs(7)), (1, 3, 2, 1));
        assert_eq!(runs(3), 5, "absent, estimated, absent, estimated, absent");
        assert_eq!(runs(6), N);
    }
}

#[test]
fn rewritten_points_replace_the_packed_ones() {
    let mut s = InputSeries::default();
    let mut pool = ChunkPool::default();
    for i in 0..N {
        s.set(
            &pool,
            Slot(10 * 96 + i as i64),
            5.0,
            DataState::Estimated,
            1,
        );
    }
    s.set(&pool, Slot(11 * 96), 6.0, DataState::Official, 2);
    s.flush(&mut pool);
    // A later batch brings the official value of one slot of the packed day 10.
    s.set(&pool, Slot(10 * 96 + 50), 7.5, DataState::Official, 2);
    finish_series(&mut s, pool);
    assert_eq!(s.days(), &[10, 11]);
    let d = s.day(0);
    assert_eq!((d.values[49], d.states[49], d.sources[49]), (5.0, 1, 1));
    assert_eq!((d.values[50], d.states[50], d.sources[50]), (7.5, 0, 2));
    assert_eq!((d.values[51], d.states[51], d.sources[51]), (5.0, 1, 1));
    let e = s.day(1);
    assert_eq!((e.values[0], e.states[0], e.sources[0]), (6.0, 0, 2));
    assert!(e.values[1].is_nan() && e.states[1] == ABSENT && e.sources[1] == 0);
    assert_eq!(s.day_runs(1).len(), 2);
}

#[test]
fn constant_input_days_share_one_chunk_and_take_one_run() {
    let mut s = InputSeries::default();
    let mut pool = ChunkPool::default();
    for day in 0..30 {
        for i in 0..N {
            s.set(
                &pool,
                Slot(day * 96 + i as i64),
                0.0,
                DataState::Official,
                4,
            );
        }
        s.flush(&mut pool);
    }
    assert_eq!(pool.chunks(), 1, "all-zero days share one chunk");
    finish_series(&mut s, pool);
    assert_eq!(s.run_count(), 30);
    // 8 bytes of day number and 4 of chunk, run end and run a day, plus one block's bookkeeping.
    let block = 8 + 16 + 72;
    assert_eq!(s.memory_bytes(), 30 * (8 + 4 + 4 + 4) + block);
    assert_same_day(
        &s.day(29),
        &expect_day(
            &(0..N)
                .map(|i| (i, 0.0, DataState::Official, 4))
                .collect::<Vec<_>>(),
        ),
    );
}

/// An incremental refresh of an input series: a day reset and written again replaces the stored
/// day in its block (the other blocks stay shared with the series it was cloned from); a day reset
/// without new points is removed; the result equals a series loaded from scratch.
#[test]
fn rewriting_input_days_copies_only_their_blocks() {
    let days = 4 * blocks::BLOCK_DAYS as i64;
    let value = |day: i64, i: usize, k: f64| k * (day * 100 + i as i64) as f64;
    let write = |s: &mut InputSeries, pool: &mut ChunkPool, day: i64, k: f64| {
        for i in (0..N).step_by(3) {
            let state = if i < 48 {
                DataState::Official
            } else {
                DataState::Estimated
            };
            s.set(pool, Slot(day * 96 + i as i64), value(day, i, k), state, 1);
        }
    };
    let mut pool = ChunkPool::default();
    let mut s = InputSeries::default();
    for day in 0..days {
        write(&mut s, &mut pool, day, 1.0);
        s.flush(&mut pool);
    }
    let old = s.clone();
    // Day 200 gets new values, day 300 loses all its points.
    assert_eq!(s.reset_days(200..201) + s.reset_days(300..301), 2);
    write(&mut s, &mut pool, 200, 2.0);
    s.flush(&mut pool);
    let (shared, total) = s.blocks_shared_with(&old);
    assert_eq!(total, 4);
    assert_eq!(
        shared, 1,
        "blocks 0 kept; 1 rewritten in place; 2 and 3 rebuilt after the removal"
    );
    // The same series loaded from scratch.
    let mut fresh = InputSeries::default();
    for day in (0..days).filter(|&d| d != 300) {
        write(
            &mut fresh,
            &mut pool,
            day,
            if day == 200 { 2.0 } else { 1.0 },
        );
        fresh.flush(&mut pool);
    }
    let pool = Arc::new(pool);
    s.pool = pool.clone();
    fresh.pool = pool;
    assert_eq!(s.days(), fresh.days());
    for pos in 0..s.days().len() {
        assert_same_day(&s.day(pos), &fresh.day(pos));
    }
    // Rewriting a day alone (no removal) copies just its block.
    let before = s.clone();
    let mut pool = s.pool.extend();
    s.reset_days(10..11);
    write(&mut s, &mut pool, 10, 3.0);
    s.flush(&mut pool);
    assert_eq!(s.blocks_shared_with(&before).0, 3);
}
