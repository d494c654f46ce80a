//! Quantities with units as written in scenario files: durations ("42ms", or a
//! number of seconds), rates ("10Mbps", "2 Mb/s", or bits per second) and sizes
//! ("4MiB", "64KB", or bytes). Errors say what was given and what is allowed.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;
use tcplab_engine::SimTime;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(_, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == 'e'
                || c == 'E'
                || c == '-'
                || c == '+'
                || c == '_')
        })
        .map_or(s.len(), |(i, _)| i);
    // 'e' may start a unit only if not followed by digits; keep it simple: units here never start with e.
    let num: String = s[..end].chars().filter(|&c| c != '_').collect();
    let v: f64 = num.parse().ok()?;
    Some((v, s[end..].trim()))
}

macro_rules! quantity {
    ($name:ident, $inner:ty, $what:literal, $expect:literal, $parse:expr, $from_num:expr) => {
        #[doc = concat!("A ", $what, " read from a scenario.")]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        let parse: fn(&str) -> Result<$inner, String> = $parse;
                        parse(s).map($name).map_err(|m| {
                            E::custom(format!(
                                "invalid {} {s:?}: {m}; expected {}",
                                $what, $expect
                            ))
                        })
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        let conv: fn(f64) -> Result<$inner, String> = $from_num;
                        conv(v).map($name).map_err(|m| {
                            E::custom(format!("invalid {} {v}: {m}; expected {}", $what, $expect))
                        })
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        self.visit_f64(v as f64)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        self.visit_f64(v as f64)
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

fn nonneg(v: f64) -> Result<f64, String> {
    if !v.is_finite() {
        Err("not a finite number".into())
    } else if v < 0.0 {
        Err("must not be negative".into())
    } else {
        Ok(v)
    }
}

/// Parse a duration string; the unit is required.
pub fn parse_duration(s: &str) -> Result<SimTime, String> {
    let (v, unit) = split_number(s).ok_or("not a number with a unit")?;
    let scale = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        "h" => 3600.0,
        "" => return Err("no unit".into()),
        _ => return Err(format!("unknown unit {unit:?}")),
    };
    secs(v * scale)
}

fn secs(v: f64) -> Result<SimTime, String> {
    let v = nonneg(v)?;
    if v > 1e9 {
        return Err("longer than 10^9 seconds".into());
    }
    Ok(SimTime::from_secs_f64(v))
}

/// Parse a rate string into bits per second; the unit (per second) is required.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s).ok_or("not a number with a unit")?;
    let u = unit.replace("/s", "ps").replace("it", "");
    let scale = match u.as_str() {
        "bps" => 1.0,
        "kbps" | "Kbps" => 1e3,
        "Mbps" | "mbps" => 1e6,
        "Gbps" | "gbps" => 1e9,
        "Tbps" => 1e12,
        "Bps" => 8.0,
        "kBps" | "KBps" => 8e3,
        "MBps" => 8e6,
        "GBps" => 8e9,
        "" => return Err("no unit".into()),
        "b" | "kb" | "Kb" | "Mb" | "Gb" | "Tb" | "B" | "kB" | "KB" | "MB" | "GB" => {
            return Err(format!(
                "{unit:?} is an amount of data, not a rate: write \"{v}{u}ps\""
            ))
        }
        _ => return Err(format!("unknown unit {unit:?}")),
    };
    positive_rate(v * scale)
}

/// The largest rate accepted, bit/s (1 Pbit/s).
pub const MAX_RATE_BPS: f64 = 1e15;
/// The largest size accepted, bytes (1 PB).
pub const MAX_SIZE_BYTES: f64 = 1e15;

fn positive_rate(v: f64) -> Result<u64, String> {
    let v = nonneg(v)?;
    if v < 1.0 {
        return Err("must be at least 1 bit/s".into());
    }
    if v > MAX_RATE_BPS {
        return Err("above 1 Pbit/s".into());
    }
    Ok(v.round() as u64)
}

fn size_bytes(v: f64) -> Result<u64, String> {
    let v = nonneg(v)?;
    if v > MAX_SIZE_BYTES {
        return Err("above 1 PB".into());
    }
    Ok(v.round() as u64)
}

