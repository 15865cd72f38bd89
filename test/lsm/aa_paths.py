#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""aa_paths.py - are the paths our daemon opens allowed by our AppArmor
profiles?

Usage: aa_paths.py SRCDIR [--apparmor TREE [--strace NAME=TRACE]...]...
		   [--broken TREE] [--selinux PASST.IF]

TREE holds usr.bin.passt.pp, usr.bin.pasta.pp and usr.bin.pesto.pp, the
profiles as "apparmor_parser -p" prints them: every include expanded,
variables defined in the text.  The file rules
there are matched against the paths of the table below, as apparmor.d(5)
describes globbing (*, **, ?, [...], {a,b}, @{VAR}); a deny rule that
matches fails the check.  The table is tied to the code: every path literal
in SRCDIR's passt/, conf/ and tap/ sources ("/proc/...", "/dev/...", ...)
must be one the table knows, so a new path in the code fails this check
until the table (and the profiles) say how it is used.

Also checked: every capability of isolate_setup_caps (passt/isolation.c) is
granted to passt and pasta, and (--selinux) by passt_common_rules.
--strace NAME=TRACE: the paths the daemon opened in an "strace -f" run
are allowed by profile NAME of the last --apparmor TREE.
--broken TREE: profiles whose pasta lacks /dev/net/tun, which must fail on
that path and nothing else (the check can fail).

