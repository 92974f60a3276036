# SPDX-License-Identifier: GPL-2.0
#
# trcu — top-level Makefile (out-of-tree kernel modules + test harness).
#
#   make                build module/trcu.ko and torture/*.ko against KDIR
#   make W=1            same, with the kernel's extra warnings
#   make MUTANT=name    build a deliberately broken trcu in build/mutant-<name>/:
#                       a scratch copy of the tree with tests/mutants/<name>.patch
#                       applied (the normal build is untouched)
#   make deps           install the Debian packages the build and the guest need
#   make check          unit tests, checkpatch, W=1 build, guest scenarios, mutants
#   make mutants        only the mutant runs listed in guest/mutants
#   make objgraph       build, print trcu.ko's object graph, fail on a cycle
#   make sim            the engine in the host simulator (sim/trcu-sim) at 8..8192
#                       CPUs: results/sim-<timestamp>/sim.txt, sim.csv, sim.png
#   make sim-check      the simulator's randomized property test (a make check item)
#   make sim-mutants    every engine mutant against the simulator: caught or not
#   make deps-6.12      install Debian 12's newest 6.12 kernel image + headers
#   make check-6.12     build against 6.12 and run the TREE scenarios on it
#                       (optional: `make check` needs only the 6.1 packages)
#   make soak           every torture scenario for SOAK_DURATION s (1800), 2 at a time
#   make debug-kernel   build the lockdep/KASAN/kmemleak guest kernel (cached in
#                       ~/.cache/trcu/debug/, see scripts/debug-kernel.sh)
#   make debug-modules  build the modules for it in build/debug/
#   make bench          trcu vs rcu/srcu benchmarks (~25 min): results/<timestamp>/
#                       bench.txt (targets as ratios), bench.csv, bench.png
#   make bench-smoke    every benchmark once, tiny counts (< 3 min); errors only
#   make bench-icount   only the instruction-counted part of make bench (hook
#                       tax, read costs under QEMU -icount; two boots)
#   make clean
#
# Variables:
#   KVER  kernel version to build against.  Default: the version the Debian
#         metapackage linux-headers-amd64 depends on (never `uname -r`).
#   KDIR  kernel build tree.  Default: /lib/modules/$(KVER)/build
#   KVER_612  the 6.12 kernel check-6.12 uses.  Default: the newest
#         /lib/modules/6.12.*-amd64/build installed (make deps-6.12).
#   CHECK_612_SCENARIOS, CHECK_612_DURATION  check-6.12's list (TREE01..15)
#         and seconds per scenario (30).  SOAK_DURATION, SOAK_SCENARIOS  soak's
#         seconds per scenario (1800) and list (all).
#   W     passed to kbuild (W=1 extra warnings)
#   MUTANT  mutant name: tests/mutants/<name>.patch (a `diff -u` against the
#         tree, applied with patch -p1) breaks trcu on purpose; the shipped
#         sources carry no mutant code.

SHELL := /bin/bash
TOP   := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# Resolved lazily (recursive `=`) so that `make deps` works before dpkg knows
# the headers package.
KVER_DEFAULT = $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 2>/dev/null | \
		grep -o 'linux-headers-[^ ,]*' | head -n 1 | sed 's/^linux-headers-//')
KVER ?= $(KVER_DEFAULT)
KDIR ?= /lib/modules/$(KVER)/build

KBUILD_ARGS = $(if $(W),W=$(W)) $(if $(V),V=$(V))

MUTANT_PATCH = $(TOP)/tests/mutants/$(MUTANT).patch
MUTANT_DIR   = $(TOP)/build/mutant-$(MUTANT)
# Tree copied for a mutant build: everything kbuild needs, nothing else.
MUTANT_SRCS  = Kbuild include module torture examples

# Optional second kernel: Debian 12 (bookworm-security) ships 6.12 as
# linux-image-6.12.N+deb12-amd64 (the newest often only as ...-unsigned at
# first: same kernel, no Secure Boot signature, which QEMU does not need).
# Newest installed headers, by version.
KVER_612 ?= $(shell ls -d /lib/modules/6.12.*-amd64/build 2>/dev/null | \
		cut -d/ -f4 | grep -v -e cloud -e rt | sort -V | tail -n 1)
CHECK_612_SCENARIOS ?= TREE01,TREE02,TREE03,TREE04,TREE05,TREE06,TREE07,TREE08,TREE09,TREE10,TREE11,TREE12,TREE13,TREE14,TREE15
CHECK_612_DURATION ?= 30
SOAK_DURATION ?= 1800
SOAK_SCENARIOS ?=
SOAK_JOBS ?= 2

