//! Streaming statistics of RTT samples: an exact mean and percentiles from a
//! logarithmic histogram, so a flow's millions of samples cost no per-sample
//! allocation or final sort. The histogram holds only the range of buckets
//! its samples have reached (a flow whose RTT stays between 40 and 80 ms
//! needs 694 buckets, 2.8 kB, not all 23,040): it grows, rarely, when a
//! sample falls outside, and costs nothing for a flow without samples.
//!
//! Buckets are geometric with ratio 1.001 from 1 us to 10^4 s (23,040 buckets,
//! as ln(10^10) / ln(1.001) = 23,037.4);
//! a percentile is reported as its bucket's geometric centre, within 0.05 % of
//! the nearest-rank sample.
//!
//! A simulated RTT is a whole number of nanoseconds, and its bucket is a
//! non-decreasing function of that number (each step of the float formula is
//! monotone, and below 10^13 ns two neighbouring integers differ by far more
//! than the logarithm's rounding error), so each bucket starts at an integer:
//! [`Summary::add_time`] finds a sample's bucket by comparing it with those
//! starts, computed once per process with the formula itself and kept in
//! [`EDGES`], rather than taking a logarithm per sample. RTTs move by a bucket
//! or two from one sample to the next, so it looks near the previous sample's
//! bucket first, and takes the logarithm only when the sample jumped.

use std::sync::atomic::{AtomicU64, Ordering};
use tcplab_engine::SimTime;

const LOW: f64 = 1e-6;
const RATIO: f64 = 1.001;
const BUCKETS: usize = 23_040;

/// Mean and percentiles of positive samples (seconds).
#[derive(Clone, Debug)]
pub struct Summary {
    /// Counts of buckets `first .. first + counts.len()`.
    counts: Vec<u32>,
    first: usize,
    n: u64,
    sum: f64,
    inv_log_ratio: f64,
    /// The bucket of the previous [`Summary::add_time`] sample.
    last: usize,
}

/// `EDGES[b]`: the smallest time in nanoseconds whose bucket is at least `b`,
/// once computed (0 until then; bucket 0 starts at 0).
static EDGES: [AtomicU64; BUCKETS] = [const { AtomicU64::new(0) }; BUCKETS];

/// The bucket of `x` seconds: the definition every path agrees with.
#[inline]
fn bucket_of(x: f64, inv_log_ratio: f64) -> usize {
    if x <= LOW {
        0
    } else {
        (((x / LOW).ln() * inv_log_ratio) as usize).min(BUCKETS - 1)
    }
}

/// Where bucket `b` starts, in nanoseconds (`u64::MAX` past the last one).
#[inline]
fn edge(b: usize, inv_log_ratio: f64) -> u64 {
    if b == 0 {
        return 0;
    }
    if b >= BUCKETS {
        return u64::MAX;
    }
    match EDGES[b].load(Ordering::Relaxed) {
        0 => edge_slow(b, inv_log_ratio),
        e => e,
    }
}

