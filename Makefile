# SPDX-License-Identifier: GPL-2.0-or-later
# Makefile - build, test, demo and install for passt/pasta
#
#   make            build $(BUILD)/passt and the $(BUILD)/pasta link
#   make deps       install missing Debian packages (apt-get update first)
#   make check      deps, release and sanitizer builds, unit + integration tests
#   make demo       deps, build, then a pasta namespace in scratch namespaces
#   make guest      kernel and initramfs for the QEMU tests (apt-get download)
#   make bench      benchmarks against Debian's pasta and the kernel (root)
#   make fuzz       libFuzzer harnesses, FUZZ_SECONDS or FUZZ_RUNS each
#   make test T=NAME  one unit program (T=frame; CASE=TCASE for one Check
#                   test case) or one integration script (T=tcp_bulk.sh),
#                   see test/README.md
#   make install    PREFIX=/usr/local: binaries, pasta link, man pages, systemd
#                   units (SYSTEMD_UNITDIR, default $(PREFIX)/lib/systemd/system),
#                   AppArmor profiles and SELinux modules (LSM=0, APPARMOR=0,
#                   SELINUX=0 skip them; DESTDIR for packages)
#   make check-lsm  the profiles and modules parsed and built (test/lsm)
#   make check-units  systemd-analyze verify on the units (contrib/systemd)
#   make check-nspawn the units under systemd in a systemd-nspawn container
#   make check-vhost  only the QEMU guests on passt --vhost-user, also in make
#                   check (~30 s, 64 MiB each way; VHOST_SHORT=1: 8 MiB)
#   make check-vhost-restart  the same with a hitless restart of passt
#                   --vhost-user during a fetch from the guest (~95 s, not
#                   in check)
#   make check-stress many TCP connections of mixed sizes and behaviours,
#                   tap and splice paths, with loss (~2.5 min, not in check)
#   make check-migrate live migration of a --vhost-user guest between two
#                   QEMU 10 (fetched from bookworm-backports into
#                   build/qemu10, not installed; ~1 min, not in check)
#   make upstream-passt  upstream's passt and passt-repair built from
#                   UPSTREAM_GIT's HEAD in build/upstream-passt (the other
#                   side of make bench's migration rows)
#   make deps-graph   includes and symbols between folders, circles of files
#   make shellcheck every shell script (test/, contrib/, .ci/), with the
#                   settings of .shellcheckrc
#   make cppcheck   static analysis of every C file (test/cppcheck.supp)
#   make check-comments  every name() in a C comment exists, every kernel-doc
#                   header sits above its function (test/check_comments.py)
#   make check-names  every export of the daemon starts with its file's
#                   prefix (test/check_names.sh, nm on the objects)
#   make check-clients  real clients (podman, rootlesskit, libvirt from
#                   Debian 13, in a cached chroot) against our binaries
#                   (root; first run +10 minutes and 1.6 GB, then 5-12 min)

# Debian packages: the one place where their names live.  Build, tests,
# demo and benchmarks all take what they need from here.
DEB_BUILD_PKGS := gcc make pkg-config libc6-dev libcap-ng-dev libseccomp-dev \
	libnl-3-dev libnl-route-3-dev libnl-genl-3-dev libnl-idiag-3-dev check \
	groff-base
DEB_TEST_PKGS := iproute2 iputils-ping socat curl iperf3 tshark nftables \
	busybox udhcpc isc-dhcp-client ndisc6 python3 dnsmasq-base bind9-dnsutils \
	util-linux procps coreutils clang passt slirp4netns systemd \
	apparmor checkpolicy selinux-policy-dev semodule-utils strace shellcheck \
	cppcheck
DEB_BENCH_PKGS := sockperf wrk
DEB_QEMU_PKGS := qemu-system-x86 cpio xz-utils
# Only for make check-nspawn (the units under a real systemd, in a container)
DEB_NSPAWN_PKGS := systemd-container
# Only for make check-clients: debootstrap here, and the Debian 13 (trixie)
# packages of its chroot (the clients, their test tools, our build
# dependencies; passt is trixie's own pasta, for comparisons)
DEB_CLIENTS_HOST_PKGS := debootstrap
DEB_CLIENTS_PKGS := podman runc uidmap netavark aardvark-dns catatonit conmon rootlesskit \
	libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients qemu-system-x86 \
	bats jq socat iproute2 procps busybox-static libc-bin curl passt kmod nftables \
	gcc make pkg-config libc6-dev libcap-ng-dev libseccomp-dev libnl-3-dev \
	libnl-route-3-dev libnl-genl-3-dev libnl-idiag-3-dev
