# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/clients/bats.sh - podman's own pasta tests against our pasta (sourced by run.sh)
#
# test/system/505-networking-pasta.bats and its helpers, from the podman
# repository at the tag Debian 13 packages (v5.4.2): PODMAN_BATS names a
# directory holding them, or PODMAN_REPO a podman git repository to take them
# from.  Without either the client is skipped (CI can't download them).  Run
# with bats as the unprivileged user, against the local test image.
# BATS_COMPARE=1 runs the file a second time with trixie's own pasta (the
# passt package) and reports both counts.  The test names are podman's; the
# summary table gets one row per test run with our pasta.

PODMAN_TAG=${PODMAN_TAG:-v5.4.2}
bdir=$ROOT/opt/podman-tests
rm -rf "$bdir"; mkdir -p "$bdir"
if [ -n "${PODMAN_BATS:-}" ]; then
	cp "$PODMAN_BATS"/505-networking-pasta.bats "$PODMAN_BATS"/helpers*.bash \
		"$PODMAN_BATS"/setup_suite.bash "$bdir"/ 2>/dev/null
elif [ -n "${PODMAN_REPO:-}" ]; then
	for f in 505-networking-pasta.bats helpers.bash helpers.network.bash \
		 helpers.registry.bash helpers.sig-proxy.bash helpers.systemd.bash \
		 setup_suite.bash; do
		git -C "$PODMAN_REPO" show "$PODMAN_TAG:test/system/$f" > "$bdir/$f" 2>/dev/null
	done
fi

# bats_run LABEL - one run of the file; TAP output in $LOGDIR/bats-LABEL.tap
bats_run() {
	in_chroot chown -R "$USERNAME:" /opt/podman-tests
	as_user env PODMAN=/usr/bin/podman BATS_TMPDIR=/tmp ${BATS_ENV:-} \
		${BATS_FILTER:+BATS_FILTER="$BATS_FILTER"} \
		sh -c 'cd /opt/podman-tests && exec timeout 1800 bats --tap \
			${BATS_FILTER:+--filter "$BATS_FILTER"} 505-networking-pasta.bats' \
		> "$LOGDIR/bats-$1.tap" 2>&1
	b_pass=$(grep -c '^ok .*' "$LOGDIR/bats-$1.tap" | tr -d ' ')
	b_skip=$(grep -c '^ok .* # skip' "$LOGDIR/bats-$1.tap" | tr -d ' ')
	b_fail=$(grep -c '^not ok ' "$LOGDIR/bats-$1.tap" | tr -d ' ')
	b_pass=$((b_pass - b_skip))
	log "bats ($1): $b_pass passed, $b_fail failed, $b_skip skipped"
}

if [ ! -s "$bdir/505-networking-pasta.bats" ]; then
	result bats "505-networking-pasta.bats" SKIP "set PODMAN_BATS or PODMAN_REPO"
elif ! ensure_image; then
	result bats "test image" FAIL "see $LOGDIR/image.log"
else
	# podman's tests look up their own "pasta" through podman info
	bats_run ours
	ours="$b_pass passed, $b_fail failed, $b_skip skipped"
	grep -E '^(not )?ok ' "$LOGDIR/bats-ours.tap" | while read -r line; do
		name=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ (\[505\] )?//; s/ # skip.*//' | cut -c1-52)
		case $line in
		"not ok"*)	known=
				if [ -n "$known" ]; then result bats "$name" ENV "$known"
				else result bats "$name" FAIL "see $LOGDIR/bats-ours.tap"; fi ;;
		*"# skip"*)	result bats "$name" SKIP "$(echo "$line" | sed 's/.*# skip//' | cut -c1-40)" ;;
		*)		result bats "$name" PASS ;;
		esac
	done
	if [ "${BATS_COMPARE:-0}" = 1 ]; then
		cc=/home/$USERNAME/.config/containers
		sed "s|^helper_binaries_dir = \[\"$HELPER_DIR\", |helper_binaries_dir = [\"/usr/bin\", |" \
			"$ROOT$cc/containers.conf" > "$ROOT$cc/containers-trixie.conf"
		BATS_ENV="CONTAINERS_CONF=$cc/containers-trixie.conf" bats_run trixie
		log "bats: ours: $ours; trixie's passt: $b_pass passed, $b_fail failed, $b_skip skipped"
		result bats "(trixie's pasta, for comparison)" INFO \
			"$b_pass passed, $b_fail failed, $b_skip skipped"
	fi
	result bats "(our pasta, totals)" INFO "$ours"
fi
