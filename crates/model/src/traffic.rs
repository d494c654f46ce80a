//! Traffic models: transfer-size distributions and arrival processes.
//!
//! Sizes are drawn in *units* (packets of the sender's MSS, or bytes) and turned
//! into bytes by the world. Every distribution knows its exact mean, so a
//! generator's offered load (arrival rate x mean size / capacity) is computed, not
//! estimated.
//!
//! - Zipf on `min..=max`: P(k) proportional to k^-alpha, sampled by
//!   rejection-inversion (Hoermann & Derflinger, "Rejection-inversion to generate
//!   variates from monotone discrete distributions", ACM TOMACS 1996; the layout
//!   of Apache Commons RNG's `RejectionInversionZipfSampler`, without its squeeze,
//!   so the acceptance test is the exact one for every k).
//! - Pareto (shape a, scale x_m) capped at `cap`: min(x_m U^(-1/a), cap).
//! - Exponential (mean m): -m ln U. Fixed. Empirical (value, probability) table.

use tcplab_engine::RngStream;

/// A transfer-size distribution, in units.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Always this value.
    Fixed(f64),
    /// Exponential with this mean.
    Exponential(f64),
    /// Pareto with shape `shape` and scale (minimum) `scale`, values above `cap` set to `cap`.
    Pareto {
        /// Tail index a.
        shape: f64,
        /// Minimum value x_m.
        scale: f64,
        /// Largest value.
        cap: f64,
    },
    /// Zipf: integer k in `min..=max` with probability proportional to k^-alpha.
    Zipf {
        /// Exponent.
        alpha: f64,
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
    },
    /// A table of values and their probabilities (summing to 1).
    Empirical(Vec<(f64, f64)>),
}

/// sum_{k=a}^{b} k^-s, exact up to a million terms, Euler-Maclaurin beyond
/// (f(x) = x^-s; the first neglected term is of order f'''(m)/720 at m >= 10^6).
pub fn power_sum(a: u64, b: u64, s: f64) -> f64 {
    if b < a {
        return 0.0;
    }
    let direct_end = b.min(a.saturating_add(1_000_000));
    let mut sum = 0.0;
    for k in a..=direct_end {
        sum += (k as f64).powf(-s);
    }
    if direct_end < b {
        // Remaining terms m..=b with m = direct_end + 1.
        let m = (direct_end + 1) as f64;
        let bf = b as f64;
        let f = |x: f64| x.powf(-s);
        let df = |x: f64| -s * x.powf(-s - 1.0);
        let integral = if (s - 1.0).abs() < 1e-12 {
            (bf / m).ln()
        } else {
            (bf.powf(1.0 - s) - m.powf(1.0 - s)) / (1.0 - s)
        };
        sum += integral + (f(m) + f(bf)) / 2.0 + (df(bf) - df(m)) / 12.0;
    }
    sum
}

impl SizeDist {
    /// The exact mean, in units.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed(v) => *v,
            SizeDist::Exponential(m) => *m,
            SizeDist::Pareto { shape, scale, cap } => {
                // E[min(X, c)] = x_m + int_{x_m}^{c} (x_m / x)^a dx.
                let (a, xm, c) = (*shape, *scale, *cap);
                if c <= xm {
                    return c;
                }
                let tail = if (a - 1.0).abs() < 1e-12 {
                    xm * (c / xm).ln()
                } else {
                    xm.powf(a) * (c.powf(1.0 - a) - xm.powf(1.0 - a)) / (1.0 - a)
                };
                xm + tail
            }
            SizeDist::Zipf { alpha, min, max } => {
                power_sum(*min, *max, alpha - 1.0) / power_sum(*min, *max, *alpha)
            }
            SizeDist::Empirical(t) => t.iter().map(|(v, p)| v * p).sum(),
        }
    }

    /// Draw one value, in units.
    pub fn sample(&self, rng: &mut RngStream) -> f64 {
        match self {
            SizeDist::Fixed(v) => *v,
            SizeDist::Exponential(m) => -m * (1.0 - rng.uniform()).ln(),
            SizeDist::Pareto { shape, scale, cap } => {
                (scale * (1.0 - rng.uniform()).powf(-1.0 / shape)).min(*cap)
            }
            SizeDist::Zipf { alpha, min, max } => zipf(*alpha, *min, *max, rng) as f64,
            SizeDist::Empirical(t) => {
                let u = rng.uniform();
                let mut acc = 0.0;
                for (v, p) in t {
                    acc += p;
                    if u < acc {
                        return *v;
                    }
                }
                t.last().map_or(0.0, |x| x.0)
            }
        }
    }
}