DEB_PKGS := $(DEB_BUILD_PKGS) $(DEB_TEST_PKGS) $(DEB_QEMU_PKGS)
# Never installed: fetched with "apt-get download" and unpacked for the
# QEMU guest of the passt-mode tests (kernel meta package, then busybox)
DEB_GUEST_PKGS := linux-image-amd64 busybox-static

BUILD ?= build
PREFIX ?= /usr/local
SYSTEMD_UNITDIR ?= $(PREFIX)/lib/systemd/system
# AppArmor profiles and SELinux modules (README.md, "LSM profiles")
LSM ?= 1
APPARMOR ?= $(LSM)
SELINUX ?= $(LSM)
APPARMOR_DIR ?= /etc/apparmor.d
# 4.0 ("userns" rule) unless only AppArmor 3.x is here (Debian 12)
APPARMOR_ABI ?= $(if $(wildcard $(APPARMOR_DIR)/abi/4.0),4.0,$(if \
	$(wildcard $(APPARMOR_DIR)/abi/3.0),3.0,4.0))
SELINUX_DEVEL ?= /usr/share/selinux/devel
SELINUX_DATADIR ?= $(PREFIX)/share/selinux
AA_FILES := abstractions/passt abstractions/pasta usr.bin.passt usr.bin.pasta \
	usr.bin.pesto
SE_MODULES := passt pasta pesto
# Compile jobs of make check's two builds (release, sanitizers): one per CPU
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# "CC ?= gcc" would do nothing: make defines CC (as cc) itself.  gcc unless
# the command line or the environment names another compiler
ifeq ($(origin CC),default)
CC := gcc
endif

PKG_LIBS := libnl-3.0 libnl-route-3.0 libnl-genl-3.0 libnl-idiag-3.0 libseccomp \
	libcap-ng
PKG_CFLAGS = $(shell pkg-config --cflags $(PKG_LIBS) 2>/dev/null)
LIBS = $(shell pkg-config --libs $(PKG_LIBS) 2>/dev/null)
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

# relayd's set (-Wmissing-prototypes -Wmissing-declarations -Wshadow
# -Wcast-qual) and -Wconversion (with -Wsign-conversion, in C).  WERROR=1
# (make check) turns them into errors; a plain make doesn't, so that a
# newer compiler's new warnings don't stop a build
WARN := -Wall -Wextra -Wno-missing-field-initializers -Wmissing-prototypes \
	-Wmissing-declarations -Wshadow -Wcast-qual -Wconversion
ifeq ($(WERROR),1)
WARN += -Werror
endif
WARN_STAMP = $(BUILD)/gen/warn
HARDEN := -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fPIE
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -DVERSION=\"$(VERSION)\"
LDFLAGS_HARDEN := -pie -Wl,-z,relro,-z,now

ifeq ($(SAN),1)
CFLAGS_MODE := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined -DSANITIZER_BUILD -fPIE
LDFLAGS_MODE := -fsanitize=address,undefined -pie
else
CFLAGS_MODE := $(HARDEN)
LDFLAGS_MODE := $(LDFLAGS_HARDEN)
endif

ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS_MODE) -I$(BUILD)/gen $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(LDFLAGS_MODE) $(LDFLAGS)