.PHONY: all modules kdir-check mutant deps check mutants clean help debug-kernel debug-modules
.PHONY: objgraph sim sim-check sim-mutants
.PHONY: bench bench-smoke bench-icount
.PHONY: deps-6.12 check-6.12 soak

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
	@[ -f '$(MUTANT_PATCH)' ] || { echo "error: no mutant '$(MUTANT)': tests/mutants/$(MUTANT).patch missing" >&2; exit 1; }
	@mkdir -p '$(MUTANT_DIR)'
	@# Refresh the scratch copy (sources only; old objects are rebuilt when sources differ).
	@cd '$(TOP)' && for s in $(MUTANT_SRCS); do \
		[ -e "$$s" ] || continue; \
		rm -rf '$(MUTANT_DIR)'/"$$s"; cp -a "$$s" '$(MUTANT_DIR)/'; \
	done
	@find '$(MUTANT_DIR)' \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) -delete
	@patch --fuzz=0 -s -p1 -d '$(MUTANT_DIR)' <'$(MUTANT_PATCH)' || \
		{ echo "error: tests/mutants/$(MUTANT).patch no longer applies" >&2; exit 1; }
	$(MAKE) -C '$(KDIR)' M='$(MUTANT_DIR)' $(KBUILD_ARGS) modules
	@echo "mutant $(MUTANT): modules in $(MUTANT_DIR)/module and $(MUTANT_DIR)/torture"

deps:
	@'$(TOP)/scripts/deps.sh'

# The debug kernel (built once per source version and guest/debug.config)
# and a copy of the module sources built against its O= tree: the objects in
# module/ and torture/ stay those of the stock build.
DEBUG_DIR = $(TOP)/build/debug
debug-kernel:
	@'$(TOP)/scripts/debug-kernel.sh'

debug-modules:
	@out=$$('$(TOP)/scripts/debug-kernel.sh') || exit 1; \
	mkdir -p '$(DEBUG_DIR)' && \
	tar -C '$(TOP)' -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='modules.order' \
		--exclude='Module.symvers' $(MUTANT_SRCS) | tar -C '$(DEBUG_DIR)' -xpf - && \
	$(MAKE) -C "$$out/build" M='$(DEBUG_DIR)' $(KBUILD_ARGS) modules

check:
	@'$(TOP)/scripts/check.sh'

objgraph: all
	@'$(TOP)/scripts/objgraph-check.sh'

mutants:
	@'$(TOP)/scripts/check.sh' --mutants

# Host only: no kernel tree needed (sim/Makefile builds the engine files
# against sim/shim/).
sim:
	@'$(TOP)/scripts/sim-plot.sh'

sim-check:
	@'$(TOP)/scripts/sim-check.sh'

sim-mutants:
	@'$(TOP)/scripts/sim-mutants.sh'

deps-6.12:
	@v=$$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$$' | \
		awk '{ print $$1 }' | sed 's/^linux-headers-//' | sort -V | tail -n 1); \
	if [ -z "$$v" ]; then echo "error: no linux-headers-6.12.*+deb12-amd64 in apt (apt-get update?)" >&2; exit 1; fi; \
	img="linux-image-$$v"; \
	apt-cache search --names-only "^$$img\$$" | grep -q . || img="linux-image-$$v-unsigned"; \
	echo "installing kernel $$v ($$img)"; \
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		"$$img" "linux-headers-$$v"

# The modules are rebuilt in place for 6.12 (a later plain `make` rebuilds
# them for 6.1: kbuild sees the changed command lines).
check-6.12:
	@if [ -z '$(KVER_612)' ] || [ ! -r '/boot/vmlinuz-$(KVER_612)' ]; then \
		echo "error: no 6.12 kernel installed (make deps-6.12)" >&2; exit 1; fi
	KVER='$(KVER_612)' '$(TOP)/run-qemu.sh' --no-deps --quiet \
		--scenario '$(CHECK_612_SCENARIOS)' --duration $(CHECK_612_DURATION)

# Long runs, not part of `make check`: every torture scenario (or
# SOAK_SCENARIOS=A,B) for SOAK_DURATION seconds, SOAK_JOBS guests at a time
# (scripts/soak.sh).  Results in results/soak-<timestamp>/.
soak:
	SOAK_DURATION='$(SOAK_DURATION)' SOAK_SCENARIOS='$(SOAK_SCENARIOS)' SOAK_JOBS='$(SOAK_JOBS)' \
		'$(TOP)/scripts/soak.sh'

bench:
	@'$(TOP)/scripts/bench.sh'

bench-smoke:
	@'$(TOP)/scripts/bench.sh' --smoke

bench-icount:
	@'$(TOP)/scripts/bench.sh' --icount

clean:
	@if [ -d '$(KDIR)' ]; then $(MAKE) -C '$(KDIR)' M='$(TOP)' clean; fi
	rm -rf '$(TOP)/build'
	$(MAKE) -C '$(TOP)/sim' clean
	find '$(TOP)/module' '$(TOP)/torture' \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name 'modules.order' \) -delete 2>/dev/null || true
	rm -f '$(TOP)/Module.symvers' '$(TOP)/modules.order'

help:
	@awk 'NR > 2 && !/^#/ { exit } NR > 2' '$(TOP)/Makefile' | sed 's/^# \{0,1\}//'
