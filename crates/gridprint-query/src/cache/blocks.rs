//! Per-day indexes in shared blocks, so that a refresh copies only the blocks it changes.
//!
//! A zone's per-day arrays (its 96 flags a day, each series' chunk number a day) span the whole
//! history: ten years of 52 zones hold tens of megabytes of them. An incremental refresh builds the
//! next cache from a copy of the current one and replaces a few days; copying these arrays whole
//! would cost their full size at every publication. [`DayBlocks`] keeps them in blocks of
//! [`BLOCK_DAYS`] days behind `Arc`s instead: cloning copies one pointer per block, and writing a
//! day copies the one block that holds it (`Arc::make_mut`) when the old cache still shares it.
//! Inserting or removing a day in the middle rebuilds the blocks from that day on (rare: a refresh
//! mostly rewrites days it has or appends new ones at the end).

use std::sync::Arc;

/// Days per block: 128 days of one `u32` column are 512 bytes, of flags 12 KiB.
pub const BLOCK_DAYS: usize = 128;

/// A sequence of days, each `stride` values of `T`, stored in shared blocks of [`BLOCK_DAYS`] days.
#[derive(Debug, Clone, Default)]
pub struct DayBlocks<T> {
    stride: usize,
    days: usize,
    blocks: Vec<Arc<Vec<T>>>,
}

impl<T: Copy> DayBlocks<T> {
    /// No days; each day will hold `stride` values.
    pub fn new(stride: usize) -> DayBlocks<T> {
        DayBlocks {
            stride,
            days: 0,
            blocks: Vec::new(),
        }
    }

    /// `days` days, every value `fill`.
    pub fn filled(stride: usize, days: usize, fill: T) -> DayBlocks<T> {
        DayBlocks::from_vec(stride, vec![fill; days * stride])
    }

    /// The days of a flat vector (`stride` values a day; its length a multiple of `stride`).
    pub fn from_vec(stride: usize, values: Vec<T>) -> DayBlocks<T> {
        debug_assert!(stride > 0 && values.len().is_multiple_of(stride));
        let per_block = BLOCK_DAYS * stride;
        DayBlocks {
            stride,
            days: values.len() / stride,
            blocks: values
                .chunks(per_block)
                .map(|c| Arc::new(c.to_vec()))
                .collect(),
        }
    }

