#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/lsm/check.sh - our AppArmor profiles and SELinux modules, checked by
# the tools that load them ("make check-lsm", part of "make check")
#
# AppArmor (contrib/apparmor): for each ABI this system's apparmor package
# knows (/etc/apparmor.d/abi/4.0, 3.0), the profiles as "make install"
# writes them are compiled by apparmor_parser (-Q: nothing is loaded), with
# our abstractions in front of the system's; then test/lsm/aa_paths.py
# matches the paths the daemon opens against the file rules.
#
# SELinux (contrib/selinux): the three modules are built into .pp packages
# with the reference policy's development Makefile (m4, checkmodule,
# semodule_package; Debian's selinux-policy-dev), warnings count as errors;
# passt_common_rules must grant every capability the daemon uses.
#
# Each part also shows it can fail: a broken profile, a profile without
# /dev/net/tun and a module with an unknown permission must be refused.
#
# Nothing here is enforced: that needs a kernel with AppArmor or SELinux
# active, which the machines this runs on usually lack (see README.md).
#
# Environment: APPARMOR_DIR (default /etc/apparmor.d), SELINUX_DEVEL
# (default /usr/share/selinux/devel), BINDIR (default /usr/bin).
# Exit status: 0 if nothing failed (parts whose tools are missing are
# skipped, and say so), 1 otherwise.

set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
APPARMOR_DIR=${APPARMOR_DIR:-/etc/apparmor.d}
SELINUX_DEVEL=${SELINUX_DEVEL:-/usr/share/selinux/devel}
BINDIR=${BINDIR:-/usr/bin}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lsm-check.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

PROFILES="usr.bin.passt usr.bin.pasta usr.bin.pesto"
ABSTRACTIONS="passt pasta"
pass=0 fail=0 skip=0

ok()   { pass=$((pass + 1)); echo "lsm: ok   $*"; }
bad()  { fail=$((fail + 1)); echo "lsm: FAIL $*"; }
skipped() { skip=$((skip + 1)); echo "lsm: skip $*"; }

# aa_tree() - profiles for one ABI over the system's tunables and other
# abstractions, ours replacing any installed ones of the same name
# $1: ABI, $2: directory to fill
aa_tree() {
	mkdir -p "$2/abstractions"
	for f in "$APPARMOR_DIR"/abstractions/*; do
		n=${f##*/}
		case " $ABSTRACTIONS " in *" $n "*) continue ;; esac
		ln -s "$f" "$2/abstractions/$n"
	done
	for d in tunables abi; do ln -s "$APPARMOR_DIR/$d" "$2/$d"; done
	mkdir -p "$2/local"		# "include if exists <local/...>"
	for n in $ABSTRACTIONS; do
		"$SRC/contrib/apparmor/render.sh" "$1" "$BINDIR" \
			< "$SRC/contrib/apparmor/abstractions/$n" \
			> "$2/abstractions/$n" || return 1
	done
	for p in $PROFILES; do
		"$SRC/contrib/apparmor/render.sh" "$1" "$BINDIR" \
			< "$SRC/contrib/apparmor/$p" > "$2/$p" || return 1
	done
}

# aa_parse() - compile one profile, loading nothing
# $1: tree, $2: profile file; output on failure in $TMP/aa.err
aa_parse() {
	apparmor_parser -QTK $AA_FEATURES -b "$1" -I "$1" "$1/$2" \
		> "$TMP/aa.err" 2>&1 || return 1
	# only the notice that there's no AppArmor in this kernel is expected
	! grep -v 'Cache read/write disabled' "$TMP/aa.err" | grep -q .
}