Prints one line per failure and "N passed, N failed" per group; exit status
1 on any failure.
"""

import os
import re
import sys

# Path literals of the code: literal -> what the daemon does with it
# (example paths with printf conversions filled in, and who needs them).
# "mount": a mount point of passt/isolation.c (mount rules, not file rules);
# "prefix": compared with, never opened.
BOTH = ("passt", "pasta")
KNOWN = {
    "/etc/resolv.conf": [(BOTH, "/etc/resolv.conf", "r")],
    "/proc/sys/net/ipv4/ip_local_port_range":
        [(BOTH, "/proc/sys/net/ipv4/ip_local_port_range", "r")],
    "/proc/sys/net/ipv4/ip_unprivileged_port_start":
        [(BOTH, "/proc/sys/net/ipv4/ip_unprivileged_port_start", "r")],
    "/proc/sys/fs/nr_open": [(BOTH, "/proc/sys/fs/nr_open", "r")],
    "/proc/self/uid_map": [(BOTH, "/proc/4321/uid_map", "rw")],
    "/proc/self/gid_map": [(BOTH, "/proc/4321/gid_map", "w")],
    "/proc/self/setgroups": [(BOTH, "/proc/4321/setgroups", "w")],
    "/dev/null": [(BOTH, "/dev/null", "rw")],
    "/dev/udmabuf": [(BOTH, "/dev/udmabuf", "rw")],
    "/dev/net/tun": [(("pasta",), "/dev/net/tun", "rw")],
    "/tmp/passt_%i.socket": [(("passt",), "/tmp/passt_1.socket", "rw")],
    "/run/netns/": [(("pasta",), "/run/netns/ns1", "r")],
    "/proc/%d/setgroups": [(("pasta",), "/proc/4322/setgroups", "w")],
    "/proc/%d/uid_map": [(("pasta",), "/proc/4322/uid_map", "w")],
    "/proc/%d/gid_map": [(("pasta",), "/proc/4322/gid_map", "w")],
    "/proc/%d/ns/user": [(("pasta",), "/proc/4322/ns/user", "r")],
    "/proc/%d/ns/net": [(("pasta",), "/proc/4322/ns/net", "r")],
    "/proc/self/ns/net": [(("pasta",), "/proc/4321/ns/net", "r")],
    "/proc/self/ns/user": [(("pasta",), "/proc/4321/ns/user", "r")],
    "/proc/sys/net/ipv6/conf/%s/%s":
        [(("pasta",), "/proc/sys/net/ipv6/conf/tap0/accept_dad", "w"),
         (("pasta",), "/proc/sys/net/ipv6/conf/eth0/autoconf", "w")],
    "/proc/%d/ns/net%n": "prefix",
    "/proc/": "prefix",
    "/tmp": "mount", "/run": "mount", "/var/tmp": "mount", "/dev": "mount",
    "/proc": "mount",
}

# Paths the user, libvirt, podman or rootlesskit choose (-s, -P, -l, -p,
# -c, --netns, the command).  lib/file.c creates DIR/.NAME.PID.HEX~ and
# renames (or, without RENAME_NOREPLACE, links) it to DIR/NAME.
def user_files(who, path):
    d, n = os.path.split(path)
    return [(who, path, "w"), (who, "%s/.%s.4321.1f2e~" % (d, n), "w")]


CHOSEN = (
    # what conf/resolv.c reads when resolv.conf is a link (resolved, NM)
    [(BOTH, "/run/systemd/resolve/stub-resolv.conf", "r"),
     (BOTH, "/etc/passwd", "r"), (BOTH, "/etc/group", "r"),   # --runas
     (BOTH, "/run/systemd/notify", "w")]                      # sdnotify.c
    + user_files(BOTH, "/tmp/passt.pid")
    + user_files(BOTH, "/tmp/passt.log")
    + user_files(BOTH, "/tmp/passt.pcap")
    + user_files(BOTH, "/home/alice/vm/net.pcap")
    + user_files(BOTH, "/var/tmp/passt.log")
    + user_files(BOTH, "/run/user/1000/passt.pid")
    # libvirt, system and session daemons (socket, PID file)
    + [(("passt",), "/run/libvirt/qemu/passt/1-vm-net0.socket", "rw"),
       (("passt",), "/run/libvirt/qemu/passt/1-vm-net0.pid", "w"),
       (("passt",), "/run/user/1000/libvirt/qemu/run/passt/1-vm-net0.socket",
        "rw"),
       (("passt",), "/tmp/vhost-user.sock", "rw")]
    # podman (container-libs pasta_linux.go, rootlessnetns): namespace
    # paths, PID file, control socket; rootlesskit: /proc/PID/ns/net
    + [(("pasta",), "/run/user/1000/netns/netns-1a2b3c4d", "r"),
       (("pasta",),
        "/run/user/1000/containers/networks/rootless-netns/rootless-netns",
        "r"),
       (("pasta",), "/tmp/storage-run-1000/netns/netns-1a2b3c4d", "r"),
       (("pasta",), "/run/user/1000/containers/networks/rootless-netns/"
        "rootless-netns-conn.pid", "w"),
       (("pasta",), "/run/user/1000/containers/networks/rootless-netns/"
        "pasta.sock", "rw"),
       (("pasta",), "/run/user/1000/netns/pasta.pid", "w")]
    + user_files(("pasta",), "/run/user/1000/containers/pasta.pid")
    # the command pasta starts (pasta_exec(): argv, or $SHELL)
    + [(("pasta",), "/bin/sh", "x"), (("pasta",), "/usr/bin/bash", "x"),
       (("pasta",), "/usr/bin/podman", "x"),
       (("pasta",), "/usr/local/bin/rootlesskit", "x")]
    # what libc, libcap-ng and libnl read (seen with strace): the base
    # abstraction's business, checked all the same
    + [(BOTH, "/proc/4321/status", "r"),
       (BOTH, "/proc/sys/kernel/cap_last_cap", "r"),
       (BOTH, "/etc/nsswitch.conf", "r"), (BOTH, "/etc/localtime", "r"),
       (BOTH, "/etc/ld.so.cache", "r"),
       (BOTH, "/usr/lib/x86_64-linux-gnu/libnl-route-3.so.200", "mr"),
       (BOTH, "/usr/lib/locale/C.utf8/LC_CTYPE", "r"),
       (BOTH, "/usr/share/locale/locale.alias", "r")]
    # pesto(1): the control socket, wherever it is
    + [(("pesto",), "/run/user/1000/containers/networks/rootless-netns/"
        "pasta.sock", "rw"),
       (("pesto",), "/tmp/passt.ctl", "rw"),
       (("pesto",), "/home/alice/.cache/pasta.sock", "rw")]
)

LITERAL = re.compile(r'"(/(?:proc|dev|etc|run|sys|tmp|var)(?:/[^"\s]*)?)"')


def code_literals(srcdir):
    """Path literals in the daemon's sources: {literal: "file:line"}"""
    found = {}
    for sub in ("passt", "conf", "tap", "entry"):
        top = os.path.join(srcdir, sub)
        for name in sorted(os.listdir(top)):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(top, name)
            with open(path, encoding="utf-8") as f:
                for no, line in enumerate(f, 1):
                    s = line.strip()
                    if s.startswith(("*", "/*", "//")):
                        continue
                    for m in LITERAL.finditer(line):
                        found.setdefault(m.group(1),
                                         "%s/%s:%d" % (sub, name, no))
    return found


