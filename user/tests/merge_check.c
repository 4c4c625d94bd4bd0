// SPDX-License-Identifier: GPL-2.0
/*
 * merge_check.c - the merge's checker: real Go programs' traces merged
 * with random kernel views, every result held to what Go's reader takes
 *
 *   merge_check [-n SEEDS] [-s FIRST] [-k DIR] PROGRAM.trace...
 *
 * A recording gives the merge the intervals its machine happened to
 * have; hand-picked ones miss what a user's machine will have.  For
 * each program trace and each seed this makes a kernel view of the
 * program's threads (trace/kview.h) at random: stretches on a CPU and
 * off it, every kind of interval (runnable, blocked, asleep in a
 * syscall, unknown), from a microsecond to 50 us, 400 us, 3 ms or 25 ms
 * (the view's scale), starting before the program's trace and ending
 * after it, across its generations, around its own events and its Ps
 * taken by sysmon, at its last event, with kernel stacks, CPU samples
 * and syscall entries; then merges (go_merge.c) and requires
 * that the merged trace is one Go's reader takes (gotrace check's
 * replay of it) holding the program's events, every one, and the added
 * ones, no other (gt_go_merge_verify()), and that every region begun
 * was ended.  A failure prints the seed that makes it again.  -k DIR
 * keeps the first seed's merged trace of each program in DIR, for Go's
 * own readers (tests/merge_check_test.sh).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "go_merge.h"
#include "trace/base.h"
#include "trace/kview.h"

/* xorshift64*: the same views from the same seed, on every machine. */
static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* A length from 1 us to @max_us, as many short ones as long ones. */
static uint64_t length_ns(uint64_t max_us)
{
	uint64_t us = 1;

	for (uint64_t k = below(64) % 20; k-- && us < max_us;)
		us = us * 2 + below(us);
	return (us < max_us ? us : max_us) * 1000 + below(1000);
}

static const char *const funcs[] = {
	"io_schedule", "futex_wait_queue", "do_nanosleep", "pipe_read",
	"ep_poll", "__handle_mm_fault", "sys_read", "sys_futex",
	"schedule", "main.spin", "app [comm]",
};

static int add_str(struct gt_kview *kv, const char *s, uint32_t *id)
{
	if (gt_grow((void **)&kv->str, &kv->strcap, kv->nstr + 1,
		    sizeof(*kv->str)))
		return -1;
	kv->str[kv->nstr] = strdup(s);
	if (!kv->str[kv->nstr])
		return -1;
	*id = (uint32_t)kv->nstr++;
	return 0;
}