/// A bare number where a quantity needs its unit.
fn needs_unit<T>(_: f64) -> Result<T, String> {
    Err("a number without its unit".into())
}

/// Parse a size string into bytes; the unit is required.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s).ok_or("not a number with a unit")?;
    let scale = match unit {
        "" => return Err("no unit".into()),
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1048576.0,
        "GiB" => 1073741824.0,
        _ => return Err(format!("unknown unit {unit:?}")),
    };
    size_bytes(v * scale)
}

quantity!(
    Duration,
    SimTime,
    "duration",
    "a string with its unit, such as \"42ms\" or \"1.5s\" (units ns, us, ms, s, min, h)",
    parse_duration,
    needs_unit
);
quantity!(Rate, u64, "rate", "a string with its unit, such as \"10Mbps\", \"2 Mb/s\" or \"400kbps\" (bit/s units bps, kbps, Mbps, Gbps, Tbps; byte/s units Bps, kBps, MBps, GBps), at most 1 Pbit/s", parse_rate, needs_unit);
quantity!(Size, u64, "size", "a string with its unit, such as \"64KiB\", \"1500B\" or \"4MB\" (units B, KB, MB, GB, KiB, MiB, GiB), at most 1 PB", parse_size, needs_unit);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("42ms"), Ok(SimTime::from_millis(42)));
        assert_eq!(parse_duration("1.5 s"), Ok(SimTime::from_millis(1500)));
        assert_eq!(parse_duration("250us"), Ok(SimTime::from_micros(250)));
        assert_eq!(parse_duration("2min"), Ok(SimTime::from_secs(120)));
        assert!(parse_duration("-1s").unwrap_err().contains("negative"));
        assert!(parse_duration("3 parsecs")
            .unwrap_err()
            .contains("unknown unit"));
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Mbps"), Ok(10_000_000));
        assert_eq!(parse_rate("2 Mb/s"), Ok(2_000_000));
        assert_eq!(parse_rate("2.4Mbit/s"), Ok(2_400_000));
        assert_eq!(parse_rate("400kbps"), Ok(400_000));
        assert_eq!(parse_rate("1Gbps"), Ok(1_000_000_000));
        assert_eq!(parse_rate("1.2MBps"), Ok(9_600_000));
        assert!(parse_rate("0Mbps").is_err());
        assert!(parse_rate("-5Mbps").is_err());
        // Units are required, sizes are not rates, and absurd rates are refused.
        assert_eq!(parse_rate("10"), Err("no unit".into()));
        assert!(parse_rate("10Mb").unwrap_err().contains("write \"10Mbps\""));
        assert!(parse_rate("5MB").unwrap_err().contains("not a rate"));
        assert_eq!(parse_rate("1000Tbps"), Ok(1_000_000_000_000_000));
        assert_eq!(parse_rate("1e30Gbps"), Err("above 1 Pbit/s".into()));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("4MB"), Ok(4_000_000));
        assert_eq!(parse_size("1500B"), Ok(1500));
        assert_eq!(parse_size("1500"), Err("no unit".into()));
        assert_eq!(parse_size("1e30B"), Err("above 1 PB".into()));
    }

    #[test]
    fn bare_numbers_and_unitless_strings_name_the_units() {
        #[derive(serde::Deserialize, Debug)]
        struct T {
            #[allow(dead_code)]
            r: Option<Rate>,
            #[allow(dead_code)]
            d: Option<Duration>,
            #[allow(dead_code)]
            s: Option<Size>,
        }
        for (text, what) in [
            ("r = 10", "invalid rate 10: a number without its unit; expected a string with its unit, such as \"10Mbps\""),
            ("d = 5", "invalid duration 5: a number without its unit"),
            ("s = 57920", "invalid size 57920: a number without its unit"),
            ("d = \"5\"", "invalid duration \"5\": no unit"),
        ] {
            let e = toml::from_str::<T>(text).unwrap_err().to_string();
            assert!(e.contains(what), "{text}: {e}");
        }
    }
}