VARDEF = re.compile(r'^\s*@\{(\w+)\}\s*(\+?=)\s*(.*?)\s*$')
RULE = re.compile(r'^\s*(?:audit\s+)?(deny\s+)?(?:owner\s+|other\s+)?'
                  r'(?:file\s+)?("[^"]+"|[/@]\S*)\s+'
                  r'([rwaxlkmiuUpPcCdD]+)(?:\s+->\s+\S+)?\s*,')


def parse_profile(text):
    """Variables and file rules of a preprocessed profile

    Return: (variables {name: [values]}, rules [(deny, glob, perms)])
    """
    variables, rules = {}, []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0]
        m = VARDEF.match(line)
        if m:
            vals = [v.strip('"') for v in m.group(3).split()]
            if m.group(2) == "+=":
                variables.setdefault(m.group(1), []).extend(vals)
            else:
                variables[m.group(1)] = vals
            continue
        m = RULE.match(line)
        if m:
            rules.append((bool(m.group(1)), m.group(2).strip('"'),
                          m.group(3)))
    return variables, rules


def expand(glob, variables, depth=0):
    """Replace @{VAR} by an alternation of its values"""
    if depth > 10:
        raise ValueError("variables nest too deep in " + glob)

    def one(m):
        vals = variables.get(m.group(1))
        if vals is None:
            raise ValueError("undefined variable @{%s}" % m.group(1))
        return "{" + ",".join(expand(v, variables, depth + 1)
                              for v in vals) + "}"
    return re.sub(r'@\{(\w+)\}', one, glob)


def glob_regex(glob):
    """apparmor.d(5) globbing as a Python regular expression"""
    out, i, depth = [], 0, 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = glob.index("]", i + 1)
            out.append(glob[i:j + 1])
            i = j + 1
            continue
        elif c == "{":
            depth += 1
            out.append("(?:")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        elif c == "/":
            # "//" (from "@{PROC}/") is one slash: a slash that follows
            # one matches nothing
            out.append("(?:/|(?<=/))")
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


def check(profile, rules, path, need):
    """Are @need permissions on @path granted, and none denied?"""
    allowed, denied = set(), set()
    for deny, rx, perms in rules:
        if rx.match(path):
            (denied if deny else allowed).update(perms)
    missing = [p for p in need if p not in allowed]
    hit = [p for p in need if p in denied]
    return missing, hit


def caps_needed(srcdir):
    """CAP_ names of isolate_setup_caps in passt/isolation.c"""
    with open(os.path.join(srcdir, "passt", "isolation.c"),
              encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'isolate_setup_caps\[\]\s*=\s*\{(.*?)\n\};', text, re.S)
    if not m:
        raise ValueError("isolate_setup_caps not found in isolation.c")
    return sorted(set(c.lower() for c in
                      re.findall(r'\{\s*CAP_(\w+)', m.group(1))))


