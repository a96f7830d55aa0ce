//! Test and benchmark support, behind the `testing` feature (never in the binary): a small
//! deterministic random number generator for synthetic inputs, shared by the engine benchmark
//! (`benches/engine.rs`) and gridprint-query's scale tests.

/// Numerical Recipes' linear congruential generator: enough randomness for plausible inputs, and
/// the same numbers on every run for the same seed.
pub struct Lcg(pub u64);

impl Lcg {
    /// The next number, uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}