/// Find and keep where bucket `b` (1 <= b < BUCKETS) starts: a binary search
/// over whole nanoseconds with the formula itself. Two threads may both
/// compute it; they store the same number.
#[cold]
fn edge_slow(b: usize, inv_log_ratio: f64) -> u64 {
    let at = |ns: u64| bucket_of(SimTime(ns).as_secs_f64(), inv_log_ratio);
    // at(lo) < b <= at(hi): 2^62 ns is past the histogram's end.
    let (mut lo, mut hi) = (0u64, 1u64 << 62);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if at(mid) >= b {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    EDGES[b].store(hi, Ordering::Relaxed);
    hi
}

impl Default for Summary {
    fn default() -> Self {
        Self::new()
    }
}

impl Summary {
    /// An empty summary (no histogram allocated yet).
    pub fn new() -> Self {
        Summary {
            counts: Vec::new(),
            first: 0,
            n: 0,
            sum: 0.0,
            inv_log_ratio: 1.0 / RATIO.ln(),
            last: 0,
        }
    }

    /// The histogram's upper end: samples above it land in the last bucket.
    pub fn max_exact() -> f64 {
        LOW * RATIO.powi(BUCKETS as i32)
    }

    /// Add one sample.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.count_in(x, bucket_of(x, self.inv_log_ratio));
    }

    /// Add one sample given as a simulated time: as `add(t.as_secs_f64())`,
    /// with the bucket found among the buckets' starts (see the module header).
    #[inline]
    pub fn add_time(&mut self, t: SimTime) {
        let x = t.as_secs_f64();
        let (ns, k, inv) = (t.0, self.last, self.inv_log_ratio);
        let b = if ns < edge(k, inv) {
            if k > 0 && ns >= edge(k - 1, inv) {
                k - 1
            } else {
                bucket_of(x, inv)
            }
        } else if ns < edge(k + 1, inv) {
            k
        } else if ns < edge(k + 2, inv) {
            k + 1
        } else {
            bucket_of(x, inv)
        };
        debug_assert_eq!(b, bucket_of(x, inv), "bucket of {ns} ns");
        self.last = b;
        self.count_in(x, b);
    }

    #[inline]
    fn count_in(&mut self, x: f64, b: usize) {
        self.n += 1;
        self.sum += x;
        if b < self.first || b >= self.first + self.counts.len() {
            self.grow_to(b);
        }
        self.counts[b - self.first] += 1;
    }

    /// Extend the held range to bucket `b`, with some room beyond it on that
    /// side (a quarter of the range, at least 64 buckets) so growth stays rare.
    #[cold]
    fn grow_to(&mut self, b: usize) {
        if self.counts.is_empty() {
            self.first = b.saturating_sub(32);
            let end = (b + 32).min(BUCKETS - 1);
            self.counts = vec![0; end - self.first + 1];
            return;
        }
        let room = (self.counts.len() / 4).max(64);
        let (lo, hi) = (self.first, self.first + self.counts.len() - 1);
        let new_lo = if b < lo { b.saturating_sub(room) } else { lo };
        let new_hi = if b > hi {
            (b + room).min(BUCKETS - 1)
        } else {
            hi
        };
        let mut counts = vec![0; new_hi - new_lo + 1];
        counts[lo - new_lo..=hi - new_lo].copy_from_slice(&self.counts);
        self.counts = counts;
        self.first = new_lo;
    }

    /// Buckets held (for tests and memory accounting).
    pub fn buckets_held(&self) -> usize {
        self.counts.len()
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Exact mean (NaN without samples).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.sum / self.n as f64
        }
    }

    /// Nearest-rank percentile p (0 < p <= 100): the bucket holding the smallest
    /// sample with at least p % of samples at or below it, as its geometric centre.
    pub fn percentile(&self, p: f64) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        let rank = ((p / 100.0) * self.n as f64).ceil().max(1.0) as u64;
        let mut acc = 0u64;
        for (b, &c) in self.counts.iter().enumerate() {
            acc += c as u64;
            if acc >= rank {
                return LOW * RATIO.powf((self.first + b) as f64 + 0.5);
            }
        }
        unreachable!("rank <= n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_within_half_a_bucket_of_the_nearest_rank_sample() {
        // Samples 1 ms, 2 ms, ..., 1000 ms: nearest-rank p50 = 500 ms, p95 = 950 ms,
        // p99 = 990 ms, mean 500.5 ms exactly.
        let mut s = Summary::new();
        for k in 1..=1000 {
            s.add(k as f64 * 1e-3);
        }
        assert_eq!(s.count(), 1000);
        assert!((s.mean() - 0.5005).abs() < 1e-12);
        for (p, want) in [(50.0, 0.5), (95.0, 0.95), (99.0, 0.99), (100.0, 1.0)] {
            let got = s.percentile(p);
            assert!((got / want - 1.0).abs() < 0.0005, "p{p}: {got} vs {want}");
        }
        // 10^4 s is inside the histogram.
        assert!(Summary::max_exact() > 1e4);
    }

    #[test]
    fn the_histogram_holds_only_the_range_its_samples_reached() {
        // Samples between 40 and 80 ms: ln(2)/ln(1.001) = 693.5 buckets apart,
        // held with at most the growth margins (64 + a quarter) on each side,
        // far below the 23,040 of the whole range; percentiles as before.
        let mut s = Summary::new();
        assert_eq!(s.buckets_held(), 0);
        let mut grown = 0;
        let mut last = 0;
        for k in 0..100_000 {
            let x = 0.040 + 0.040 * ((k * 7919) % 1000) as f64 / 1000.0;
            s.add(x);
            if s.buckets_held() != last {
                grown += 1;
                last = s.buckets_held();
            }
        }
        assert!(
            s.buckets_held() >= 694 && s.buckets_held() < 1400,
            "{}",
            s.buckets_held()
        );
        assert!(grown < 20, "{grown} reallocations");
        // The samples are 40 + 0.04 j ms for j = 0..999, each 100 times: the
        // nearest-rank median is the 500th value, 40 + 0.04 * 499 = 59.96 ms.
        let p50 = s.percentile(50.0);
        assert!((p50 / 0.05996 - 1.0).abs() < 0.0005, "{p50}");
        // A sample far outside still lands in its bucket.
        s.add(2.0);
        assert!((s.percentile(100.0) / 2.0 - 1.0).abs() < 0.0005);
    }

    #[test]
    fn samples_added_as_times_land_where_the_formula_puts_them() {
        // The same samples through add (the logarithm each time) and
        // add_time (the buckets' starts): identical histograms, sums and
        // percentiles. The samples walk slowly (an RTT moving with a queue),
        // jump (a timeout's sample), and sit on, just below and just above
        // bucket starts, where a wrong start would show.
        let inv = 1.0 / RATIO.ln();
        let mut ns: Vec<u64> = Vec::new();
        let mut t: u64 = 40_000_000;
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = state >> 33;
            t = match r % 100 {
                0 => 1_000 + r % 3_000_000_000, // a jump anywhere from 1 us to 3 s
                1..=49 => t + r % 60_000,
                _ => t.saturating_sub(r % 60_000).max(1),
            };
            ns.push(t);
        }
        for b in [1, 2, 500, 6_908, 17_000, 17_001, BUCKETS - 2, BUCKETS - 1] {
            let e = edge(b, inv);
            assert!(bucket_of(SimTime(e).as_secs_f64(), inv) >= b);
            assert!(bucket_of(SimTime(e - 1).as_secs_f64(), inv) < b);
            ns.extend([e - 1, e, e + 1, e, e - 1]);
        }
        ns.extend([0, 1, 999, 1_000, 1_001, u64::MAX / 2, 40_000_000]);
        let (mut a, mut b) = (Summary::new(), Summary::new());
        for &v in &ns {
            a.add(SimTime(v).as_secs_f64());
            b.add_time(SimTime(v));
            assert_eq!(b.last, bucket_of(SimTime(v).as_secs_f64(), inv), "{v} ns");
        }
        assert_eq!((a.first, &a.counts, a.n), (b.first, &b.counts, b.n));
        assert_eq!(a.sum.to_bits(), b.sum.to_bits());
        for p in [1.0, 50.0, 99.0, 100.0] {
            assert_eq!(a.percentile(p).to_bits(), b.percentile(p).to_bits());
        }
    }

    #[test]
    fn empty_summary_is_nan() {
        let s = Summary::new();
        assert!(s.mean().is_nan() && s.percentile(50.0).is_nan());
    }
}
