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
    let text = match std::fs::read_to_string(path) {
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
