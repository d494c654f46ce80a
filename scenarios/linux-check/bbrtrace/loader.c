// SPDX-License-Identifier: MIT OR Apache-2.0
// bbrtrace OUT: attach bbrtrace.bpf.c and write one line per record to OUT
// until SIGINT/SIGTERM:
//   t_ns sport dport mode round_start lt_is_sampling lt_rtt_cnt lt_use_bw
//   app_limited lt_bw lt_last_delivered lt_last_lost lt_last_stamp
//   delivered lost cwnd rtt_cnt pacing_gain bw bw_t (bw: the bandwidth
//   filter's maximum, bw_t: the round it was sampled in)
#include <signal.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include "bbrtrace.skel.h"

struct rec {
	unsigned long long t_ns;
	unsigned short sport, dport;
	unsigned char mode, round_start, lt_is_sampling, lt_rtt_cnt;
	unsigned char lt_use_bw, app_limited, pad1, pad2;
	unsigned int lt_bw, lt_last_delivered, lt_last_lost, lt_last_stamp;
	unsigned int delivered, lost, cwnd, rtt_cnt, pacing_gain, bw, bw_t;
};

static volatile sig_atomic_t stop;
static void on_signal(int s) { (void)s; stop = 1; }

static int handle(void *ctx, void *data, size_t size)
{
	const struct rec *r = data;
	(void)size;
	fprintf((FILE *)ctx, "%llu %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u\n",
		r->t_ns, r->sport, r->dport, r->mode, r->round_start, r->lt_is_sampling,
		r->lt_rtt_cnt, r->lt_use_bw, r->app_limited, r->lt_bw, r->lt_last_delivered,
		r->lt_last_lost, r->lt_last_stamp, r->delivered, r->lost, r->cwnd, r->rtt_cnt,
		r->pacing_gain, r->bw, r->bw_t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bbrtrace OUT\n");
		return 2;
	}
	FILE *out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	struct bbrtrace_bpf *skel = bbrtrace_bpf__open_and_load();
	if (!skel || bbrtrace_bpf__attach(skel)) {
		fprintf(stderr, "bbrtrace: cannot load or attach the BPF program (root? BTF?)\n");
		return 1;
	}
	struct ring_buffer *rb = ring_buffer__new(bpf_map__fd(skel->maps.rb), handle, out, NULL);
	if (!rb) {
		fprintf(stderr, "bbrtrace: no ring buffer\n");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "bbrtrace: attached\n");
	while (!stop)
		ring_buffer__poll(rb, 200);
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	bbrtrace_bpf__destroy(skel);
	fclose(out);
	return 0;
}
