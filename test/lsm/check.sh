#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/lsm/check.sh - our AppArmor profiles and SELinux modules, checked by
# the tools that load them ("make check-lsm", part of "make check")
#
# AppArmor (contrib/apparmor): for each ABI this system's apparmor package
# knows (/etc/apparmor.d/abi/4.0, 3.0), the profiles as "make install"
# writes them are compiled by apparmor_parser (-Q: nothing is loaded), with
# our abstractions in front of the system's; then test/lsm/aa_paths.py
# matches the paths the daemon opens (from the code, and, run as root with
# PASST_BIN, from strace of a pasta and a passt) against the file rules.
# Where libvirt
# is installed, its QEMU domain template (whose passt child profile includes
# abstractions/passt) is compiled over our abstractions too.
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
# Environment: APPARMOR_DIR (default /etc/apparmor.d), APPARMOR_PARSER
# (default apparmor_parser), APPARMOR_FEATURES (kernel features to compile
# for, default /usr/share/apparmor-features/features), SELINUX_DEVEL
# (default /usr/share/selinux/devel), BINDIR (default /usr/bin), PASST_BIN
# (the binary to run under strace; none: that part is skipped).
# Exit status: 0 if nothing failed (parts whose tools are missing are
# skipped, and say so), 1 otherwise.

set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
APPARMOR_DIR=${APPARMOR_DIR:-/etc/apparmor.d}
SELINUX_DEVEL=${SELINUX_DEVEL:-/usr/share/selinux/devel}
BINDIR=${BINDIR:-/usr/bin}
AA_PARSER=${APPARMOR_PARSER:-apparmor_parser}
PASST_BIN=${PASST_BIN:-}
APPARMOR_FEATURES=${APPARMOR_FEATURES:-/usr/share/apparmor-features/features}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lsm-check.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'rm -rf "$TMP"; exit 1' INT TERM PIPE HUP

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
	mkdir -p "$2"
	# one cp for a tree of links (a process per file is slow when busy)
	cp -rs "$(cd "$APPARMOR_DIR/abstractions" && pwd)" "$2/" || return 1
	ln -s "$APPARMOR_DIR/tunables" "$APPARMOR_DIR/abi" "$2/"
	mkdir -p "$2/local"		# "include if exists <local/...>"
	for n in $ABSTRACTIONS; do
		rm -f "$2/abstractions/$n"
		"$SRC/contrib/apparmor/render.sh" "$1" "$BINDIR" \
			< "$SRC/contrib/apparmor/abstractions/$n" \
			> "$2/abstractions/$n" || return 1
	done
	for p in $PROFILES; do
		"$SRC/contrib/apparmor/render.sh" "$1" "$BINDIR" \
			< "$SRC/contrib/apparmor/$p" > "$2/$p" || return 1
	done
}

# aa_parse() - compile profiles, loading nothing
# $1: tree, $2...: profile files in it; output in $TMP/aa.err
aa_parse() {
	tree=$1
	shift
	files=
	for f in "$@"; do files="$files $tree/$f"; done
	$AA_PARSER -QTK $AA_FEATURES -b "$tree" -I "$tree" $files \
		> "$TMP/aa.err" 2>&1 || return 1
	# only the notice that there's no AppArmor in this kernel is expected
	! grep -v 'Cache read/write disabled' "$TMP/aa.err" | grep -q .
}

