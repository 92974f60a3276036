// SPDX-License-Identifier: GPL-2.0
/*
 * rtspin: a real-time CPU hog in user mode, for the guest's liveness
 * scenarios (guest/tests/rtspin.sh).  Built static by guest/mkinitramfs.sh
 * (the busybox guest has no libc and no chrt).
 *
 *   rtspin CPU PRIO SECONDS
 *
 * pins itself to CPU, switches to SCHED_FIFO at PRIO (1..99) and spins in
 * user mode for SECONDS (1..600) without a system call in the loop but
 * the clock read (vDSO), then prints
 *
 *   rtspin: cpu=N prio=P secs=S loops=L ran_on=M
 *
 * (ran_on: the CPU it found itself on at the end).  Exit status 0, or 1
 * with a message on stderr if an argument is bad or a call failed (a
 * spinner that cannot be set up must never pass for one that ran).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(int argc, char **argv)
{
	struct sched_param sp;
	unsigned long loops = 0;
	double end;
	cpu_set_t set;
	long cpu, prio, secs;

	if (argc != 4) {
		fprintf(stderr, "usage: rtspin CPU PRIO SECONDS\n");
		return 1;
	}
	cpu = arg(argv[1], "CPU", 0, CPU_SETSIZE - 1);
	prio = arg(argv[2], "PRIO", 1, 99);
	secs = arg(argv[3], "SECONDS", 1, 600);

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "rtspin: sched_setaffinity(%ld): %s\n", cpu,
			strerror(errno));
		return 1;
	}
	memset(&sp, 0, sizeof(sp));
	sp.sched_priority = prio;
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "rtspin: sched_setscheduler(FIFO, %ld): %s\n",
			prio, strerror(errno));
		return 1;
	}
	end = now() + secs;
	while (now() < end)
		loops++;
	printf("rtspin: cpu=%ld prio=%ld secs=%ld loops=%lu ran_on=%d\n",
	       cpu, prio, secs, loops, sched_getcpu());
	return 0;
}
