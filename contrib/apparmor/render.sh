#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# render.sh - a profile of contrib/apparmor as installed
#
# Usage: render.sh ABI BINDIR < SOURCE > PROFILE
#
# @BINDIR@ becomes BINDIR (profiles attach to the installed binaries).
# For ABI 3.0 (AppArmor 3.x: Debian 12, Ubuntu 22.04), the profile declares
# that ABI and loses the lines tagged "abi-4.0-only": a 3.x parser refuses
# the "userns" rule, which 4.x kernels need for an unprivileged process to
# create a user namespace.  Used by "make install" and test/lsm/check.sh.

case "${1:-}" in
4.0)	exec sed -e "s|@BINDIR@|$2|g" ;;
3.0)	exec sed -e "s|@BINDIR@|$2|g" -e '/abi-4\.0-only/d' \
		 -e 's|abi <abi/4\.0>|abi <abi/3.0>|' ;;
*)	echo "usage: $0 4.0|3.0 BINDIR < SOURCE > PROFILE" >&2; exit 2 ;;
esac
