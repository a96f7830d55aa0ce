//! Test support (feature `testing`, never in production builds): the value codec of [`ChunkPool`]
//! reachable from outside the crate, so that `examples/codec_compare.rs` measures the packing the
//! cache really uses rather than a copy of it.

use super::chunk::{Chunk, ChunkPool, PAGE_TAIL};

impl ChunkPool {
    /// Packs 96 values as the loader does and returns the chunk's number (a constant chunk seen
    /// before in this pool returns the earlier number).
    pub fn push_values(&mut self, vals: &[f32]) -> u32 {
        self.push(0, vals)
    }

    /// The 96 values of chunk `c`, unpacked as every query does.
    pub fn values(&self, c: u32) -> Option<Chunk> {
        self.get(c)
    }

    /// Packed bytes of the chunks held (headers and codes; page tails, chunk offsets and spare
    /// capacity not counted).
    pub fn packed_bytes(&self) -> usize {
        self.pages.iter().map(|p| p.bytes.len() - PAGE_TAIL).sum()
    }
}
