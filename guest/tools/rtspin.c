// SPDX-License-Identifier: GPL-2.0
/*
 * rtspin: a real-time CPU hog in user mode, for the guest's liveness
 * scenarios (guest/tests/rtspin.sh, hogmore.sh).  Built static by
 * guest/mkinitramfs.sh (the busybox guest has no libc and no chrt).
 *
 *   rtspin CPU PRIO SECONDS [fifo|deadline]
 *
 * pins itself to CPU (-1: not pinned), switches to its policy and spins
 * in user mode for SECONDS (1..600) without a system call in the loop
 * but the clock read (vDSO), then prints one line.
 *
 * fifo (the default): SCHED_FIFO at PRIO (1..99);
 *
 *   rtspin: cpu=N prio=P secs=S loops=L ran_on=M
 *
 * deadline: SCHED_DEADLINE through the raw sched_setattr system call
 * (glibc has no wrapper), runtime PRIO ms (1..1000) of every 1000 ms,
 * deadline = period = 1000 ms;
 *
 *   rtspin: cpu=N policy=deadline runtime_ms=R period_ms=1000 secs=S loops=L ran_on=M
 *
 * A pinned deadline task needs admission control off on 6.1: with it on
 * (kernel.sched_rt_runtime_us >= 0), __sched_setscheduler() refuses
 * DEADLINE to a task whose affinity does not span its root domain
 * (EPERM), and dl_task_check_affinity() refuses to shrink a DEADLINE
 * task's affinity below it (EBUSY), so neither order works.  With
 * sched_rt_runtime_us = -1 both checks are skipped; the runtime is still
 * enforced (CBS throttling), only the admission test is gone.  Without
 * cpusets the root domain is every online CPU; hogmore.sh turns admission
 * off for its deadline case.
 *
 * ran_on: the CPU it found itself on at the end.  Exit status 0, or 1
 * with a message on stderr if an argument is bad or a call failed (a
 * spinner that cannot be set up must never pass for one that ran).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif

/* include/uapi/linux/sched/types.h, SCHED_ATTR_SIZE_VER0 */
struct rtspin_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;		/* ns */
	uint64_t sched_deadline;
	uint64_t sched_period;
};

#define PERIOD_MS	1000

static long arg(const char *s, const char *what, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "rtspin: invalid %s '%s': allowed %ld..%ld\n",
			what, s, lo, hi);
		exit(1);
	}
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int set_fifo(long prio)
{
	struct sched_param sp;

	memset(&sp, 0, sizeof(sp));
	sp.sched_priority = prio;
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "rtspin: sched_setscheduler(FIFO, %ld): %s\n",
			prio, strerror(errno));
		return -1;
	}
	return 0;
}

static int set_deadline(long runtime_ms, long cpu)
{
	struct rtspin_sched_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = SCHED_DEADLINE;
	a.sched_runtime = (uint64_t)runtime_ms * 1000000;
	a.sched_deadline = (uint64_t)PERIOD_MS * 1000000;
	a.sched_period = a.sched_deadline;
	if (syscall(SYS_sched_setattr, 0, &a, 0)) {
		fprintf(stderr, "rtspin: sched_setattr(DEADLINE %ld/%d ms) on cpu %ld: %s%s\n",
			runtime_ms, PERIOD_MS, cpu, strerror(errno),
			errno == EPERM && cpu >= 0 ?
			" (a pinned DEADLINE task needs kernel.sched_rt_runtime_us=-1)" : "");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long loops = 0;
	double end;
	cpu_set_t set;
	long cpu, prio, secs;
	int dl = 0;

	if (argc == 5 && !strcmp(argv[4], "deadline"))
		dl = 1;
	else if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "fifo"))) {
		fprintf(stderr, "usage: rtspin CPU PRIO SECONDS [fifo|deadline]\n");
		return 1;
	}
	cpu = arg(argv[1], "CPU", -1, CPU_SETSIZE - 1);
	prio = dl ? arg(argv[2], "runtime ms", 1, PERIOD_MS) :
		    arg(argv[2], "PRIO", 1, 99);
	secs = arg(argv[3], "SECONDS", 1, 600);

	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "rtspin: sched_setaffinity(%ld): %s\n", cpu,
				strerror(errno));
			return 1;
		}
	}
	if (dl ? set_deadline(prio, cpu) : set_fifo(prio))
		return 1;
	end = now() + secs;
	while (now() < end)
		loops++;
	if (dl)
		printf("rtspin: cpu=%ld policy=deadline runtime_ms=%ld period_ms=%d secs=%ld loops=%lu ran_on=%d\n",
		       cpu, prio, PERIOD_MS, secs, loops, sched_getcpu());
	else
		printf("rtspin: cpu=%ld prio=%ld secs=%ld loops=%lu ran_on=%d\n",
		       cpu, prio, secs, loops, sched_getcpu());
	return 0;
}