SRCS := $(sort $(wildcard lib/*.c conf/*.c tap/*.c passt/*.c splice/*.c entry/*.c))
MAIN_SRC := entry/main.c
CORE_SRCS := $(filter-out $(MAIN_SRC),$(SRCS))
CORE_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(CORE_SRCS))
# The same sources built with -DUNIT_TEST for the unit tests and the fuzzing
# harnesses: VISIBLE_IF_UNIT (lib/visible.h) exports there what the
# daemon's objects keep static
TEST_OBJS := $(patsubst %.c,$(BUILD)/obj-test/%.o,$(CORE_SRCS))
MAIN_OBJ := $(BUILD)/obj/entry/main.o
HDRS := $(wildcard lib/*.h conf/*.h tap/*.h passt/*.h splice/*.h entry/*.h)

UNIT_SRCS := $(sort $(wildcard test/unit/*_test.c))
UNIT_BINS := $(patsubst test/unit/%.c,$(BUILD)/test/%,$(UNIT_SRCS))
UNIT_HELPERS := $(sort $(wildcard test/unit/fake_*.c))

.PHONY: FORCE all deps check check-unit check-integration check-man demo bench check-stress \
	bench-smoke fuzz install uninstall clean asan unit guest check-units test \
	check-vhost-restart \
	check-nspawn deps-nspawn deps-graph check-deps check-comments check-names \
	shellcheck cppcheck \
	check-vhost check-clients \
	qemu10 check-migrate upstream-passt \
	deps-clients check-lsm selinux

all: $(BUILD)/passt $(BUILD)/pasta $(BUILD)/pesto $(BUILD)/passt-repair

# Each object depends on the headers it includes: the compiler lists them
# in a .d file next to it (-MMD; -MP: a header that goes away doesn't break
# the build).  An object without its .d file (built before, or the .d lost)
# is rebuilt once: the empty rule makes the missing .d look new.
DEPFLAGS = -MMD -MP -MF $(@:.o=.d)
$(BUILD)/obj/%.o: %.c $(BUILD)/obj/%.d $(WARN_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<
$(BUILD)/obj/%.d: ;
.PRECIOUS: $(BUILD)/obj/%.d
$(BUILD)/obj-test/%.o: %.c $(BUILD)/obj-test/%.d $(WARN_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DUNIT_TEST $(DEPFLAGS) -c -o $@ $<
$(BUILD)/obj-test/%.d: ;
.PRECIOUS: $(BUILD)/obj-test/%.d
-include $(CORE_OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_OBJS:.o=.d)

# The seccomp allow-list, from the "#syscalls" lines of every source file
SECCOMP_LIST := $(BUILD)/gen/seccomp_list.h
$(SECCOMP_LIST): $(SRCS) $(HDRS) passt/seccomp.sh
	@mkdir -p $(@D)
	sh passt/seccomp.sh $(SRCS) $(HDRS) > $@.tmp && mv $@.tmp $@
$(BUILD)/obj/passt/isolation.o $(BUILD)/obj-test/passt/isolation.o: \
	$(SECCOMP_LIST)

# Everything is compiled again when the warning flags change (WERROR=1 of
# make check after a plain make), so that -Werror sees every file
$(WARN_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(WARN)' | cmp -s - $@ || echo '$(WARN)' > $@

# --version: parse.o is rebuilt when "git describe" changes (the stamp file
# is rewritten only when its content differs)
VERSION_STAMP := $(BUILD)/gen/version
$(VERSION_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
$(BUILD)/obj/conf/parse.o $(BUILD)/obj-test/conf/parse.o: $(VERSION_STAMP)
FORCE:

$(BUILD)/libcore.a: $(CORE_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libcore-test.a: $(TEST_OBJS)
	@rm -f $@
	ar rcs $@ $^

# The entry point names every flow type (flow_types_register(), entry/main.c):
# the linker takes from libcore.a the objects something names, no more
$(BUILD)/passt: $(MAIN_OBJ) $(BUILD)/libcore.a
	$(CC) $(ALL_CFLAGS) -o $@ $(MAIN_OBJ) $(BUILD)/libcore.a \
		$(ALL_LDFLAGS) $(LIBS)

$(BUILD)/pasta: $(BUILD)/passt
	ln -sf passt $@

# pesto(1): the client of -c/--conf-path, libc and the daemon's pure table
# code: the wire protocol, spec parser and request operations (conf/)
PESTO_SRCS := pesto/pesto.c conf/wire.c conf/ctl_ops.c conf/ports.c
$(BUILD)/pesto: $(PESTO_SRCS) passt/ctl.h conf/wire.h conf/ctl_ops.h \
		conf/ports.h conf/conf.h $(VERSION_STAMP) $(WARN_STAMP)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS_MODE) $(CFLAGS) -o $@ $(PESTO_SRCS) \
		$(ALL_LDFLAGS)

# passt-repair(1): the TCP_REPAIR helper for --vhost-user migration, libc and
# libseccomp only
$(BUILD)/passt-repair: repair/passt-repair.c $(WARN_STAMP)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(CFLAGS_MODE) $(CFLAGS) -o $@ repair/passt-repair.c \
		$(ALL_LDFLAGS) -lseccomp

# Some tests include the fuzzing harnesses (test/unit/fuzz_regress_test.c)
FUZZ_HARNESS_SRCS := $(wildcard test/fuzz/*.c test/fuzz/*.h)

$(BUILD)/test/%_test: test/unit/%_test.c $(UNIT_HELPERS) $(BUILD)/libcore-test.a \
		$(FUZZ_HARNESS_SRCS) $(WARN_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DUNIT_TEST $(CHECK_CFLAGS) -MMD -MP -MF $@.d -o $@ \
		$< $(UNIT_HELPERS) $(BUILD)/libcore-test.a $(ALL_LDFLAGS) \
		$(LIBS) $(CHECK_LIBS)
-include $(UNIT_BINS:=.d)

unit: $(UNIT_BINS)

# One test (test/README.md): T=frame (or frame_test) builds and runs
# $(BUILD)/test/frame_test, CASE=NAME only its Check test case NAME
# (CK_RUN_CASE); T=tcp_bulk.sh runs one integration script with the release
# binary, and with build-asan/passt too if that exists and the script has
# "# asan: yes"
test: all
	@case "$(T)" in \
	'') echo "usage: make test T=NAME [CASE=TCASE]: T=frame (unit program" \
		"test/unit/frame_test.c) or T=tcp_bulk.sh (integration script)"; \
	    exit 1 ;; \
	*.sh) PASST_BIN=$(abspath $(BUILD))/passt \
		$(if $(wildcard build-asan/passt),PASST_ASAN_BIN=$(abspath build-asan)/passt) \
		TESTS="$(T)" test/integration/run.sh ;; \
	*) t=$(BUILD)/test/$(patsubst %_test,%,$(T))_test; \
	   $(MAKE) --no-print-directory $$t || exit 1; \
	   if [ -n "$(CASE)" ]; then export CK_RUN_CASE="$(CASE)"; fi; \
	   CK_DEFAULT_TIMEOUT=$${CK_DEFAULT_TIMEOUT:-20} $$t ;; \
	esac

# Install what is missing; a no-op when everything is there.
deps:
	@missing=""; for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | \
			grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "deps: installing$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -q && \
		apt-get install -y -q --no-install-recommends $$missing; \
	else \
		echo "deps: all Debian packages present"; \
	fi

deps-bench:
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(DEB_PKGS) $(DEB_BENCH_PKGS)"

deps-nspawn:
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(DEB_PKGS) $(DEB_NSPAWN_PKGS)"

deps-clients:
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(DEB_PKGS) $(DEB_CLIENTS_HOST_PKGS)"

asan:
	$(MAKE) --no-print-directory BUILD=build-asan SAN=1 all unit

check-unit: all unit
	@test/unit/run.sh $(BUILD)/test

check-man:
	@for m in passt.1 pesto.1 passt-repair.1; do \
		out=$$(groff -ww -man -z $$m 2>&1); \
		if [ -n "$$out" ]; then echo "$$out"; echo "man: $$m has warnings"; exit 1; fi; \
		echo "man: $$m renders without warnings"; \
	done

# systemd units: "@BINDIR@" in the .in files is where passt is installed
UNIT_FILES := $(sort $(wildcard contrib/systemd/*.socket contrib/systemd/*.service \
	contrib/systemd/*.in))
UNIT_NAMES := $(notdir $(UNIT_FILES:.in=))

# systemd-analyze verify needs no running systemd: it parses each unit
# (unknown keys and sections are warnings, hence "no output at all"), loads
# it and its dependencies (a socket unit without its service is an error),
# and checks that every Exec*= command exists and is executable (here the
# binary just built).  --man=no: Documentation=man: pages need not be
# installed; --generators=no: the host's generators don't matter here.
check-units: all
	@command -v systemd-analyze >/dev/null || \
		{ echo "units: systemd-analyze missing (Debian package systemd)"; exit 1; }
	@rm -rf $(BUILD)/systemd && mkdir -p $(BUILD)/systemd
	@for f in $(UNIT_FILES); do \
		sed 's|@BINDIR@|$(abspath $(BUILD))|g' $$f > \
			$(BUILD)/systemd/$$(basename $$f .in) || exit 1; \
	done
	@out=$$(systemd-analyze verify --man=no --generators=no \
		$(addprefix $(BUILD)/systemd/,$(UNIT_NAMES)) 2>&1); rc=$$?; \
	if [ $$rc -ne 0 ] || [ -n "$$out" ]; then \
		echo "$$out"; echo "units: systemd-analyze verify failed"; exit 1; \
	fi; echo "units: $(UNIT_NAMES) verified"

# AppArmor profiles compiled by apparmor_parser (no kernel load), paths the
# daemon opens matched against them, SELinux modules built with the
# reference policy's Makefile: parsed and built, not enforced (test/lsm)
check-lsm: all
	@BINDIR=$(PREFIX)/bin PASST_BIN=$(abspath $(BUILD))/passt sh test/lsm/check.sh

# SELinux policy packages (.pp) for make install, if the reference policy's
# development files are there (Debian: selinux-policy-dev)
selinux:
	@rm -rf $(BUILD)/selinux && mkdir -p $(BUILD)/selinux
	@for f in contrib/selinux/*.te contrib/selinux/*.if contrib/selinux/*.fc; do \
		sed 's|@BINDIR@|$(PREFIX)/bin|g' $$f > $(BUILD)/selinux/$$(basename $$f) || \
			exit 1; \
	done
	$(MAKE) -s -C $(BUILD)/selinux -f $(SELINUX_DEVEL)/Makefile \
		$(addsuffix .pp,$(SE_MODULES))

# Not part of make check: boots systemd in a container (root, ~20 s)
check-nspawn: deps-nspawn all
	@PASST_BIN=$(abspath $(BUILD))/passt sh test/systemd/nspawn.sh

# Not part of make check: podman 5.4, rootlesskit 2.0 and libvirt 11 from a
# Debian 13 chroot cached in CLIENTS_ROOT (test/clients/run.sh).  CLIENTS
# picks clients (podman bats rootlesskit libvirt); podman's own pasta tests
# run when PODMAN_BATS (its test/system/ at v5.4.2) or PODMAN_REPO is given.
CLIENTS_ROOT ?= /var/cache/passt-clients/trixie
check-clients: deps-clients guest
	@CLIENTS_ROOT=$(CLIENTS_ROOT) CLIENTS_PKGS="$(DEB_CLIENTS_PKGS)" \
		GUEST_DIR=$(abspath $(BUILD))/guest test/clients/run.sh $(CLIENTS)

check-integration: all
	@PASST_BIN=$(abspath $(BUILD))/passt test/integration/run.sh

# Stress, not in make check: 400 connections per run, mixed sizes and
# behaviours, every byte checked at both ends (test/integration/tcp_stress_mix.sh)
check-stress: all
	@TESTS=tcp_stress_mix.sh PASST_BIN=$(abspath $(BUILD))/passt \
		test/integration/run.sh

# Only the two QEMU guests (TCG) on passt --vhost-user of make check;
# VHOST_SHORT=1 for 8 MiB each way instead of 64
check-vhost: all
	@TESTS=passt_vhost_qemu.sh PASST_BIN=$(abspath $(BUILD))/passt \
		test/integration/run.sh

# The same guests, with a new passt taking over the running one (and its
# guest's connection) in the middle of a fetch (VHOST_RESTART=1; opt-in)
check-vhost-restart: all
	@VHOST_RESTART=1 TESTS=passt_vhost_qemu.sh \
		PASST_BIN=$(abspath $(BUILD))/passt test/integration/run.sh

# QEMU 10 for the migration test (7.2 can't carry a vhost-user-net
# back-end's state): bookworm-backports' .debs, fetched with a sources list
# and apt state of our own (the system's are left as they are), unpacked
# in $(BUILD)/qemu10, never installed
QEMU10_DIR := $(abspath $(BUILD))/qemu10
QEMU10_APT := $(abspath $(BUILD))/qemu10-apt
qemu10:
	@[ -x $(QEMU10_DIR)/usr/bin/qemu-system-x86_64 ] && exit 0; \
	mkdir -p $(QEMU10_APT)/lists/partial $(QEMU10_APT)/cache/archives/partial \
		$(QEMU10_APT)/debs && \
	echo "deb http://deb.debian.org/debian bookworm-backports main" \
		> $(QEMU10_APT)/sources.list && \
	A="-o Dir::Etc::SourceList=$(QEMU10_APT)/sources.list \
	   -o Dir::Etc::SourceParts=/dev/null \
	   -o Dir::State::Lists=$(QEMU10_APT)/lists \
	   -o Dir::Cache=$(QEMU10_APT)/cache" && \
	apt-get $$A -q update >/dev/null && \
	cd $(QEMU10_APT)/debs && apt-get $$A -q download \
		qemu-system-x86/bookworm-backports \
		qemu-system-common/bookworm-backports \
		qemu-system-data/bookworm-backports && \
	for f in $(QEMU10_APT)/debs/*.deb; do dpkg -x $$f $(QEMU10_DIR); done

# Upstream's passt and passt-repair, for migrations to and from it (the MIG
# rows of make bench; MIG_SRC_BIN/MIG_DST_BIN of check-migrate): UPSTREAM_GIT
# (a git directory) archived at its HEAD into $(UPSTREAM_DIR) and built
# there with upstream's own Makefile (with passt.avx2 on x86_64, which
# upstream's passt runs instead of itself there, as installed), again only
# when HEAD changes; never
# part of this tree or its objects
UPSTREAM_GIT ?= /work/.mirror/qemus+passt/repo
UPSTREAM_DIR := $(abspath $(BUILD))/upstream-passt
upstream-passt:
	@rev=$$(git --git-dir=$(UPSTREAM_GIT) rev-parse HEAD) || exit 1; \
	[ "$$(cat $(UPSTREAM_DIR)/.rev 2>/dev/null)" = "$$rev" ] && \
		[ -x $(UPSTREAM_DIR)/passt-repair ] && exit 0; \
	rm -rf $(UPSTREAM_DIR) && mkdir -p $(UPSTREAM_DIR) && \
	git --git-dir=$(UPSTREAM_GIT) archive "$$rev" | tar -C $(UPSTREAM_DIR) -xf - && \
	env -u MAKEFLAGS -u MAKELEVEL $(MAKE) -s -C $(UPSTREAM_DIR) \
		VERSION=git-$$(echo $$rev | cut -c1-12) passt passt-repair \
		$$([ "$$(uname -m)" = x86_64 ] && echo passt.avx2) && \
	echo "$$rev" > $(UPSTREAM_DIR)/.rev

# Live migration of a --vhost-user guest between two QEMU 10 (opt-in)
check-migrate: all qemu10
	@TESTS=vhost_migrate_qemu10.sh QEMU10_DIR=$(QEMU10_DIR) \
		PASST_BIN=$(abspath $(BUILD))/passt test/integration/run.sh

check: deps
	$(MAKE) --no-print-directory -j$(JOBS) WERROR=1 all unit
	$(MAKE) --no-print-directory -j$(JOBS) BUILD=build-asan SAN=1 WERROR=1 \
		all unit
	@$(MAKE) --no-print-directory check-man
	@$(MAKE) --no-print-directory check-units
	@$(MAKE) --no-print-directory check-lsm
	@$(MAKE) --no-print-directory check-deps
	@$(MAKE) --no-print-directory check-comments
	@$(MAKE) --no-print-directory check-names
	@$(MAKE) --no-print-directory cppcheck
	@if command -v shellcheck >/dev/null; then \
		$(MAKE) --no-print-directory shellcheck; \
	else echo "shellcheck: not installed, skipped (make deps)"; fi
	@test/unit/run.sh $(BUILD)/test
	@ASAN_OPTIONS=detect_leaks=1 test/unit/run.sh build-asan/test
	@PASST_BIN=$(abspath $(BUILD))/passt \
		PASST_ASAN_BIN=$(abspath build-asan)/passt test/integration/run.sh
	@$(MAKE) --no-print-directory bench-smoke

# Who uses whom: includes and symbols between folders, and circles of files
# (test/deps_graph.py).  check-deps fails if a folder uses one after it in
# lib/ <- conf/ <- tap/ <- passt/ <- splice/ <- entry/, or a circle spans folders.
# It also prints the size of passt/'s largest circle: the largest strongly
# connected component (Tarjan) of files of passt/ in the union of the
# include graph ("#include" lines; a header and its .c are one file) and the
# symbol graph (nm: object A uses a function or datum object B defines), and
# the number of two-way file pairs (A uses B and B uses A) of all folders,
# and fails if either exceeds its budget.  The budgets may only go down
# (2026-12-03 before the untying of passt/: 30 files, 37 pairs; 20 pairs
# until conf/'s parser became parse.c and netlink.c was split, then 16).
DEPS_CIRCLE_BUDGET := 8
DEPS_PAIRS_BUDGET := 16
deps-graph: all
	@python3 test/deps_graph.py $(BUILD)/obj

check-deps: all
	@python3 test/deps_graph.py $(BUILD)/obj --check \
		--budget $(DEPS_CIRCLE_BUDGET) \
		--pairs-budget $(DEPS_PAIRS_BUDGET) >$(BUILD)/deps.txt || \
		{ cat $(BUILD)/deps.txt; exit 1; }
	@echo "deps: lib/ <- conf/ <- tap/ <- passt/ <- splice/ <- entry/, no circle across folders"
	@sed -n 's/^\(passt\/ largest circle\|two-way pairs\): /deps: &/p' \
		$(BUILD)/deps.txt

# Comments that name a function that doesn't exist (renamed, removed), and
# kernel-doc headers above the wrong function (test/check_comments.py)
check-comments:
	@python3 test/check_comments.py

# Exports without their file's prefix (test/check_names.sh: the table of
# prefixes, with the reason for each file that has another than its name):
# the daemon's objects, and those of the unit tests (VISIBLE_IF_UNIT
# exports) if they are built; it builds nothing (make or make check first).
# Under a second.
check-names:
	@sh test/check_names.sh $(BUILD) obj
	@if [ -d $(BUILD)/obj-test ]; then sh test/check_names.sh $(BUILD) obj-test; fi

# Every shell script: *.sh, and files whose first line runs sh or bash
# (.ci/run); the libraries without one say "# shellcheck shell=" instead.
# Run by make check when shellcheck is installed (it is in make deps).
SH_SCRIPTS = $(shell find test contrib .ci passt -name '*.sh' -type f; \
	grep -rlE '^\#!/bin/(ba)?sh' .ci contrib 2>/dev/null | grep -v '\.sh$$')
shellcheck:
	@command -v shellcheck >/dev/null || \
		{ echo "shellcheck: not installed (Debian package shellcheck)"; exit 1; }
	@echo $(sort $(SH_SCRIPTS)) | xargs -n 10 -P $(JOBS) shellcheck -f gcc && \
		echo "shellcheck: $(words $(sort $(SH_SCRIPTS))) scripts clean"

# cppcheck's warning, portability and performance checks (not style) over
# every C file; findings wrong for the project are in test/cppcheck.supp
# with their reasons, and the exit status is 1 on any other
CPPCHECK_FLAGS := --quiet --std=c11 -D_GNU_SOURCE \
	--enable=warning,portability,performance --inline-suppr \
	--suppressions-list=test/cppcheck.supp --error-exitcode=1 \
	--template='{file}:{line}: {severity}: {message} [{id}]'
CPPCHECK_DIRS := lib conf tap passt splice pesto repair test/unit test/fuzz \
	test/integration
cppcheck:
	@command -v cppcheck >/dev/null || \
		{ echo "cppcheck: not installed (Debian package cppcheck)"; exit 1; }
	@cppcheck $(CPPCHECK_FLAGS) -j$(JOBS) $(CPPCHECK_DIRS) && \
		echo "cppcheck: $(CPPCHECK_DIRS) clean"

# Kernel and initramfs of the QEMU guest, cached in $(BUILD)/guest
guest:
	@sh test/guest/mkguest.sh $(BUILD)/guest $(DEB_GUEST_PKGS) $(GUEST_EXTRA)

demo: deps all
	@PASST_BIN=$(abspath $(BUILD))/passt test/demo.sh

bench: deps-bench all
	@$(MAKE) --no-print-directory qemu10 || \
		echo "bench: no QEMU 10 (build/qemu10): the migration rows are n/a"
	@$(MAKE) --no-print-directory upstream-passt || \
		echo "bench: no upstream passt (UPSTREAM_GIT): its migration rows are n/a"
	@PASST_BIN=$(abspath $(BUILD))/passt test/bench/run.sh $(BENCH_ARGS)

# Suite still works (numbers, not their values); exit 77 (no root) skips
bench-smoke: all
	@PASST_BIN=$(abspath $(BUILD))/passt test/bench/run.sh --smoke; \
	rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 77 ]

# FUZZ_SECONDS (default 60) per harness, or FUZZ_RUNS executions each
fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) test/fuzz/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/passt $(DESTDIR)$(PREFIX)/bin/passt
	# A hard link: AppArmor and SELinux tell pasta from passt by the path
	# executed, and a symbolic link resolves to passt
	ln -f $(DESTDIR)$(PREFIX)/bin/passt $(DESTDIR)$(PREFIX)/bin/pasta
	install -m 755 $(BUILD)/pesto $(DESTDIR)$(PREFIX)/bin/pesto
	install -m 755 $(BUILD)/passt-repair $(DESTDIR)$(PREFIX)/bin/passt-repair
	install -m 644 passt.1 $(DESTDIR)$(PREFIX)/share/man/man1/passt.1
	ln -sf passt.1 $(DESTDIR)$(PREFIX)/share/man/man1/pasta.1
	install -m 644 pesto.1 $(DESTDIR)$(PREFIX)/share/man/man1/pesto.1
	install -m 644 passt-repair.1 $(DESTDIR)$(PREFIX)/share/man/man1/passt-repair.1
	install -d $(DESTDIR)$(SYSTEMD_UNITDIR)
	for f in $(UNIT_FILES); do \
		sed 's|@BINDIR@|$(PREFIX)/bin|g' $$f > \
			$(DESTDIR)$(SYSTEMD_UNITDIR)/$$(basename $$f .in) && \
		chmod 644 $(DESTDIR)$(SYSTEMD_UNITDIR)/$$(basename $$f .in) || \
			exit 1; \
	done
ifeq ($(APPARMOR),1)
	install -d $(DESTDIR)$(APPARMOR_DIR)/abstractions
	for f in $(AA_FILES); do \
		contrib/apparmor/render.sh $(APPARMOR_ABI) $(PREFIX)/bin \
			< contrib/apparmor/$$f > $(DESTDIR)$(APPARMOR_DIR)/$$f && \
		chmod 644 $(DESTDIR)$(APPARMOR_DIR)/$$f || exit 1; \
	done
	@echo "install: AppArmor profiles (ABI $(APPARMOR_ABI)) in" \
		"$(DESTDIR)$(APPARMOR_DIR); load them with" \
		"apparmor_parser -r $(APPARMOR_DIR)/usr.bin.{passt,pasta,pesto}"
endif
ifeq ($(SELINUX),1)
	@if [ -f $(SELINUX_DEVEL)/Makefile ]; then \
		$(MAKE) --no-print-directory selinux && \
		install -d $(DESTDIR)$(SELINUX_DATADIR)/packages \
			$(DESTDIR)$(SELINUX_DATADIR)/devel/include/contrib && \
		for m in $(SE_MODULES); do \
			install -m 644 $(BUILD)/selinux/$$m.pp \
				$(DESTDIR)$(SELINUX_DATADIR)/packages/$$m.pp && \
			install -m 644 contrib/selinux/$$m.if \
			$(DESTDIR)$(SELINUX_DATADIR)/devel/include/contrib/$$m.if || \
				exit 1; \
		done && \
		echo "install: SELinux modules in" \
			"$(DESTDIR)$(SELINUX_DATADIR)/packages; load them with" \
			"semodule -i, then restorecon the binaries"; \
	else \
		echo "install: SELinux modules not built: no" \
			"$(SELINUX_DEVEL)/Makefile (selinux-policy-dev;" \
			"SELINUX=0 skips this)"; \
	fi
endif

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/passt $(DESTDIR)$(PREFIX)/bin/pasta \
		$(DESTDIR)$(PREFIX)/bin/pesto \
		$(DESTDIR)$(PREFIX)/bin/passt-repair \
		$(DESTDIR)$(PREFIX)/share/man/man1/passt.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/pasta.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/pesto.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/passt-repair.1 \
		$(addprefix $(DESTDIR)$(SYSTEMD_UNITDIR)/,$(UNIT_NAMES))
ifeq ($(APPARMOR),1)
	rm -f $(addprefix $(DESTDIR)$(APPARMOR_DIR)/,$(AA_FILES))
endif
ifeq ($(SELINUX),1)
	rm -f $(addprefix $(DESTDIR)$(SELINUX_DATADIR)/packages/,$(addsuffix .pp,$(SE_MODULES))) \
		$(addprefix $(DESTDIR)$(SELINUX_DATADIR)/devel/include/contrib/,$(addsuffix .if,$(SE_MODULES)))
endif

clean:
	rm -rf build build-asan build-* 
