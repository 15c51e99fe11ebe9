//! Helpers shared by the linalg benches (`kkt`, `multifrontal`).

/// SplitMix64 (deterministic, no dependency): uniform numbers in `[0, 1)`.
pub struct Rng(pub u64);

impl Rng {
    /// The next number in `[0, 1)` (53 random bits).
    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The median of `v` (the upper one of the two middle values for an even length).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
