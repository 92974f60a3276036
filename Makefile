# SPDX-License-Identifier: GPL-2.0
#
# trcu — top-level Makefile (out-of-tree kernel modules + test harness).
#
#   make                build module/trcu.ko and torture/*.ko against KDIR
#   make W=1            same, with the kernel's extra warnings
#   make MUTANT=name    build a deliberately broken trcu in build/mutant-<name>/
#                       (a scratch copy of the tree; the normal build is untouched)
#   make deps           install the Debian packages the build and the guest need
#   make check          unit tests, checkpatch, W=1 build, guest scenarios, mutants
#   make mutants        only the mutant runs listed in guest/mutants
#   make bench          trcu vs rcu/srcu benchmarks (~25 min): results/<timestamp>/
#                       bench.txt (targets as ratios), bench.csv, bench.png
#   make bench-smoke    every benchmark once, tiny counts (< 3 min); errors only
#   make clean
#
# Variables:
#   KVER  kernel version to build against.  Default: the version the Debian
#         metapackage linux-headers-amd64 depends on (never `uname -r`).
#   KDIR  kernel build tree.  Default: /lib/modules/$(KVER)/build
#   W     passed to kbuild (W=1 extra warnings)
#   MUTANT  mutant name; kbuild then sees TRCU_MUTANT_FLAG=-DTRCU_MUTANT_<NAME>
#         (upper-case).  module/Kbuild does `ccflags-y += $(TRCU_MUTANT_FLAG)`;
#         torture/ ignores it, so only trcu.ko changes.

SHELL := /bin/bash
TOP   := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# Resolved lazily (recursive `=`) so that `make deps` works before dpkg knows
# the headers package.
KVER_DEFAULT = $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 2>/dev/null | \
		grep -o 'linux-headers-[^ ,]*' | head -n 1 | sed 's/^linux-headers-//')
KVER ?= $(KVER_DEFAULT)
KDIR ?= /lib/modules/$(KVER)/build

KBUILD_ARGS = $(if $(W),W=$(W)) $(if $(V),V=$(V))

MUTANT_UPPER = $(shell echo '$(MUTANT)' | tr 'a-z-' 'A-Z_')
MUTANT_DIR   = $(TOP)/build/mutant-$(MUTANT)
# Tree copied for a mutant build: everything kbuild needs, nothing else.
MUTANT_SRCS  = Kbuild include module torture

.PHONY: all modules kdir-check mutant deps check mutants bench bench-smoke clean help

ifeq ($(strip $(MUTANT)),)
all modules: kdir-check
	$(MAKE) -C '$(KDIR)' M='$(TOP)' $(KBUILD_ARGS) modules
else
all modules: mutant
endif

kdir-check:
	@if [ -z '$(KVER)' ] && [ '$(origin KDIR)' = file ]; then \
		echo "error: cannot find the kernel version: is linux-headers-amd64 installed? (make deps, or KVER=/KDIR=)" >&2; exit 1; fi
	@if [ ! -d '$(KDIR)' ]; then \
		echo "error: kernel build tree '$(KDIR)' not found (make deps, or KDIR=)" >&2; exit 1; fi

mutant: kdir-check
	@case '$(MUTANT)' in *[!a-z0-9_]*) echo "error: bad MUTANT name '$(MUTANT)'" >&2; exit 1;; esac
	@mkdir -p '$(MUTANT_DIR)'
	@# Refresh the scratch copy (sources only; old objects are rebuilt when sources differ).
	@cd '$(TOP)' && for s in $(MUTANT_SRCS); do \
		[ -e "$$s" ] || continue; \
		rm -rf '$(MUTANT_DIR)'/"$$s"; cp -a "$$s" '$(MUTANT_DIR)/'; \
	done
	@find '$(MUTANT_DIR)' \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) -delete
	$(MAKE) -C '$(KDIR)' M='$(MUTANT_DIR)' $(KBUILD_ARGS) \
		TRCU_MUTANT_FLAG=-DTRCU_MUTANT_$(MUTANT_UPPER) modules
	@echo "mutant $(MUTANT): modules in $(MUTANT_DIR)/module and $(MUTANT_DIR)/torture"

deps:
	@'$(TOP)/scripts/deps.sh'

check:
	@'$(TOP)/scripts/check.sh'

mutants:
	@'$(TOP)/scripts/check.sh' --mutants

bench:
	@'$(TOP)/scripts/bench.sh'

bench-smoke:
	@'$(TOP)/scripts/bench.sh' --smoke

clean:
	@if [ -d '$(KDIR)' ]; then $(MAKE) -C '$(KDIR)' M='$(TOP)' clean; fi
	rm -rf '$(TOP)/build'
	find '$(TOP)/module' '$(TOP)/torture' \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name 'modules.order' \) -delete 2>/dev/null || true
	rm -f '$(TOP)/Module.symvers' '$(TOP)/modules.order'

help:
	@sed -n '3,25p' '$(TOP)/Makefile' | sed 's/^# \{0,1\}//'
