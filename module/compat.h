/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trcu compat: the kernel-version and architecture differences trcu
 * depends on, in one place.  Built against Debian's 6.1 and 6.12.
 */
#ifndef _TRCU_COMPAT_H
#define _TRCU_COMPAT_H

#include <linux/version.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <asm/preempt.h>

#ifndef CONFIG_X86
#error "trcu: the NMI-reader rule reads x86's per-CPU preempt count"
#endif

/*
 * The preempt count of what @cpu runs right now, read from another CPU.
 * x86 keeps it in a per-CPU variable (not in thread_info), so it shows
 * an NMI in progress there: nmi_enter() adds NMI_OFFSET before any NMI
 * handler runs and nmi_exit() removes it after the last.  6.2 moved the
 * variable into struct pcpu_hot.
 */
static inline int trcu_remote_preempt_count(int cpu)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return READ_ONCE(per_cpu(pcpu_hot.preempt_count, cpu));
#else
	return READ_ONCE(per_cpu(__preempt_count, cpu));
#endif
}

/*
 * Trace events: 6.10 dropped __assign_str()'s source argument (it is
 * taken from the event's __string() field now).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define trcu_assign_str(dst, src)	__assign_str(dst)
#else
#define trcu_assign_str(dst, src)	__assign_str(dst, src)
#endif

#endif /* _TRCU_COMPAT_H */