/// H(x) = int_1^x t^-alpha dt, the integral of the hat h(x) = x^-alpha.
fn h_integral(x: f64, alpha: f64) -> f64 {
    let l = x.ln();
    let e = 1.0 - alpha;
    if e.abs() < 1e-12 {
        l
    } else {
        (e * l).exp_m1() / e
    }
}

/// The inverse of [`h_integral`].
fn h_integral_inverse(y: f64, alpha: f64) -> f64 {
    let e = 1.0 - alpha;
    if e.abs() < 1e-12 {
        y.exp()
    } else {
        // (1 + e y)^(1/e); 1 + e y >= 0 for y in the sampled range.
        ((e * y).ln_1p() / e).exp()
    }
}

/// Rejection-inversion for P(k) ~ k^-alpha on `min..=max`. The area of value k is
/// [H(k + 1/2) - h(k), H(k + 1/2)], of width h(k) and inside [H(k - 1/2), H(k + 1/2)]
/// because h is convex; u is uniform over the union and k = round(H^-1(u)) is
/// accepted when u falls in its area.
fn zipf(alpha: f64, min: u64, max: u64, rng: &mut RngStream) -> u64 {
    let h = |k: f64| k.powf(-alpha);
    let lo = h_integral(min as f64 + 0.5, alpha) - h(min as f64);
    let hi = h_integral(max as f64 + 0.5, alpha);
    loop {
        let u = hi + rng.uniform() * (lo - hi);
        let x = h_integral_inverse(u, alpha);
        let k = ((x + 0.5).floor() as u64).clamp(min, max);
        let kf = k as f64;
        if u >= h_integral(kf + 0.5, alpha) - h(kf) {
            return k;
        }
    }
}

/// An arrival process.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arrivals {
    /// Poisson arrivals at this rate per second (exponential gaps).
    Poisson(f64),
}