def load_profiles(tree):
    """The preprocessed passt, pasta and pesto profiles in @tree"""
    profiles = {}
    for name in ("passt", "pasta", "pesto"):
        with open(os.path.join(tree, "usr.bin.%s.pp" % name),
                  encoding="utf-8") as f:
            text = f.read()
        variables, rules = parse_profile(text)
        compiled = [(d, glob_regex(expand(g, variables)), p)
                    for d, g, p in rules]
        profiles[name] = (text, compiled)
    return profiles


def check_apparmor(srcdir, profiles, result):
    """Paths of the code and chosen ones, and capabilities, in profiles"""
    table = []
    for lit, where in sorted(code_literals(srcdir).items()):
        use = KNOWN.get(lit)
        result(use is not None,
               "%s: path \"%s\" is new to test/lsm/aa_paths.py: say how "
               "it is opened there, and allow it in contrib/apparmor"
               % (where, lit))
        if isinstance(use, list):
            table += [(w, p, n, where) for w, p, n in use]
    table += [(w, p, n, "chosen") for w, p, n in CHOSEN]

    for who, path, need, where in table:
        for name in who:
            missing, hit = check(name, profiles[name][1], path, need)
            result(not missing and not hit,
                   "profile %s: %s %s (%s): %s" %
                   (name, need, path, where,
                    "denied " + "".join(hit) if hit else
                    "no rule grants " + "".join(missing)))

    for cap in caps_needed(srcdir):
        for name in ("passt", "pasta"):
            ok = re.search(r'^\s*capability\s+%s\s*,' % cap,
                           profiles[name][0], re.M)
            result(ok, "profile %s: capability %s (isolate_setup_caps) "
                   "not granted" % (name, cap))