check_apparmor() {
	if ! command -v "$AA_PARSER" >/dev/null 2>&1; then
		skipped "AppArmor: no apparmor_parser (Debian package apparmor)"
		return
	fi
	AA_FEATURES=
	[ -f "$APPARMOR_FEATURES" ] && AA_FEATURES="-M $APPARMOR_FEATURES"
	abis=
	for a in 4.0 3.0; do
		[ -e "$APPARMOR_DIR/abi/$a" ] && abis="$abis $a"
	done
	if [ -z "$abis" ]; then
		skipped "AppArmor: no $APPARMOR_DIR/abi/4.0 or 3.0"
		return
	fi
	echo "lsm: $($AA_PARSER --version | head -1), ABIs:$abis"
	first_abi=${abis# }
	first_abi=${first_abi%% *}

	for a in $abis; do
		t="$TMP/aa-$a"
		aa_tree "$a" "$t" || { bad "ABI $a: rendering"; continue; }
		if aa_parse "$t" $PROFILES; then
			ok "ABI $a: apparmor_parser compiles $PROFILES"
		else
			bad "ABI $a: apparmor_parser on $PROFILES:"
			sed 's/^/    /' "$TMP/aa.err"
		fi
		for p in $PROFILES; do
			$AA_PARSER -p -b "$t" -I "$t" "$t/$p" \
				> "$t/$p.pp" 2>/dev/null
		done
		# libvirt's QEMU domain template, where installed: its passt
		# child profile includes abstractions/passt
		lv="$APPARMOR_DIR/libvirt/TEMPLATE.qemu"
		if [ -f "$lv" ] && [ "$a" = "$first_abi" ]; then
			mkdir -p "$t/libvirt"
			cp "$lv" "$t/libvirt/"
			if aa_parse "$t" libvirt/TEMPLATE.qemu; then
				ok "ABI $a: libvirt's TEMPLATE.qemu compiles" \
				   "with our abstractions/passt"
			else
				bad "ABI $a: libvirt's TEMPLATE.qemu:"
				sed 's/^/    /' "$TMP/aa.err"
			fi
		fi
		# our abstractions, not installed ones, were included
		if grep -q 'passt-root' "$t/usr.bin.pasta.pp"; then
			ok "ABI $a: profiles include our abstractions"
		else
			bad "ABI $a: pasta doesn't include our abstractions"
		fi
		PY_ARGS="$PY_ARGS --apparmor $t"
		[ "$a" = "$first_abi" ] && PY_ARGS="$PY_ARGS $RT"
	done

	# The checks can fail: a syntax error, and a pasta without the tap
	first=$first_abi
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
	$AA_PARSER -p -b "$b" -I "$b" "$b/usr.bin.pasta" \
		> "$b/usr.bin.pasta.pp" 2>/dev/null
	PY_ARGS="$PY_ARGS --broken $b"
}

# se_build() - build modules with the development Makefile, carrying on
# past failures (-k: the interfaces are expanded once for all of them)
# $1: directory with the sources, $2...: packages to build
# Output in $TMP/se.err
se_build() {
	d=$1
	shift
	name=
	grep -qs '^SELINUXTYPE=' /etc/selinux/config || name="NAME=default"
	make -k -s -C "$d" -f "$SELINUX_DEVEL/Makefile" $name "$@" \
		> "$TMP/se.err" 2>&1
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
	# The build can fail: a permission the process class doesn't have
	printf '%s\n' 'policy_module(lsmbroken, 1.0.0)' 'type lsmbroken_t;' \
		'allow lsmbroken_t self:process no_such_permission;' \
		> "$d/lsmbroken.te"
	: > "$d/lsmbroken.if"
	: > "$d/lsmbroken.fc"
	echo "lsm: $(checkmodule -V 2>&1 | head -1 | sed 's/^/checkmodule: /')"

	se_build "$d" passt.pp pasta.pp pesto.pp lsmbroken.pp
	for m in passt pasta pesto; do
		# m4 warns of deprecated or unknown interfaces as "m4:M.te:N:"
		if [ -s "$d/$m.pp" ] &&
		   ! grep -i "$m\.\(te\|if\|fc\).*\(warning\|error\)" \
			"$TMP/se.err" > "$TMP/se.$m"; then
			ok "SELinux: $m.pp built (m4, checkmodule," \
			   "semodule_package)"
		else
			bad "SELinux: $m.pp:"
			sed 's/^/    /' "$TMP/se.$m" "$TMP/se.err" | sort -u
		fi
	done
	if [ ! -e "$d/lsmbroken.pp" ] &&
	   grep -q "no_such_permission" "$TMP/se.err"; then
		ok "SELinux: a module with an unknown permission is refused"
	else
		bad "SELinux: a module with an unknown permission builds"
	fi
	# Labels of the installed binaries
	for m in passt pasta pesto; do
		if grep -q "^$BINDIR/${m}[[:space:]].*${m}_exec_t" "$d/$m.fc"; then
			ok "SELinux: $BINDIR/$m is ${m}_exec_t"
		else
			bad "SELinux: $m.fc doesn't label $BINDIR/$m"
		fi
	done
	# Every set-up capability is granted (passt_common_rules)
	PY_ARGS="$PY_ARGS --selinux $SRC/contrib/selinux/passt.if"
}

# check_runtime() - pasta and passt run once each under strace -f, in a
# scratch network namespace (198.51.100.0/24 on a veth pair going nowhere),
# with PID, log, capture and control files: aa_paths.py then matches every
# path they used against the profiles.  Root only (namespaces), needs
# strace; the traces go to $TMP/rt/{pasta,passt}.trace
check_runtime() {
	RT=
	if [ -z "$PASST_BIN" ] || [ ! -x "$PASST_BIN" ]; then
		skipped "runtime paths: no PASST_BIN (make check-lsm sets it)"
		return
	fi
	if [ "$(id -u)" != 0 ] || ! command -v strace >/dev/null 2>&1 ||
	   ! command -v unshare >/dev/null 2>&1; then
		skipped "runtime paths: needs root, strace and unshare"
		return
	fi
	rt="$TMP/rt"
	mkdir -p "$rt"
	calls=open,openat,bind,connect,execve,rename,renameat2,link,linkat
	calls=$calls,unlink,unlinkat,clone,clone3,fork,vfork
	cat > "$rt/host.sh" <<-EOF
	{ ip link set lo up
	ip link add h0 type veth peer name r0
	ip addr add 198.51.100.2/24 dev h0
	ip link set h0 up; ip link set r0 up
	ip route add default via 198.51.100.1; } > "$rt/ip.out" 2>&1
	strace -f -qq -e trace=$calls -o "$rt/pasta.trace" \
		"$(dirname "$PASST_BIN")/pasta" --config-net -P "$rt/a.pid" \
		-l "$rt/a.log" -p "$rt/a.pcap" -c "$rt/a.ctl" -t 18080 \
		-u 18081 -- sh -c : > "$rt/pasta.out" 2>&1
	strace -f -qq -e trace=$calls -o "$rt/passt.trace" \
		"$PASST_BIN" -f -s "$rt/s.sock" -P "$rt/s.pid" -l "$rt/s.log" \
		-p "$rt/s.pcap" -c "$rt/s.ctl" -t 18080 > "$rt/passt.out" 2>&1 &
	i=0
	while [ ! -s "$rt/s.pid" ] && [ \$i -lt 100 ]; do
		sleep 0.1; i=\$((i + 1))
	done
	pid=\$(cat "$rt/s.pid" 2>/dev/null)
	[ -n "\$pid" ] && kill -TERM "\$pid"
	i=0
	while [ -n "\$pid" ] && kill -0 "\$pid" 2>/dev/null && [ \$i -lt 50 ]; do
		sleep 0.1; i=\$((i + 1))
	done
	[ -n "\$pid" ] && kill -KILL "\$pid" 2>/dev/null
	wait
	EOF
	timeout 60 unshare -n sh "$rt/host.sh"
	for d in pasta passt; do
		if grep -q 'execve(' "$rt/$d.trace" 2>/dev/null; then
			RT="$RT --strace $d=$rt/$d.trace"
		else
			bad "runtime paths: no $d trace:"
			sed 's/^/    /' "$rt/$d.out"
		fi
	done
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
check_runtime
check_apparmor
check_selinux
check_paths
echo "lsm: $pass passed, $fail failed, $skip skipped"
echo "lsm: parsed and built only: neither AppArmor nor SELinux enforcement" \
	"was exercised here"
[ "$fail" -eq 0 ]
