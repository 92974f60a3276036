// SPDX-License-Identifier: GPL-2.0
/* trcu trace events: the one place they are instantiated. */
#define CREATE_TRACE_POINTS
#include "trcu_trace.h"