impl Arrivals {
    /// Arrivals per second.
    pub fn rate(&self) -> f64 {
        match self {
            Arrivals::Poisson(l) => *l,
        }
    }
    /// The gap to the next arrival, seconds.
    pub fn gap(&self, rng: &mut RngStream) -> f64 {
        match self {
            Arrivals::Poisson(l) => -(1.0 - rng.uniform()).ln() / l,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(d: &SizeDist, n: usize, stream: u64) -> Vec<f64> {
        let mut rng = RngStream::new(7, stream);
        (0..n).map(|_| d.sample(&mut rng)).collect()
    }

    #[test]
    fn power_sums_match_closed_forms() {
        // sum_{k=1}^{n} k^-0 = n; sum k^-1 up to 10 = H_10 = 7381/2520;
        // sum_{k=1}^{inf} k^-2 = pi^2/6, the tail beyond N is about 1/N.
        assert_eq!(power_sum(1, 1000, 0.0), 1000.0);
        assert!((power_sum(1, 10, 1.0) - 7381.0 / 2520.0).abs() < 1e-12);
        let n = 10_000_000u64;
        let expect = std::f64::consts::PI.powi(2) / 6.0 - 1.0 / n as f64 + 0.5 / (n as f64).powi(2);
        assert!((power_sum(1, n, 2.0) - expect).abs() < 1e-12);
        // The Euler-Maclaurin part against a direct sum: 1..=3e6 at s = 0.7.
        let direct: f64 = (1..=3_000_000u64).map(|k| (k as f64).powf(-0.7)).sum();
        assert!((power_sum(1, 3_000_000, 0.7) / direct - 1.0).abs() < 1e-12);
    }

    #[test]
    fn zipf_frequencies_follow_k_to_the_minus_alpha() {
        // alpha = 1.7 on 1..=20: P(k) = k^-1.7 / sum_{j<=20} j^-1.7. With 400 000 draws
        // each observed frequency is within 5 standard deviations of P(k).
        let d = SizeDist::Zipf {
            alpha: 1.7,
            min: 1,
            max: 20,
        };
        let n = 400_000;
        let mut counts = [0u64; 21];
        for x in draws(&d, n, 1) {
            counts[x as usize] += 1;
        }
        let z: f64 = (1..=20).map(|k| (k as f64).powf(-1.7)).sum();
        for (k, &c) in counts.iter().enumerate().skip(1) {
            let p = (k as f64).powf(-1.7) / z;
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            let f = c as f64 / n as f64;
            assert!((f - p).abs() < 5.0 * sd, "k = {k}: {f} vs {p}");
        }
        assert_eq!(counts[0], 0);
    }

    #[test]
    fn zipf_with_a_lower_bound_and_a_wide_support() {
        // Support 100..=10^6, alpha 1.7: every draw in range; the sample mean within 5
        // standard errors of the exact mean (the variance computed from the same sums).
        let (lo, hi) = (100u64, 1_000_000u64);
        let d = SizeDist::Zipf {
            alpha: 1.7,
            min: lo,
            max: hi,
        };
        let n = 200_000;
        let xs = draws(&d, n, 2);
        assert!(xs.iter().all(|&x| x >= lo as f64 && x <= hi as f64));
        let z = power_sum(lo, hi, 1.7);
        let m1 = power_sum(lo, hi, 0.7) / z;
        let m2 = power_sum(lo, hi, -0.3) / z;
        assert!((d.mean() - m1).abs() < 1e-9 * m1);
        let se = ((m2 - m1 * m1) / n as f64).sqrt();
        let mean = xs.iter().sum::<f64>() / n as f64;
        assert!((mean - m1).abs() < 5.0 * se, "{mean} vs {m1} (se {se})");
        // P(X = 100) = 100^-1.7 / z, the most likely value.
        let p = (lo as f64).powf(-1.7) / z;
        let f = xs.iter().filter(|&&x| x == lo as f64).count() as f64 / n as f64;
        assert!((f - p).abs() < 5.0 * (p * (1.0 - p) / n as f64).sqrt());
    }

    #[test]
    fn pareto_mean_with_cap() {
        // shape 1.5, scale 2, cap 100: E = 2 + 2^1.5 (100^-0.5 - 2^-0.5) / -0.5
        //   = 2 + 2.828427 * (0.707107 - 0.1) / 0.5 = 2 + 3.434315 = 5.434315.
        let d = SizeDist::Pareto {
            shape: 1.5,
            scale: 2.0,
            cap: 100.0,
        };
        assert!((d.mean() - 5.434315).abs() < 1e-5);
        let xs = draws(&d, 400_000, 3);
        assert!(xs.iter().all(|&x| (2.0..=100.0).contains(&x)));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean / d.mean() - 1.0).abs() < 0.01, "{mean}");
        // P(X > 8) = (2/8)^1.5 = 0.125.
        let tail = xs.iter().filter(|&&x| x > 8.0).count() as f64 / xs.len() as f64;
        assert!((tail - 0.125).abs() < 0.003, "{tail}");
    }

    #[test]
    fn exponential_and_empirical() {
        let e = SizeDist::Exponential(10.0);
        let xs = draws(&e, 400_000, 4);
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        // Standard error 10/sqrt(4e5) = 0.016.
        assert!((mean - 10.0).abs() < 0.08, "{mean}");
        // mascolo2006's web mix: mean 0.5*1 + 0.2*6 + 0.2*18 + 0.1*190 = 24.3 packets.
        let w = SizeDist::Empirical(vec![(1.0, 0.5), (6.0, 0.2), (18.0, 0.2), (190.0, 0.1)]);
        assert!((w.mean() - 24.3).abs() < 1e-12);
        let xs = draws(&w, 200_000, 5);
        let f1 = xs.iter().filter(|&&x| x == 1.0).count() as f64 / 2e5;
        let f190 = xs.iter().filter(|&&x| x == 190.0).count() as f64 / 2e5;
        assert!((f1 - 0.5).abs() < 0.006 && (f190 - 0.1).abs() < 0.004);
    }

    #[test]
    fn poisson_gaps_have_mean_one_over_lambda() {
        let a = Arrivals::Poisson(20.0);
        let mut rng = RngStream::new(1, 9);
        let n = 200_000;
        let mean = (0..n).map(|_| a.gap(&mut rng)).sum::<f64>() / n as f64;
        // 1/20 = 50 ms; standard error 0.05/sqrt(2e5) = 0.11 ms.
        assert!((mean - 0.05).abs() < 0.0006, "{mean}");
    }
}
