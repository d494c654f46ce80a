//! Simulated time: an integer count of nanoseconds. No floats in the clock.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in (or span of) simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    /// Time zero.
    pub const ZERO: SimTime = SimTime(0);
    /// The largest representable time (used as "never").
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// From nanoseconds.
    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    /// From microseconds.
    pub const fn from_micros(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    /// From milliseconds.
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    /// From whole seconds.
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    /// From (non-negative, finite) seconds, rounded to the nearest nanosecond.
    pub fn from_secs_f64(s: f64) -> Self {
        debug_assert!(s.is_finite() && s >= 0.0);
        SimTime((s * 1e9).round() as u64)
    }
    /// Nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Microseconds (truncated).
    pub const fn as_micros(self) -> u64 {
        self.0 / 1_000
    }
    /// Seconds as a float (for reporting only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// `self - other`, or zero if `other` is later.
    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
    /// `self + other`, saturating at [`SimTime::MAX`].
    pub fn saturating_add(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(other.0))
    }
    /// Time to serialise `bytes` at `rate_bps` bits per second, rounded up to the
    /// next nanosecond (exact when the division is exact: 1500 B at 10 Mb/s is
    /// 1.2 ms).
    #[inline]
    pub fn transmission(bytes: u64, rate_bps: u64) -> SimTime {
        if let Some(bits) = bytes.checked_mul(8_000_000_000) {
            return SimTime(bits.div_ceil(rate_bps));
        }
        let bits = bytes as u128 * 8 * 1_000_000_000;
        let r = rate_bps as u128;
        SimTime(bits.div_ceil(r) as u64)
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 + rhs.0)
    }
}
impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        self.0 += rhs.0;
    }
}
impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 - rhs.0)
    }
}

/// The largest unit that shows the time exactly: `3s`, `1.5s`, `42ms`, `35.2us`, `7ns`.
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        let (unit, per) = if ns == 0 || ns >= 1_000_000_000 {
            ("s", 1_000_000_000)
        } else if ns >= 1_000_000 {
            ("ms", 1_000_000)
        } else if ns >= 1_000 {
            ("us", 1_000)
        } else {
            ("ns", 1)
        };
        let (whole, frac) = (ns / per, ns % per);
        if frac == 0 {
            write!(f, "{whole}{unit}")
        } else {
            let digits = per.ilog10() as usize;
            let s = format!("{frac:0digits$}");
            write!(f, "{whole}.{}{unit}", s.trim_end_matches('0'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_uses_the_largest_exact_unit() {
        let show = |ns: u64| SimTime(ns).to_string();
        assert_eq!(show(0), "0s");
        assert_eq!(show(3_000_000_000), "3s");
        assert_eq!(show(1_500_000_000), "1.5s");
        assert_eq!(show(1_000_000_001), "1.000000001s");
        assert_eq!(show(42_000_000), "42ms");
        assert_eq!(show(35_200), "35.2us");
        assert_eq!(show(7), "7ns");
    }

    #[test]
    fn serialisation_of_1500_bytes_at_10mbps_is_1_2ms() {
        // 1500 * 8 bits / 10e6 b/s = 1.2e-3 s exactly.
        assert_eq!(SimTime::transmission(1500, 10_000_000), SimTime(1_200_000));
        // 40-byte ACK on 2 Mb/s: 320 bits / 2e6 = 160 us.
        assert_eq!(SimTime::transmission(40, 2_000_000), SimTime(160_000));
    }

    #[test]
    fn inexact_serialisation_rounds_up() {
        // 1 byte at 3 b/s = 8/3 s = 2.666...e9 ns -> 2_666_666_667 ns.
        assert_eq!(SimTime::transmission(1, 3), SimTime(2_666_666_667));
    }

    #[test]
    fn unit_constructors_agree() {
        assert_eq!(SimTime::from_secs(2), SimTime::from_millis(2000));
        assert_eq!(SimTime::from_millis(3), SimTime::from_micros(3000));
        assert_eq!(SimTime::from_secs_f64(0.042), SimTime::from_millis(42));
    }
}
