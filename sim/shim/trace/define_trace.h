/* SPDX-License-Identifier: GPL-2.0 */
/* Host simulator: trace events are no-ops (sim_kernel.h). */
