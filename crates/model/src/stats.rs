//! Streaming statistics of RTT samples: an exact mean and percentiles from a
//! logarithmic histogram, so a flow's millions of samples cost a fixed 92 kB and
//! no per-sample allocation or final sort.
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
    counts: Vec<u32>,
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
    /// An empty summary (allocates its histogram once).
    pub fn new() -> Self {
        Summary {
            counts: vec![0; BUCKETS],
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
        self.counts[b] += 1;
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
                return LOW * RATIO.powf(b as f64 + 0.5);
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
    fn empty_summary_is_nan() {
        let s = Summary::new();
        assert!(s.mean().is_nan() && s.percentile(50.0).is_nan());
    }
}
