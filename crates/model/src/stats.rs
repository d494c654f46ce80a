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
        }
    }

    /// The histogram's upper end: samples above it land in the last bucket.
    pub fn max_exact() -> f64 {
        LOW * RATIO.powi(BUCKETS as i32)
    }

    /// Add one sample.
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        let b = if x <= LOW {
            0
        } else {
            (((x / LOW).ln() * self.inv_log_ratio) as usize).min(BUCKETS - 1)
        };
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
    fn empty_summary_is_nan() {
        let s = Summary::new();
        assert!(s.mean().is_nan() && s.percentile(50.0).is_nan());
    }
}
