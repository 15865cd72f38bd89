# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# shellcheck disable=SC2154 # here, LOGDIR, ...: set by run.sh, which sources this
# test/clients/rootlesskit_pesto.sh - rootlesskit's pesto port driver
# (--port-driver=pesto, rootlesskit PRs #616 and #629), built from a
# rootlesskit tree (sourced by run.sh)
#
# RK_GIT: a git directory of rootlesskit (default the mirror this project
# reads), RK_REV its revision (default master).  Debian 13's rootlesskit
# (2.0) has no such driver, so the tree is built in the chroot with
# trixie-backports' Go 1.25 (rootlesskit's go.mod asks for 1.25), into
# /opt/rootlesskit-src, a scratch directory never part of this tree.
#
# What stops it today (December 2026, recorded in test/clients/README.md):
# the stored rootlesskit snapshot ends at master 2026-06-19 (e780dd3, the
# newest pull request ref #603): it has no pesto driver (no pkg/port/pesto,
# no "pesto" anywhere); and rootlesskit vendors no modules, which "go build"
# then fetches from proxy.golang.org, a name this machine can't resolve.
# Each of the two is reported as its own row, with the command's error.

RK_GIT=${RK_GIT:-/work/.mirror/rootless-containers+rootlesskit/repo}
RK_REV=${RK_REV:-master}
RKSRC=/opt/rootlesskit-src
GO125=/usr/lib/go-1.25/bin
: > "$LOGDIR/rootlesskit_pesto.log"

rk_pesto() {
	if ! rev=$(git --git-dir="$RK_GIT" rev-parse --short "$RK_REV" 2>/dev/null); then
		result rootlesskit "pesto driver: rootlesskit tree" SKIP "no git directory at $RK_GIT (RK_GIT)"
		return
	fi
	when=$(git --git-dir="$RK_GIT" log -1 --format=%cs "$RK_REV")
	if ! git --git-dir="$RK_GIT" grep -qi pesto "$RK_REV" -- pkg cmd; then
		result rootlesskit "pesto driver in rootlesskit $rev ($when)" SKIP \
			"no pesto port driver in this tree (PRs #616/#629 not in it)"
		have_driver=0
	else
		have_driver=1
	fi
	[ -x "$ROOT$GO125/go" ] || {
		result rootlesskit "pesto driver: build" SKIP "no Go 1.25 in the chroot (golang-1.25-go, trixie-backports)"
		return
	}
	rm -rf "$ROOT$RKSRC"; mkdir -p "$ROOT$RKSRC"
	git --git-dir="$RK_GIT" archive "$RK_REV" | tar -C "$ROOT$RKSRC" -xf -
	flags=
	[ -d "$ROOT$RKSRC/vendor" ] && flags=-mod=vendor
	# Bounded: without a module proxy it fails within seconds
	in_chroot sh -c "cd $RKSRC && env PATH=$GO125:/usr/bin:/bin HOME=/root \
		GOTOOLCHAIN=local GOFLAGS=$flags timeout 600 go build \
		-o bin/rootlesskit ./cmd/rootlesskit" >> "$LOGDIR/rootlesskit_pesto.log" 2>&1
	# shellcheck disable=SC2181 # the command above is too long for an if
	if [ $? -ne 0 ]; then
		why=$(grep -m1 -o 'Get "https://proxy.golang.org[^"]*": dial tcp: lookup [^:]*' \
			"$LOGDIR/rootlesskit_pesto.log" | sed 's/^Get "\([^"]*\)".*/no vendor\/, module fetch fails: \1/')
		[ -n "$why" ] && why="$why ($(grep -c 'proxy.golang.org' "$LOGDIR/rootlesskit_pesto.log") modules)"
		result rootlesskit "pesto driver: go build ./cmd/rootlesskit ($rev)" ENV \
			"${why:-see $LOGDIR/rootlesskit_pesto.log}"
		return
	fi
	if [ "$have_driver" = 0 ]; then
		result rootlesskit "pesto driver: go build ./cmd/rootlesskit ($rev)" PASS "built, but without the driver"
		return
	fi
	result rootlesskit "pesto driver: built from $rev" PASS
	result rootlesskit "pesto driver: --port-driver=pesto run" SKIP \
		"not scripted yet: no tree with the driver was available to script it against"
}
rk_pesto