def check_selinux(srcdir, iface, result):
    """Capabilities of isolate_setup_caps in passt_common_rules"""
    with open(iface, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^interface\(`passt_common_rules'(.*?)^'\)", text,
                  re.S | re.M)
    result(m, "%s: no passt_common_rules interface" % iface)
    if not m:
        return
    for cls in ("capability", "cap_userns"):
        g = re.search(r'self:%s\s*\{([^}]*)\}' % cls, m.group(1))
        have = set(g.group(1).split()) if g else set()
        for cap in caps_needed(srcdir):
            result(cap in have, "passt_common_rules: self:%s %s "
                   "(isolate_setup_caps) not allowed" % (cls, cap))


STRACE_LINE = re.compile(r'^(\d+)\s+(\w+)\((.*)$')
STRACE_STR = re.compile(r'"((?:[^"\\]|\\.)*)"')


def strace_uses(trace):
    """Paths a traced daemon used, from "strace -f -o" output

    Processes that execute something after the daemon's own execve() (the
    command pasta starts) are left out from there on: they don't run under
    the daemon's profile.  Children they fork are not told apart, so the
    command traced must not fork (":").  Opens with O_PATH (not
    mediated), relative paths, abstract sockets and opens that failed with
    ENOENT without O_CREAT are left out too.

    Return: list of (path, perms, syscall)
    """
    uses, foreign, first, lines, pending = [], set(), None, [], {}
    with open(trace, encoding="utf-8", errors="replace") as f:
        # join "<unfinished ...>" calls with their "<... resumed>" ends
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r'^(\d+)\s+<\.\.\. \w+ resumed>(.*)$', line)
            if m and m.group(1) in pending:
                lines.append(pending.pop(m.group(1)) + m.group(2))
            elif line.endswith("<unfinished ...>"):
                pid = line.split(None, 1)[0]
                pending[pid] = line[:-len("<unfinished ...>")].rstrip()
            else:
                lines.append(line)
        for line in lines:
            m = STRACE_LINE.match(line)
            if not m:
                continue
            pid, call, rest = m.groups()
            if first is None:
                first = pid
            if pid in foreign:
                continue
            ret = rest.rsplit("=", 1)[-1].strip() if "=" in rest else ""
            if call in ("clone", "clone3", "fork", "vfork"):
                continue        # children of foreign ones: see the command
            strs = STRACE_STR.findall(rest)
            if call == "execve":
                if pid == first and not uses:
                    continue            # the daemon itself
                if "ENOENT" in ret:
                    continue            # execvp() going through $PATH
                uses.append((strs[0], "x", call))
                foreign.add(pid)
                continue
            if call in ("open", "openat"):
                if not strs or "O_PATH" in rest:
                    continue
                if "ENOENT" in ret and "O_CREAT" not in rest:
                    continue
                perms = ("rw" if "O_RDWR" in rest else
                         "w" if "O_WRONLY" in rest else "r")
                if "O_CREAT" in rest and "w" not in perms:
                    perms += "w"
                path = strs[0] + ("/" if "O_DIRECTORY" in rest else "")
                uses.append((path, perms, call))
            elif call in ("bind", "connect"):
                m2 = re.search(r'sun_path="([^"@][^"]*)"', rest)
                if m2:
                    uses.append((m2.group(1), "w", call))
            elif call in ("renameat2", "rename", "unlink", "unlinkat"):
                uses += [(p, "w", call) for p in strs if p.startswith("/")]
            elif call in ("link", "linkat") and len(strs) >= 2:
                uses.append((strs[-1], "l", call))
    out = []
    for path, perms, call in uses:
        if not path.startswith("/"):
            continue
        path = re.sub(r'^/proc/(self|thread-self)/', "/proc/4321/", path)
        out.append((path, perms, call))
    return out


def check_strace(profiles, name, trace, result):
    """Every path the daemon used in @trace is allowed by profile @name"""
    seen = set()
    for path, perms, call in strace_uses(trace):
        if (path, perms) in seen:
            continue
        seen.add((path, perms))
        missing, hit = check(name, profiles[name][1], path, perms)
        result(not missing and not hit,
               "profile %s: %s %s (%s, seen running): %s" %
               (name, perms, path, call,
                "denied " + "".join(hit) if hit else
                "no rule grants " + "".join(missing)))
    result(seen, "%s: nothing seen in %s" % (name, trace))


class Counter:
    """Results of one group of checks"""

    def __init__(self, quiet=False):
        self.passed, self.failed, self.quiet, self.lines = 0, 0, quiet, []

    def __call__(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.lines.append("lsm: FAIL " + what)
            if not self.quiet:
                print(self.lines[-1])


def main():
    """Groups: --apparmor TREE, --broken TREE (must fail, on /dev/net/tun
    of pasta), --selinux PASST.IF; one line of results for each"""
    srcdir, args, status, profiles = sys.argv[1], sys.argv[2:], 0, None
    while len(args) >= 2:
        opt, arg, args = args[0], args[1], args[2:]
        if opt == "--apparmor":
            c = Counter()
            profiles = load_profiles(arg)
            check_apparmor(srcdir, profiles, c)
            print("apparmor %s: %d passed, %d failed" %
                  (os.path.basename(arg), c.passed, c.failed))
        elif opt == "--strace":
            name, trace = arg.split("=", 1)
            c = Counter()
            check_strace(profiles, name, trace, c)
            print("apparmor, paths %s opened running: %d passed, "
                  "%d failed" % (name, c.passed, c.failed))
        elif opt == "--broken":
            c = Counter(quiet=True)
            check_apparmor(srcdir, load_profiles(arg), c)
            tun = [x for x in c.lines if "pasta: rw /dev/net/tun" in x]
            ok = c.failed == len(tun) == 1
            print("apparmor %s: /dev/net/tun taken out of pasta %s" %
                  (os.path.basename(arg), "seen" if ok else "NOT seen"))
            if not ok:
                print("\n".join(c.lines))
                status = 1
            continue
        elif opt == "--selinux":
            c = Counter()
            check_selinux(srcdir, arg, c)
            print("selinux capabilities: %d passed, %d failed" %
                  (c.passed, c.failed))
        else:
            print("unknown option " + opt)
            return 2
        if c.failed:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