check_apparmor() {
	if ! command -v apparmor_parser >/dev/null 2>&1; then
		skipped "AppArmor: no apparmor_parser (Debian package apparmor)"
		return
	fi
	AA_FEATURES=
	[ -f /usr/share/apparmor-features/features ] &&
		AA_FEATURES="-M /usr/share/apparmor-features/features"
	abis=
	for a in 4.0 3.0; do
		[ -e "$APPARMOR_DIR/abi/$a" ] && abis="$abis $a"
	done
	if [ -z "$abis" ]; then
		skipped "AppArmor: no $APPARMOR_DIR/abi/4.0 or 3.0"
		return
	fi
	echo "lsm: $(apparmor_parser --version | head -1), ABIs:$abis"

	for a in $abis; do
		t="$TMP/aa-$a"
		aa_tree "$a" "$t" || { bad "ABI $a: rendering"; continue; }
		for p in $PROFILES; do
			if aa_parse "$t" "$p"; then
				ok "ABI $a: apparmor_parser compiles $p"
			else
				bad "ABI $a: apparmor_parser on $p:"
				sed 's/^/    /' "$TMP/aa.err"
			fi
			apparmor_parser -p -b "$t" -I "$t" "$t/$p" \
				> "$t/$p.pp" 2>/dev/null
		done
		# our abstractions, not installed ones, were included
		if grep -q 'passt-root' "$t/usr.bin.pasta.pp"; then
			ok "ABI $a: profiles include our abstractions"
		else
			bad "ABI $a: pasta doesn't include our abstractions"
		fi
		PY_ARGS="$PY_ARGS --apparmor $t"
	done

	# The checks can fail: a syntax error, and a pasta without the tap
	first=${abis# }
	first=${first%% *}
	t="$TMP/aa-$first"
	sed 's|/dev/net/tun\([[:space:]]*\)rw,|/dev/net/tun \1 rw|' \
		"$t/abstractions/pasta" > "$TMP/pasta.broken"
	mv "$TMP/pasta.broken" "$t/abstractions/pasta"
	if aa_parse "$t" usr.bin.pasta; then
		bad "apparmor_parser accepts a rule without its comma"
	else
		ok "apparmor_parser refuses a rule without its comma"
	fi
	b="$TMP/aa-broken"
	cp -R "$t" "$b"
	"$SRC/contrib/apparmor/render.sh" "$first" "$BINDIR" \
		< "$SRC/contrib/apparmor/abstractions/pasta" |
		grep -v '/dev/net/tun' > "$b/abstractions/pasta"
	apparmor_parser -p -b "$b" -I "$b" "$b/usr.bin.pasta" \
		> "$b/usr.bin.pasta.pp" 2>/dev/null
	PY_ARGS="$PY_ARGS --broken $b"
}

# se_build() - build modules with the development Makefile
# $1: directory with the sources, $2...: packages to build
se_build() {
	d=$1
	shift
	name=
	grep -qs '^SELINUXTYPE=' /etc/selinux/config || name="NAME=default"
	make -s -C "$d" -f "$SELINUX_DEVEL/Makefile" $name "$@" \
		> "$TMP/se.err" 2>&1 || return 1
	! grep -qi 'warning\|error' "$TMP/se.err"
}

check_selinux() {
	if [ ! -f "$SELINUX_DEVEL/Makefile" ]; then
		if command -v checkmodule >/dev/null 2>&1; then
			skipped "SELinux: checkmodule is there but not the" \
				"reference policy headers ($SELINUX_DEVEL," \
				"Debian package selinux-policy-dev)"
		else
			skipped "SELinux: no $SELINUX_DEVEL/Makefile" \
				"(Debian packages selinux-policy-dev, checkpolicy," \
				"semodule-utils)"
		fi
		return
	fi
	d="$TMP/se"
	mkdir -p "$d"
	for f in "$SRC"/contrib/selinux/*.te "$SRC"/contrib/selinux/*.if \
		 "$SRC"/contrib/selinux/*.fc; do
		sed "s|@BINDIR@|$BINDIR|g" "$f" > "$d/${f##*/}"
	done
	echo "lsm: $(checkmodule -V 2>&1 | head -1 | sed 's/^/checkmodule: /')"
	if se_build "$d" passt.pp pasta.pp pesto.pp; then
		for m in passt pasta pesto; do
			if [ -s "$d/$m.pp" ]; then
				ok "SELinux: $m.pp built (m4, checkmodule," \
				   "semodule_package)"
			else
				bad "SELinux: no $m.pp"
			fi
		done
	else
		bad "SELinux: building passt.pp pasta.pp pesto.pp:"
		sed 's/^/    /' "$TMP/se.err"
	fi
	# Labels of the installed binaries
	for m in passt pasta pesto; do
		if grep -q "^$BINDIR/$m[[:space:]].*${m}_exec_t" "$d/$m.fc"; then
			ok "SELinux: $BINDIR/$m is ${m}_exec_t"
		else
			bad "SELinux: $m.fc doesn't label $BINDIR/$m"
		fi
	done
	# Every set-up capability is granted (passt_common_rules)
	PY_ARGS="$PY_ARGS --selinux $SRC/contrib/selinux/passt.if"
	# The build can fail: a permission the process class doesn't have
	printf 'allow pesto_t self:process no_such_permission;\n' >> "$d/pesto.te"
	rm -f "$d/pesto.pp"
	if se_build "$d" pesto.pp; then
		bad "SELinux: a module with an unknown permission builds"
	else
		ok "SELinux: a module with an unknown permission is refused"
	fi
}

# aa_paths.py, once for all its checks (python starts slowly on a busy
# machine): one summary line for each group, failures under them
check_paths() {
	[ -n "$PY_ARGS" ] || return
	python3 "$SRC/test/lsm/aa_paths.py" "$SRC" $PY_ARGS > "$TMP/py.out"
	while IFS= read -r line; do
		case "$line" in
		"lsm: FAIL "*)		echo "    $line" ;;
		*" 0 failed"|*" seen")	ok "$line" ;;
		*)			bad "$line" ;;
		esac
	done < "$TMP/py.out"
}

PY_ARGS=
check_apparmor
check_selinux
check_paths
echo "lsm: $pass passed, $fail failed, $skip skipped"
echo "lsm: parsed and built only: neither AppArmor nor SELinux enforcement" \
	"was exercised here"
[ "$fail" -eq 0 ]
