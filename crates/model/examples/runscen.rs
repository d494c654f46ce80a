//! Run a scenario file and print its results (a developer's tool; users run `tcplab run`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: runscen FILE [SEED]");
    let seed = std::env::args().nth(2).map(|s| s.parse().expect("seed"));
    let text = std::fs::read_to_string(&path).expect("read");
    let sc = match tcplab_model::parse_scenario(&text, &path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let r = tcplab_model::run(&sc, seed);
    for f in &r.flows {
        println!(
            "{:10} {:>7.3} Mb/s  rtt mean {:7.1} ms p95 {:7.1}  sent {} retx {} fr {} to {}",
            f.name,
            f.goodput_bps / 1e6,
            f.rtt_mean_s * 1e3,
            f.rtt_p95_s * 1e3,
            f.segs_sent,
            f.segs_retrans,
            f.fast_retransmits,
            f.timeouts
        );
    }
    for l in &r.links {
        println!(
            "{:16} util {:6.2}%  thr {:7.3} Mb/s  meanq {:7.1}  drops {}",
            l.name,
            l.utilisation * 100.0,
            l.throughput_bps / 1e6,
            l.mean_queue_pkts,
            l.drops
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
