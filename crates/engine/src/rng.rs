//! Seeded random streams. Each component draws from its own stream derived from
//! `(seed, stream id)` with SplitMix64, so adding a flow does not reshuffle the
//! random numbers of the others.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// SplitMix64 step (Steele, Lea & Flood 2014): advances `x` and returns a
/// well-mixed 64-bit value; used to spread seeds and as a hash.
pub fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The 64-bit seed of stream `stream` under base seed `seed`.
pub fn stream_seed(seed: u64, stream: u64) -> u64 {
    let mut s = seed;
    let a = splitmix64(&mut s);
    let mut t = a ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
    splitmix64(&mut t)
}

/// A random stream: xoshiro256++ seeded from `(seed, stream id)`.
#[derive(Clone, Debug)]
pub struct RngStream(Xoshiro256PlusPlus);

impl RngStream {
    /// The stream `stream` of base seed `seed`.
    pub fn new(seed: u64, stream: u64) -> Self {
        RngStream(Xoshiro256PlusPlus::seed_from_u64(stream_seed(seed, stream)))
    }
    /// A uniform float in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// A uniform integer in [0, n) (n > 0), by Lemire's multiply-shift (bias < 2^-64 n).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.0.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

impl RngCore for RngStream {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest)
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.0.try_fill_bytes(dest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_stream_give_the_same_sequence() {
        let mut a = RngStream::new(42, 3);
        let mut b = RngStream::new(42, 3);
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn streams_are_independent_of_each_other() {
        // Drawing from stream 1 must not change what stream 2 yields.
        let mut solo = RngStream::new(7, 2);
        let expected: Vec<u64> = (0..10).map(|_| solo.next_u64()).collect();
        let mut s1 = RngStream::new(7, 1);
        for _ in 0..12345 {
            s1.next_u64();
        }
        let mut s2 = RngStream::new(7, 2);
        let got: Vec<u64> = (0..10).map(|_| s2.next_u64()).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn different_streams_and_seeds_differ() {
        let first = |seed, stream| RngStream::new(seed, stream).next_u64();
        assert_ne!(first(1, 0), first(1, 1));
        assert_ne!(first(1, 0), first(2, 0));
        assert_ne!(first(0, 1), first(1, 0));
    }

    #[test]
    fn streams_are_uncorrelated() {
        // Pearson correlation of 100k paired uniforms from two streams is ~N(0, 1/sqrt(n)):
        // |r| < 5/sqrt(n) = 0.0158 holds with overwhelming probability.
        let n = 100_000;
        let (mut a, mut b) = (RngStream::new(9, 0), RngStream::new(9, 1));
        let xs: Vec<f64> = (0..n).map(|_| a.uniform()).collect();
        let ys: Vec<f64> = (0..n).map(|_| b.uniform()).collect();
        let mx = xs.iter().sum::<f64>() / n as f64;
        let my = ys.iter().sum::<f64>() / n as f64;
        let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
        for i in 0..n {
            sxy += (xs[i] - mx) * (ys[i] - my);
            sxx += (xs[i] - mx).powi(2);
            syy += (ys[i] - my).powi(2);
        }
        let r = sxy / (sxx * syy).sqrt();
        assert!(r.abs() < 5.0 / (n as f64).sqrt(), "r = {r}");
        // Uniform mean 1/2, sd of the mean 1/sqrt(12 n).
        assert!((mx - 0.5).abs() < 5.0 / (12.0 * n as f64).sqrt());
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = RngStream::new(1, 1);
        for _ in 0..10_000 {
            assert!(r.below(7) < 7);
        }
    }
}
