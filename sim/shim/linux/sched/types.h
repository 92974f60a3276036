/* SPDX-License-Identifier: GPL-2.0 */
/* Host simulator: every kernel header is the one shim (sim_kernel.h). */
#include "../../sim_kernel.h"