    /// Every value, day after day.
    pub fn to_vec(&self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.days * self.stride);
        for b in &self.blocks {
            out.extend_from_slice(b);
        }
        out
    }

    /// Number of days.
    pub fn len(&self) -> usize {
        self.days
    }

    /// Whether there is no day.
    pub fn is_empty(&self) -> bool {
        self.days == 0
    }

    /// The values of day `pos`.
    pub fn day(&self, pos: usize) -> &[T] {
        let (b, o) = (pos / BLOCK_DAYS, (pos % BLOCK_DAYS) * self.stride);
        &self.blocks[b][o..o + self.stride]
    }

    /// The values of day `pos`, if there is such a day.
    pub fn get(&self, pos: usize) -> Option<&[T]> {
        (pos < self.days).then(|| self.day(pos))
    }

    /// The values of day `pos` to write (its block is copied first if another cache shares it).
    pub fn day_mut(&mut self, pos: usize) -> &mut [T] {
        let (b, o) = (pos / BLOCK_DAYS, (pos % BLOCK_DAYS) * self.stride);
        &mut Arc::make_mut(&mut self.blocks[b])[o..o + self.stride]
    }

    /// Appends a day.
    pub fn push(&mut self, values: &[T]) {
        debug_assert_eq!(values.len(), self.stride);
        if self.days.is_multiple_of(BLOCK_DAYS) {
            self.blocks
                .push(Arc::new(Vec::with_capacity(BLOCK_DAYS * self.stride)));
        }
        let last = self.blocks.last_mut().expect("a block was just ensured");
        Arc::make_mut(last).extend_from_slice(values);
        self.days += 1;
    }

    /// Inserts a day before day `pos` (the blocks from `pos` on are rebuilt).
    pub fn insert(&mut self, pos: usize, values: &[T]) {
        self.rebuild_from(pos, |tail| {
            tail.splice(0..0, values.iter().copied());
        });
    }

    /// Removes day `pos` (the blocks from `pos` on are rebuilt).
    pub fn remove(&mut self, pos: usize) {
        let stride = self.stride;
        self.rebuild_from(pos, |tail| {
            tail.drain(0..stride);
        });
    }

    /// Applies `edit` to the values from day `pos` on, then stores them again in fresh blocks.
    fn rebuild_from(&mut self, pos: usize, edit: impl FnOnce(&mut Vec<T>)) {
        let first = pos / BLOCK_DAYS;
        let mut tail: Vec<T> = Vec::new();
        for b in &self.blocks[first..] {
            tail.extend_from_slice(b);
        }
        let skip = (pos - first * BLOCK_DAYS) * self.stride;
        let mut rest = tail.split_off(skip);
        edit(&mut rest);
        tail.append(&mut rest);
        self.blocks.truncate(first);
        let per_block = BLOCK_DAYS * self.stride;
        self.blocks
            .extend(tail.chunks(per_block).map(|c| Arc::new(c.to_vec())));
        self.days = first * BLOCK_DAYS + tail.len() / self.stride;
    }

    /// Returns spare capacity (of the last block, the one loads append to).
    pub fn shrink_to_fit(&mut self) {
        if let Some(last) = self.blocks.last_mut()
            && last.capacity() > last.len()
        {
            Arc::make_mut(last).shrink_to_fit();
        }
    }

    /// Bytes held on the heap (blocks shared with another cache counted here too).
    pub fn memory_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<Arc<Vec<T>>>()
            + self
                .blocks
                .iter()
                .map(|b| 16 + std::mem::size_of::<Vec<T>>() + b.capacity() * size_of::<T>())
                .sum::<usize>()
    }

    /// Whether block storage is shared with `other` for day `pos` (tests: copy-on-write).
    #[cfg(test)]
    pub fn shares_day_with(&self, other: &DayBlocks<T>, pos: usize) -> bool {
        Arc::ptr_eq(
            &self.blocks[pos / BLOCK_DAYS],
            &other.blocks[pos / BLOCK_DAYS],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn days(n: usize) -> Vec<u32> {
        (0..n as u32 * 2).collect()
    }

    #[test]
    fn behaves_like_a_flat_vector() {
        let n = BLOCK_DAYS * 2 + 5;
        let mut flat = days(n);
        let mut b = DayBlocks::from_vec(2, flat.clone());
        assert_eq!(b.len(), n);
        assert_eq!(b.to_vec(), flat);
        for pos in [0, 1, BLOCK_DAYS - 1, BLOCK_DAYS, n - 1] {
            assert_eq!(b.day(pos), &flat[pos * 2..pos * 2 + 2], "day {pos}");
        }
        assert!(b.get(n).is_none());
        // Edits anywhere: insert, remove, write, push.
        for (i, pos) in [0, 3, BLOCK_DAYS - 1, BLOCK_DAYS, BLOCK_DAYS + 7, n]
            .into_iter()
            .enumerate()
        {
            let v = [1000 + i as u32, 2000 + i as u32];
            b.insert(pos, &v);
            flat.splice(pos * 2..pos * 2, v);
            assert_eq!(b.to_vec(), flat, "insert at {pos}");
        }
        for pos in [Some(0), Some(BLOCK_DAYS), None, Some(5)] {
            let pos = pos.unwrap_or(b.len() - 1);
            b.remove(pos);
            flat.drain(pos * 2..pos * 2 + 2);
            assert_eq!(b.to_vec(), flat, "remove at {pos}");
        }
        b.day_mut(BLOCK_DAYS + 1)[1] = 7;
        flat[(BLOCK_DAYS + 1) * 2 + 1] = 7;
        for k in 0..BLOCK_DAYS + 3 {
            b.push(&[k as u32, 1]);
            flat.extend([k as u32, 1]);
        }
        b.shrink_to_fit();
        assert_eq!(b.to_vec(), flat);
        assert_eq!(b.len(), flat.len() / 2);
        let mut empty = DayBlocks::<u8>::new(3);
        assert!(empty.is_empty());
        empty.push(&[1, 2, 3]);
        assert_eq!(empty.day(0), &[1, 2, 3]);
        assert_eq!(DayBlocks::filled(2, 3, 9u8).to_vec(), vec![9; 6]);
    }

    #[test]
    fn a_clone_copies_only_the_block_it_writes() {
        let n = BLOCK_DAYS * 4;
        let old = DayBlocks::from_vec(1, days(n / 2));
        let mut new = old.clone();
        assert!((0..old.len()).all(|p| new.shares_day_with(&old, p)));
        new.day_mut(BLOCK_DAYS + 2)[0] = 99;
        for p in 0..old.len() {
            let same_block = p / BLOCK_DAYS == 1;
            assert_eq!(new.shares_day_with(&old, p), !same_block, "day {p}");
        }
        assert_eq!(old.day(BLOCK_DAYS + 2)[0], (BLOCK_DAYS + 2) as u32);
        assert_eq!(new.day(BLOCK_DAYS + 2)[0], 99);
    }
}
