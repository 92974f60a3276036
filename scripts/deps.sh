#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages trcu's build, guest and checks need.
# Does nothing when all are present; runs `apt-get update` only when an
# install from the current package lists fails (or there are no lists).
set -u

PKGS="linux-image-amd64 linux-headers-amd64 linux-source-6.1 gcc make
qemu-system-x86 busybox-static cpio bc flex bison libelf-dev libssl-dev
dwarves xz-utils kmod perl python3 sparse gnuplot-nox spin python3-docutils
patch libc6-dev"

missing=()
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done

# The metapackages pull in the versioned image and headers; make sure the
# versioned packages they depend on are really there too.
for meta in linux-image-amd64 linux-headers-amd64; do
	dep=$(dpkg-query -W -f='${Depends}' "$meta" 2>/dev/null |
		grep -o 'linux-[a-z]*-[0-9][^ ,]*' | head -n 1)
	[ -n "$dep" ] || continue
	st=$(dpkg-query -W -f='${db:Status-Status}' "$dep" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$dep")
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "deps: all packages present"
	exit 0
fi

echo "deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
install() {
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" </dev/null
}
lists=$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' 2>/dev/null | head -n 1)
if [ -z "$lists" ] || ! install; then
	echo "deps: refreshing package lists (apt-get update)"
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null || exit 1
	install || { echo "deps: apt-get install failed" >&2; exit 1; }
fi
echo "deps: done"
