//! `tcplab-emu SCENARIO [SEED]`: run a scenario on the real Linux stack from
//! the command line, without Python, and print each flow's goodput and the
//! emulator's timing. `tcplab run SCENARIO --backend linux` is the full
//! interface (tables, traces, reports); both call the same library.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: tcplab-emu SCENARIO [SEED]");
        return ExitCode::from(2);
    };
    let seed = match args.get(1).map(|s| s.parse::<u64>()) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(_)) => {
            eprintln!(
                "error: SEED must be a non-negative integer, got {:?}",
                args[1]
            );
            return ExitCode::from(2);
        }
    };
    let text = match read_scenario(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::from(1);
        }
    };
    let sc = match tcplab_model::parse_scenario(&text, path) {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    match tcplab_emu::run(&sc, seed, &mut || false) {
        Ok(r) => {
            for n in &r.meta.notes {
                println!("note: {n}");
            }
            for f in &r.flows {
                println!(
                    "{:<16} {:>10.3} Mb/s  rtt {:>7.1} ms  retrans {:>6}  timeouts {:>3}",
                    f.name,
                    f.goodput_bps / 1e6,
                    f.rtt_mean_s * 1e3,
                    f.segs_retrans_window,
                    f.timeouts_window
                );
            }
            for t in &r.timing {
                println!(
                    "{:<20} delivered {:>8}  lateness p50 {:>6.1} us p99 {:>7.1} us  rate error {:.4} %  delay error {:.4} %",
                    t.link,
                    t.delivered,
                    t.lateness_p50_s * 1e6,
                    t.lateness_p99_s * 1e6,
                    t.rate_error * 100.0,
                    t.delay_error * 100.0
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// The largest scenario file read, as `tcplab.MAX_SCENARIO_BYTES`.
const MAX_SCENARIO_BYTES: u64 = 128 << 20;

/// A scenario file's text, as `tcplab.read_file` reads it: regular files only
/// (opened without blocking, so a FIFO is refused, not waited on), at most
/// [`MAX_SCENARIO_BYTES`], UTF-8, a leading byte-order mark dropped.
fn read_scenario(path: &str) -> Result<String, String> {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| e.to_string())?;
    let meta = f.metadata().map_err(|e| e.to_string())?;
    let t = meta.file_type();
    if !t.is_file() {
        let kind = if t.is_dir() {
            "a directory"
        } else if t.is_fifo() {
            "a FIFO (named pipe)"
        } else if t.is_char_device() {
            "a character device"
        } else if t.is_block_device() {
            "a block device"
        } else {
            "not a regular file"
        };
        return Err(format!("is {kind}; a scenario must be a regular file"));
    }
    let mut data = Vec::new();
    f.take(MAX_SCENARIO_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(|e| e.to_string())?;
    if data.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(format!(
            "more than {MAX_SCENARIO_BYTES} bytes; a scenario file may have at most {MAX_SCENARIO_BYTES} bytes"
        ));
    }
    let text = String::from_utf8(data).map_err(|e| format!("not UTF-8 text ({e})"))?;
    Ok(text
        .strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text))
}
