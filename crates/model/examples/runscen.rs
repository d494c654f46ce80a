//! Run a scenario file and print its results (a developer's tool; users run `tcplab run`).
//!
//! With `RUNSCEN_DUMP=FILE` it also writes the whole result (every table and
//! trace, wall time zeroed) to FILE, so that two builds can be checked for
//! bit-identical results with `cmp`. With `RUNSCEN_VALIDATE=1` it only
//! parses and validates the scenario, printing the time that took and the
//! memory estimate (for profiling validation of large scenarios).
fn main() {
    let path = std::env::args().nth(1).expect("usage: runscen FILE [SEED]");
    let seed = std::env::args().nth(2).map(|s| s.parse().expect("seed"));
    let text = std::fs::read_to_string(&path).expect("read");
    let t0 = std::time::Instant::now();
    let sc = match tcplab_model::parse_scenario(&text, &path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    if std::env::var_os("RUNSCEN_VALIDATE").is_some() {
        let validated = t0.elapsed().as_secs_f64();
        let m = tcplab_model::memory::estimate(&sc, text.len());
        println!(
            "validated in {validated:.3} s; memory estimate {} B ({:.3} s), core {} B",
            m.total,
            t0.elapsed().as_secs_f64() - validated,
            m.core
        );
        for p in &m.parts {
            println!("  {:>14} B  {} = {}: {}", p.bytes, p.field, p.value, p.what);
        }
        return;
    }
    let r = tcplab_model::run(&sc, seed);
    if let Ok(dump) = std::env::var("RUNSCEN_DUMP") {
        let mut all = r.clone();
        all.meta.wall_s = 0.0;
        std::fs::write(&dump, format!("{all:#?}\n")).expect("write RUNSCEN_DUMP");
    }
    for f in &r.flows {
        println!(
            "{:10} {:>7.3} Mb/s  rtt mean {:7.1} ms p95 {:7.1}  sent {} retx {} fr {} to {}  ecn {} reductions {}",
            f.name,
            f.goodput_bps / 1e6,
            f.rtt_mean_s * 1e3,
            f.rtt_p95_s * 1e3,
            f.segs_sent,
            f.segs_retrans,
            f.fast_retransmits,
            f.timeouts,
            f.ecn,
            f.ecn_reductions
        );
    }
    for l in &r.links {
        println!(
            "{:16} util {:6.2}%  thr {:7.3} Mb/s  meanq {:7.1}  sojourn {:7.2} ms (max {:.2})  drops {}  marks {}",
            l.name,
            l.utilisation * 100.0,
            l.throughput_bps / 1e6,
            l.mean_queue_pkts,
            l.mean_sojourn_s * 1e3,
            l.max_sojourn_s * 1e3,
            l.drops,
            l.marks
        );
    }
    for p in &r.phases {
        println!(
            "phase {} flow {} [{:.0}, {:.0}) s: {:.3} Mb/s, sent {} retx {} timeouts {}",
            p.phase,
            p.flow,
            p.start_s,
            p.end_s,
            p.goodput_bps / 1e6,
            p.segs_sent,
            p.segs_retrans,
            p.timeouts
        );
    }
    for (i, g) in r.generators.iter().enumerate() {
        let mut fct: Vec<f64> = r
            .transfers
            .iter()
            .filter(|t| t.generator == i as u32 && t.completed)
            .map(|t| t.fct_s)
            .collect();
        fct.sort_by(f64::total_cmp);
        println!(
            "generator {}: {:.3}/s x {:.0} B = {:.3} Mb/s offered, load {:.1}% of {:.0} Mb/s; {} started, {} completed, median response {:.3} s",
            g.name,
            g.rate,
            g.mean_size_bytes,
            g.offered_bps / 1e6,
            g.offered_load * 100.0,
            g.bottleneck_bps / 1e6,
            g.arrivals,
            g.completed,
            fct.get(fct.len().saturating_sub(1) / 2).copied().unwrap_or(f64::NAN)
        );
    }
    if let (Ok(every), Some(tr)) = (std::env::var("CWND_EVERY"), r.traces.cwnd.as_ref()) {
        let every: usize = every.parse().expect("CWND_EVERY");
        for i in (0..tr.time_s.len()).step_by(every) {
            println!(
                "cwnd t={:.2} flow={} cwnd={} ssthresh={}",
                tr.time_s[i], tr.flow[i], tr.cwnd[i], tr.ssthresh[i]
            );
        }
    }
    println!(
        "events {} packets {} wall {:.3}s  {:.1} Mev/s",
        r.meta.events,
        r.meta.packets,
        r.meta.wall_s,
        r.meta.events as f64 / r.meta.wall_s / 1e6
    );
}
