// SPDX-License-Identifier: GPL-2.0 OR MIT
// BBR's long-term ("policer") sampling state on the real stack, for
// scenarios/linux-check/bbrlt.py. A raw tracepoint on tcp:tcp_probe (at
// the top of tcp_rcv_established, so before each incoming segment is
// processed) reads a BBR socket's `struct bbr` (tcp_bbr.c, Linux 6.x:
// the mode/lt_* bit fields follow cycle_mstamp; pacing_gain is the low
// 10 bits of the word after lt_last_lost) and tcp_sock's delivered and
// lost, and emits a record whenever the mode, the long-term state, the
// round count or tp->lost changed. fentry would see bbr_main itself, but
// this kernel refuses tracing programs; the tracepoint sees the state
// one segment later, the same sequence of states.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

// GPL-compatible for the kernel (bpf_probe_read_kernel is GPL-only).
char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct rec {
	u64 t_ns;
	u16 sport, dport;
	u8 mode, round_start, lt_is_sampling, lt_rtt_cnt;
	u8 lt_use_bw, app_limited, pad1, pad2;
	u32 lt_bw, lt_last_delivered, lt_last_lost, lt_last_stamp;
	u32 delivered, lost, cwnd, rtt_cnt, pacing_gain, bw, bw_t;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, u64);
	__type(value, u64);
} prev SEC(".maps");

#define RD(dst, p, field) bpf_probe_read_kernel(&(dst), sizeof(dst), &((p)->field))

SEC("raw_tracepoint/tcp_probe")
int on_probe(struct bpf_raw_tracepoint_args *ctx)
{
	struct sock *sk = (struct sock *)ctx->args[0];
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;
	const struct tcp_congestion_ops *ops;
	char name[4];
	struct bbr b;
	u32 bits, lost, delivered, al, cw;
	u16 num;
	__be16 dp;

	// The emulator's senders bind 10000 + the flow's number; the
	// receivers (5001) are left at once, so that their segments cost
	// the tracepoint's call alone.
	RD(num, sk, __sk_common.skc_num);
	if (num < 10000 || num >= 60000)
		return 0;
	RD(ops, icsk, icsk_ca_ops);
	bpf_probe_read_kernel(name, 4, ops->name);
	if (name[0] != 'b' || name[1] != 'b' || name[2] != 'r' || name[3] != 0)
		return 0;
	bpf_probe_read_kernel(&b, sizeof(b), (void *)icsk->icsk_ca_priv);
	bits = *(u32 *)((void *)&b + offsetof(struct bbr, cycle_mstamp) + 8);
	RD(lost, tp, lost);
	RD(delivered, tp, delivered);

	u64 key = (u64)sk;
	u64 state = ((u64)(bits & 0xff800007) << 32) ^ ((u64)b.rtt_cnt << 16) ^ lost;
	u64 *p = bpf_map_lookup_elem(&prev, &key);
	if (p && *p == state)
		return 0;
	bpf_map_update_elem(&prev, &key, &state, BPF_ANY);

	struct rec *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r)
		return 0;
	r->t_ns = bpf_ktime_get_ns();
	RD(dp, sk, __sk_common.skc_dport);
	r->sport = num;
	r->dport = bpf_ntohs(dp);
	r->mode = bits & 7;
	r->round_start = (bits >> 7) & 1;
	r->lt_is_sampling = (bits >> 23) & 1;
	r->lt_rtt_cnt = (bits >> 24) & 0x7f;
	r->lt_use_bw = (bits >> 31) & 1;
	RD(al, tp, app_limited);
	r->app_limited = al != 0;
	r->pad1 = 0;
	r->pad2 = 0;
	r->lt_bw = b.lt_bw;
	r->lt_last_delivered = b.lt_last_delivered;
	r->lt_last_lost = b.lt_last_lost;
	r->lt_last_stamp = b.lt_last_stamp;
	r->delivered = delivered;
	r->lost = lost;
	RD(cw, tp, snd_cwnd);
	r->cwnd = cw;
	r->rtt_cnt = b.rtt_cnt;
	r->pacing_gain = *(u32 *)((void *)&b + offsetof(struct bbr, lt_last_lost) + 4) & 0x3ff;
	r->bw = b.bw.s[0].v;
	r->bw_t = b.bw.s[0].t;
	bpf_ringbuf_submit(r, 0);
	return 0;
}