/* A random kernel stack (0 to 6 frames) into kv->frames. */
static int add_stack(struct gt_kview *kv, const uint32_t *names,
		     uint32_t *first, uint32_t *n)
{
	uint32_t k = (uint32_t)below(7);

	if (gt_grow((void **)&kv->frames, &kv->fcap, kv->nframes + k,
		    sizeof(*kv->frames)))
		return -1;
	*first = (uint32_t)kv->nframes;
	*n = k;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t f = (uint32_t)below(sizeof(funcs) / sizeof(funcs[0]));

		kv->frames[kv->nframes++] = (struct gt_kv_frame){
			.pc = 0xffffffff81000000ULL + f * 0x100 + below(0x100),
			.func = names[f],
			.file = below(2) ? names[f] : GT_KV_NONE,
			.line = below(2000),
		};
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* o->view: a random view of @tids over [@first, @last] and around it. */
static int random_view(void *arg, struct gt_kview *kv, const struct u64map *tids,
		       uint64_t first, uint64_t last, struct gt_trace_error *err)
{
	uint32_t names[sizeof(funcs) / sizeof(funcs[0])];
	uint64_t *ids = NULL, k, v, scale;
	size_t n = 0, cap = 0, i;

	(void)arg;
	memset(kv, 0, sizeof(*kv));
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (add_str(kv, funcs[i], &names[i]))
			goto oom;
	for (i = 0; u64map_next(tids, &i, &k, &v);) {
		if (gt_grow((void **)&ids, &cap, n + 1, sizeof(*ids)))
			goto oom;
		ids[n++] = k;
	}
	if (n > 1)
		qsort(ids, n, sizeof(*ids), cmp_u64);
	/* Each view its own scale: from dense microseconds to long waits. */
	scale = 50ULL << (3 * below(4));
	kv->first = first > 5000000 ? first - below(5000000) : 0;
	kv->last = last + below(5000000);
	for (i = 0; i < n; i++) {
		uint64_t t = kv->first + below(2000000);
		int64_t cpu = (int64_t)below(4);

		/*
		 * Some threads the recording never saw; not all of them,
		 * which the merge refuses (gomerge_test.sh checks that).
		 */
		if (i && !below(8))
			continue;
		kv->ntids_seen++;
		while (t < kv->last) {
			uint64_t run = length_ns(scale), off = length_ns(scale), r;
			struct gt_kv_span *s;

			if (!below(4))
				cpu = (int64_t)below(4);
			if (gt_grow((void **)&kv->runs, &kv->rcap, kv->nruns + 1,
				    sizeof(*kv->runs)))
				goto oom;
			kv->runs[kv->nruns++] = (struct gt_kv_run){ ids[i], t,
								    t + run, cpu };
			/* A sample now and then, not each run's: as a 1 kHz timer. */
			for (uint64_t sm = below(8 + 8 * 50000 / scale) < 8 ? 1 : 0; sm--;) {
				struct gt_kv_sample *p;

				if (gt_grow((void **)&kv->samples, &kv->smcap,
					    kv->nsamples + 1, sizeof(*kv->samples)))
					goto oom;
				p = &kv->samples[kv->nsamples];
				*p = (struct gt_kv_sample){ .tid = ids[i],
					.ts = t + below(run), .cpu = cpu };
				if (add_stack(kv, names, &p->frames, &p->nframes))
					goto oom;
				/* By time within the thread. */
				if (kv->nsamples && kv->samples[kv->nsamples - 1].tid == ids[i] &&
				    kv->samples[kv->nsamples - 1].ts > p->ts)
					p->ts = kv->samples[kv->nsamples - 1].ts;
				kv->nsamples++;
			}
			t += run;
			if (gt_grow((void **)&kv->spans, &kv->scap, kv->nspans + 1,
				    sizeof(*kv->spans)))
				goto oom;
			s = &kv->spans[kv->nspans++];
			*s = (struct gt_kv_span){ .tid = ids[i], .start = t,
				.end = t + off, .cpu = cpu, .reason = GT_KV_NONE,
				.waker_cpu = -1, .waker_name = GT_KV_NONE };
			/*
			 * The edge of the program's trace: an interval that
			 * begins at its last event, and ends after it.
			 */
			if (t < last && t + off > last && below(2))
				s->start = last;
			r = below(20);
			if (!r) {
				s->kind = GT_KV_UNKNOWN;
				kv->lost_windows++;
			} else if (r <= 5) {
				s->kind = GT_KV_BLOCKED;
				s->reason = names[below(4)];
				s->waker = below(2) ? ids[below(n)] : 0;
				s->waker_cpu = (int64_t)below(4);
				s->waker_name = names[10];
			} else if (r <= 9) {
				s->kind = GT_KV_SYSCALL;
				if (gt_grow((void **)&kv->enters, &kv->ecap,
					    kv->nenters + 2, sizeof(*kv->enters)))
					goto oom;
				kv->enters[kv->nenters++] = ids[i];
				kv->enters[kv->nenters++] = t - below(5000);
			} else {
				s->kind = GT_KV_RUNNABLE;
				for (int j = 0; j < GT_KV_RAN; j++)
					s->ran[j] = (struct gt_kv_ran){ ids[below(n)],
						below(off / GT_KV_RAN) + 1, names[10] };
				s->ran_all_ns = off;
			}
			if (s->kind != GT_KV_RUNNABLE &&
			    add_stack(kv, names, &s->frames, &s->nframes))
				goto oom;
			if (s->end >= kv->last) {
				s->end = kv->last;
				s->open = true;
			}
			t += off;
		}
	}
	free(ids);
	return 0;
oom:
	free(ids);
	snprintf(err->msg, sizeof(err->msg), "out of memory");
	return -1;
}

/* What the merges added, summed: a checker that adds nothing checks nothing. */
static uint64_t added_regions, added_samples, skipped, clamped;

/* One seed on one program trace; @keep: where to leave the result. */
static int check_one(const char *path, uint64_t seed, const char *keep)
{
	struct gt_merge_opts o = { .view = random_view };
	struct gt_merge_stats st;
	char tmp[] = "/tmp/merge_check.XXXXXX";
	struct gt_src prog;
	int fd, ret;
	FILE *f;

	rnd_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	o.min_ns = below(4) ? 0 : length_ns(1000);
	ret = gt_src_open(&prog, path);
	if (ret) {
		fprintf(stderr, "merge_check: %s: %s\n", path, strerror(-ret));
		return -1;
	}
	fd = mkstemp(tmp);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		perror("merge_check: a temporary file");
		gt_src_close(&prog);
		return -1;
	}
	ret = gt_go_merge(&prog, NULL, f, &o, &st);
	if (fclose(f))
		ret = -1;
	if (!ret)
		ret = gt_go_merge_verify(&prog, tmp, &st);
	if (!ret && st.added_begins != st.added_ends) {
		fprintf(stderr, "merge_check: %llu regions begun, %llu ended\n",
			(unsigned long long)st.added_begins,
			(unsigned long long)st.added_ends);
		ret = -1;
	}
	added_regions += st.added_begins;
	added_samples += st.added_samples;
	skipped += st.skipped;
	clamped += st.clamped;
	if (ret)
		fprintf(stderr, "merge_check: FAIL %s seed %llu (the merged trace: %s)\n",
			path, (unsigned long long)seed, tmp);
	else if (keep && rename(tmp, keep))
		ret = -1;
	else if (!keep)
		unlink(tmp);
	gt_src_close(&prog);
	return ret;
}

int main(int argc, char **argv)
{
	uint64_t seeds = 100, first = 1, merges = 0;
	const char *keep = NULL;
	int c, failed = 0;

	while ((c = getopt(argc, argv, "n:s:k:")) != -1) {
		switch (c) {
		case 'n':
			seeds = strtoull(optarg, NULL, 10);
			break;
		case 's':
			first = strtoull(optarg, NULL, 10);
			break;
		case 'k':
			keep = optarg;
			break;
		default:
			fprintf(stderr, "usage: merge_check [-n SEEDS] [-s FIRST] [-k DIR] PROGRAM.trace...\n");
			return 2;
		}
	}
	for (int a = optind; a < argc; a++) {
		for (uint64_t s = first; s < first + seeds; s++) {
			char out[4096];

			snprintf(out, sizeof(out), "%s/merge-check-%d.trace",
				 keep ? keep : ".", a - optind);
			if (check_one(argv[a], s, keep && s == first ? out : NULL))
				failed++;
			merges++;
		}
	}
	printf("merge_check: %llu merges of %d program traces, %d failed: %llu regions and %llu CPU samples added, %llu intervals without a goroutine, %llu regions ended early\n",
	       (unsigned long long)merges, argc - optind, failed,
	       (unsigned long long)added_regions,
	       (unsigned long long)added_samples,
	       (unsigned long long)skipped, (unsigned long long)clamped);
	return failed ? 1 : 0;
}
