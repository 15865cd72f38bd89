#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pasta_chroot.sh - run Debian 13's pasta (upstream passt 2025) from the
# check-clients chroot, for make bench's "upstream" implementation: the
# chroot's glibc is newer than the machine's, so it can't run outside.
#
# A private mount namespace makes the chroot a mount point (upstream's
# sandbox needs one for pivot_root) and shows it /proc, /dev, /tmp and
# /run/netns.  Each step execs the next, so the PID the caller sees is
# pasta's own (its CPU time and RSS are measured by that PID).
#
# CHROOT (default /var/cache/passt-clients/trixie, from make check-clients)
T=${CHROOT:-/var/cache/passt-clients/trixie}
[ -x "$T/usr/bin/pasta" ] || { echo "no pasta in $T (make check-clients builds it)" >&2; exit 1; }
exec unshare -m --propagation private sh -c '
T=$1; shift
mount --bind "$T" "$T" && mount --rbind /proc "$T/proc" &&
mount --rbind /dev "$T/dev" && mkdir -p "$T/run/netns" &&
mount --rbind /run/netns "$T/run/netns" && mount --rbind /tmp "$T/tmp" &&
exec chroot "$T" /usr/bin/pasta "$@"' sh "$T" "$@"
