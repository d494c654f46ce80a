//! When a Linux `timer_list` timer fires: the timer wheel's rounding
//! (kernel/time/timer.c since Linux 4.8, `calc_wheel_index`, `calc_index`;
//! read in v6.12).
//!
//! TCP's retransmission timer (RTO, the tail loss probe and RACK's
//! reordering timer share it, `icsk_retransmit_timer`) and its delayed-ACK
//! timer (`icsk_delack_timer`) are wheel timers: armed with an expiry in
//! jiffies, `jiffies + timeout`, they fire at the end of a bucket, never
//! before the expiry and up to a bucket's width after it. The wheel has
//! levels of 64 buckets; level `n` holds timers due within
//! `63 << 3(n-1)` jiffies and has buckets `8^n` jiffies wide. A timer goes
//! to the lowest level whose range holds its delta, and its bucket is the
//! next multiple of the level's width strictly after the expiry:
//!
//! ```text
//! expires = (expires >> LVL_SHIFT(lvl)) + 1;
//! bucket_expiry = expires << LVL_SHIFT(lvl);
//! ```
//!
//! So at level 0 (delta under 63 jiffies: 252 ms at HZ 250) a timer fires
//! one jiffy after its expiry tick, and at level 1 (up to 504 jiffies,
//! 2.016 s at HZ 250) at the next multiple of 8 jiffies, 32 ms at HZ 250.
//! Measured on the real stack (Linux 6.18, HZ 250; docs/reproduce.md,
//! "The timer wheel"): an RTO of 228 ms fired 0.7-3.9 ms late, one of
//! 608 ms 4.6-23.6 ms late, the 40 ms delayed ACK 0.2-4.6 ms late.
//!
//! Not modelled: the wheel's base clock apart from `jiffies` (behind it on
//! an idle CPU until `forward_timer_base`, one tick ahead of it just after
//! `__run_timers`, which moves a timer of exactly 63 or 504 jiffies down a
//! level), and the softirq's own latency after the tick. The jiffies count
//! from the scenario's time 0.

use tcplab_engine::SimTime;

/// `LVL_CLK_SHIFT`: each level's buckets are 8 times as wide.
const LVL_CLK_SHIFT: u32 = 3;
/// `LVL_SIZE - 1`: the deltas level 0 holds (`LVL_START(1)`).
const LVL_SPAN: u64 = 63;
/// `LVL_DEPTH` at HZ above 100; deltas past the last level are capped
/// (`WHEEL_TIMEOUT_MAX`), far beyond any TCP timer here.
const LVL_DEPTH: u32 = 9;

/// The tick of absolute time `t` (`jiffies`, counted from time 0).
fn tick_of(t: SimTime, jiffy: SimTime) -> u64 {
    t.0 / jiffy.0
}

/// When a timer armed at `now` with expiry tick `expires` fires: the end
/// of its bucket (`calc_wheel_index`).
pub fn fire_at_tick(now: SimTime, expires: u64, jiffy: SimTime) -> SimTime {
    let clk = tick_of(now, jiffy);
    let delta = expires.saturating_sub(clk);
    // LVL_START(n) = 63 << 3(n - 1): the first level whose range holds delta.
    let lvl = (0..LVL_DEPTH - 1)
        .find(|&l| delta < LVL_SPAN << (LVL_CLK_SHIFT * l))
        .unwrap_or(LVL_DEPTH - 1);
    let shift = LVL_CLK_SHIFT * lvl;
    let bucket = ((expires.max(clk) >> shift) + 1) << shift;
    SimTime(bucket * jiffy.0)
}

/// A timer armed at `now` for `timeout` (rounded up to whole jiffies, as
/// `usecs_to_jiffies`): its expiry tick `jiffies + timeout` and when it
/// fires. With a zero `jiffy` there is no wheel: it fires at `now + timeout`.
pub fn arm(now: SimTime, timeout: SimTime, jiffy: SimTime) -> (u64, SimTime) {
    if jiffy.0 == 0 {
        return (0, now + timeout);
    }
    let expires = tick_of(now, jiffy) + timeout.0.div_ceil(jiffy.0);
    (expires, fire_at_tick(now, expires, jiffy))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }
    const HZ250: SimTime = SimTime(4_000_000);

    #[test]
    fn a_short_timer_fires_one_jiffy_after_its_expiry_tick() {
        // Armed at 10.5 ms (jiffy 2) for 40 ms = 10 jiffies: expiry tick
        // 12, delta 10 < 63 (level 0): bucket 13, 52 ms; 41.5 ms after
        // arming, within the kernel's 40.2-44.6 ms delayed ACKs.
        let (exp, fire) = arm(SimTime::from_micros(10_500), ms(40), HZ250);
        assert_eq!((exp, fire), (12, ms(52)));
        // Armed on a tick: a whole jiffy late.
        assert_eq!(arm(ms(8), ms(40), HZ250).1, ms(52));
    }

    #[test]
    fn a_timer_of_63_jiffies_or_more_fires_at_the_next_multiple_of_8() {
        // RTO 608 ms = 152 jiffies armed at 0.5 s (jiffy 125): expiry 277,
        // delta 152 in [63, 504): level 1, (277 >> 3) + 1 = 35 -> tick
        // 280, 1120 ms: 12 ms after the nominal 1108 ms.
        let (exp, fire) = arm(ms(500), ms(608), HZ250);
        assert_eq!((exp, fire), (277, ms(1120)));
        // 62 jiffies stays on level 0, 63 goes to level 1.
        assert_eq!(arm(SimTime::ZERO, ms(4 * 62), HZ250).1, ms(4 * 63));
        assert_eq!(arm(SimTime::ZERO, ms(4 * 63), HZ250).1, ms(4 * 64));
        // An expiry already on a multiple of 8 still moves a whole bucket.
        assert_eq!(arm(SimTime::ZERO, ms(4 * 64), HZ250).1, ms(4 * 72));
    }

    #[test]
    fn level_two_buckets_are_64_jiffies_wide() {
        // 3 s = 750 jiffies in [504, 4032): (750 >> 6) + 1 = 12 -> 768
        // jiffies, 3.072 s.
        assert_eq!(arm(SimTime::ZERO, ms(3000), HZ250).1, ms(3072));
    }

    #[test]
    fn the_delay_never_falls_short_and_exceeds_by_at_most_a_bucket() {
        for start_us in (0..20_000).step_by(777) {
            let now = SimTime::from_micros(start_us);
            for t in [1u64, 4, 40, 200, 251, 252, 253, 1000, 2016, 2020] {
                let fire = arm(now, ms(t), HZ250).1;
                let late = fire.0 - (now + ms(t)).0;
                let jiffies = t.div_ceil(4);
                let width = match jiffies {
                    0..63 => ms(4),
                    63..504 => ms(32),
                    _ => ms(256),
                };
                assert!(fire >= now + ms(t), "{start_us} us + {t} ms fired early");
                assert!(
                    late <= width.0 + HZ250.0,
                    "{start_us} us + {t} ms: {late} ns late"
                );
            }
        }
    }

    #[test]
    fn without_a_tick_the_timer_is_exact() {
        assert_eq!(arm(ms(3), ms(40), SimTime::ZERO).1, ms(43));
    }
}
