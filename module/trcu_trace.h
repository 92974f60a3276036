/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trcu trace events (trace system "trcu", /sys/kernel/tracing/events/trcu/).
 * Instantiated in trace.c (CREATE_TRACE_POINTS); this out-of-tree module
 * keeps the header beside its sources, hence TRACE_INCLUDE_PATH "." and
 * -I$(src) for trace.o in Kbuild.  The flavour name is copied into each
 * event (__string), never stored as a pointer.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM trcu

#if !defined(_TRCU_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRCU_TRACE_H

#include <linux/tracepoint.h>
#include "compat.h"

/* The GP kthread started grace period @gpnum. */
TRACE_EVENT(trcu_gp_start,
	TP_PROTO(const char *flavor, long gpnum),
	TP_ARGS(flavor, gpnum),
	TP_STRUCT__entry(
		__string(flavor, flavor)
		__field(long, gpnum)
	),
	TP_fast_assign(
		trcu_assign_str(flavor, flavor);
		__entry->gpnum = gpnum;
	),
	TP_printk("%s gp %ld start", __get_str(flavor), __entry->gpnum)
);

/* Grace period @gpnum ended after @jiffies jiffies. */
TRACE_EVENT(trcu_gp_end,
	TP_PROTO(const char *flavor, long gpnum, unsigned long jiffies),
	TP_ARGS(flavor, gpnum, jiffies),
	TP_STRUCT__entry(
		__string(flavor, flavor)
		__field(long, gpnum)
		__field(unsigned long, jiffies)
	),
	TP_fast_assign(
		trcu_assign_str(flavor, flavor);
		__entry->gpnum = gpnum;
		__entry->jiffies = jiffies;
	),
	TP_printk("%s gp %ld end after %lu jiffies", __get_str(flavor),
		  __entry->gpnum, __entry->jiffies)
);

/* CPU @cpu reports its quiescent state for @gpnum to its leaf. */
TRACE_EVENT(trcu_qs_report,
	TP_PROTO(const char *flavor, int cpu, long gpnum),
	TP_ARGS(flavor, cpu, gpnum),
	TP_STRUCT__entry(
		__string(flavor, flavor)
		__field(int, cpu)
		__field(long, gpnum)
	),
	TP_fast_assign(
		trcu_assign_str(flavor, flavor);
		__entry->cpu = cpu;
		__entry->gpnum = gpnum;
	),
	TP_printk("%s cpu %d qs for gp %ld", __get_str(flavor), __entry->cpu,
		  __entry->gpnum)
);

/*
 * force_quiescent_state() pass for @gpnum: @snapshot (phase 1) or
 * compare; @credited CPUs credited (idle or offline), @nudged IPIed.
 */
TRACE_EVENT(trcu_fqs,
	TP_PROTO(const char *flavor, long gpnum, bool snapshot, int credited,
		 int nudged),
	TP_ARGS(flavor, gpnum, snapshot, credited, nudged),
	TP_STRUCT__entry(
		__string(flavor, flavor)
		__field(long, gpnum)
		__field(bool, snapshot)
		__field(int, credited)
		__field(int, nudged)
	),
	TP_fast_assign(
		trcu_assign_str(flavor, flavor);
		__entry->gpnum = gpnum;
		__entry->snapshot = snapshot;
		__entry->credited = credited;
		__entry->nudged = nudged;
	),
	TP_printk("%s gp %ld %s credited %d nudged %d", __get_str(flavor),
		  __entry->gpnum, __entry->snapshot ? "snapshot" : "force",
		  __entry->credited, __entry->nudged)
);

/* A CPU starts invoking a batch of callbacks (@qlen queued, @blimit). */
TRACE_EVENT(trcu_batch_start,
	TP_PROTO(const char *flavor, long qlen, long blimit),
	TP_ARGS(flavor, qlen, blimit),
	TP_STRUCT__entry(
		__string(flavor, flavor)
		__field(long, qlen)
		__field(long, blimit)
	),
	TP_fast_assign(
		trcu_assign_str(flavor, flavor);
		__entry->qlen = qlen;
		__entry->blimit = blimit;
	),
	TP_printk("%s qlen %ld blimit %ld", __get_str(flavor), __entry->qlen,
		  __entry->blimit)
);

/* ... and invoked @count of them. */
TRACE_EVENT(trcu_batch_end,
	TP_PROTO(const char *flavor, long count),
	TP_ARGS(flavor, count),
	TP_STRUCT__entry(
		__string(flavor, flavor)
		__field(long, count)
	),
	TP_fast_assign(
		trcu_assign_str(flavor, flavor);
		__entry->count = count;
	),
	TP_printk("%s invoked %ld", __get_str(flavor), __entry->count)
);

/*
 * A stall warning about @cpu for @gpnum (@self: self-detected); @cpu -1:
 * no CPU owes a QS and a report is still on its way up (see stall.c).
 */
TRACE_EVENT(trcu_stall,
	TP_PROTO(const char *flavor, int cpu, long gpnum, bool self),
	TP_ARGS(flavor, cpu, gpnum, self),
	TP_STRUCT__entry(
		__string(flavor, flavor)
		__field(int, cpu)
		__field(long, gpnum)
		__field(bool, self)
	),
	TP_fast_assign(
		trcu_assign_str(flavor, flavor);
		__entry->cpu = cpu;
		__entry->gpnum = gpnum;
		__entry->self = self;
	),
	TP_printk("%s %sdetected stall on cpu %d gp %ld", __get_str(flavor),
		  __entry->self ? "self-" : "", __entry->cpu, __entry->gpnum)
);

#endif /* _TRCU_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trcu_trace
#include <trace/define_trace.h>
