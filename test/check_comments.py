#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# test/check_comments.py - Comments that name functions which don't exist
#
# Usage: test/check_comments.py [DIR...]   (default: the C folders of the tree)
#
# Two checks over every .c and .h file:
#
# 1. Every "name()" written in a comment must exist.  A name exists if the
#    code of the tree (comments and strings removed) has "name(" somewhere:
#    a definition, a prototype, a function-like macro or a call, so libc
#    functions we call count as well.  Otherwise it must be declared by the
#    C library's headers (/usr/include/*.h, sys/*.h: qsort()), be a Linux
#    system call (__NR_name in <asm/unistd_64.h>), or be listed in EXTERNAL
#    below with where it lives: kernel internals, libsystemd, upstream passt.
#    "->name()" and ".name()" (operations) and "*_name()" (a family of
#    names) are not checked.
#
# 2. A kernel-doc header "name() - Summary" must sit above the function or
#    macro called name: "name(" comes before the first "{" or ";" that
#    follows the comment.
#
# Prints "file:line: name() ..." for each finding; exit 1 if there is any.
import os
import re
import sys

DIRS = ["lib", "conf", "tap", "passt", "splice", "entry", "pesto", "repair", "test"]

# Functions that comments name on purpose and that are not ours and not
# called by us: what they say the kernel (or a library) does.  One line per
# name, with the file that defines it.
EXTERNAL = {
    # Linux, net/
    "__udp_gso_segment": "net/ipv4/udp_offload.c",
    "dev_valid_name": "net/core/dev.c",
    "eth_validate_addr": "net/ethernet/eth.c",
    "ether_setup": "net/ethernet/eth.c",
    "ipv6_recv_error": "net/ipv6/datagram.c",
    "netdev_nl_bind_rx_doit": "net/core/netdev-genl.c",
    "netlink_ack": "net/netlink/af_netlink.c",
    "netlink_overrun": "net/netlink/af_netlink.c",
    "inet_init": "net/ipv4/af_inet.c",
    "ping_err": "net/ipv4/ping.c",
    "proto_register": "net/core/sock.c",
    "put_cmsg_notrunc": "net/core/scm.c",
    "sk_clone_lock": "net/core/sock.c",
    "sk_stream_min_wspace": "include/net/sock.h",
    "sock_devmem_dontneed": "net/core/sock.c",
    "tcp_bound_to_half_wnd": "net/ipv4/tcp_output.c",
    "tcp_close": "net/ipv4/tcp.c",
    "tcp_create_openreq_child": "net/ipv4/tcp_minisocks.c",
    "tcp_get_info": "net/ipv4/tcp.c",
    "tcp_inq": "include/net/tcp.h",
    "tcp_ioctl": "net/ipv4/tcp.c",
    "tcp_peek_sndq": "net/ipv4/tcp.c",
    "tcp_poll": "net/ipv4/tcp.c",
    "tcp_rcv_space_adjust": "net/ipv4/tcp_input.c",
    "tcp_rcvbuf_grow": "net/ipv4/tcp_input.c",
    "tcp_recvmsg_dmabuf": "net/ipv4/tcp.c",
    "tcp_recvmsg_locked": "net/ipv4/tcp.c",
    "tcp_sendmsg": "net/ipv4/tcp.c",
    "tcp_set_rcvlowat": "net/ipv4/tcp.c",
    "tcp_v4_err": "net/ipv4/tcp_ipv4.c",
    "tcp_write_xmit": "net/ipv4/tcp_output.c",
    "tcp_xmit_probe_skb": "net/ipv4/tcp_output.c",
    "udp4_lib_lookup2": "net/ipv4/udp.c",
    "udp_gro_receive_segment": "net/ipv4/udp_offload.c",
    "virtio_net_hdr_to_skb": "include/linux/virtio_net.h",
    # Linux, elsewhere
    "dma_buf_attach": "drivers/dma-buf/dma-buf.c",
    "ksys_ioctl": "fs/ioctl.c (before Linux 5.10)",
    # libsystemd (sd-daemon(3)): we speak its protocols ourselves
    "sd_listen_fds": "libsystemd, sd_listen_fds(3)",
    "sd_notify": "libsystemd, sd_notify(3)",
    # upstream passt (the comparison in test/unit/vhost_user_test.c)
    "tcp_flow_migrate_source": "upstream passt, tcp.c",
    "tcp_flow_migrate_source_ext": "upstream passt, tcp.c",
    "vu_get_features_exec": "upstream passt, vhost_user.c",
}

TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'
                    r"'(?:\\.|[^'\\\n])*'", re.S)
CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
DEFINE = re.compile(r'#\s*define\s+([A-Za-z_]\w*)')
MENTION = re.compile(r'(?<![\w.>*-])([A-Za-z_]\w*)\(\)')
KDOC = re.compile(r'\A/\*\*\s*\n\s*\*\s*([A-Za-z_]\w*)\(\)\s+-')
SYSCALLS = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"
LIBC = ["/usr/include", "/usr/include/x86_64-linux-gnu/sys"]


def syscalls():
    """Names of the system calls of <asm/unistd_64.h>, if it is there"""
    for path in (SYSCALLS, "/usr/include/asm/unistd_64.h"):
        if os.path.exists(path):
            with open(path, encoding="utf-8") as fh:
                return set(re.findall(r'#define\s+__NR_(\w+)', fh.read()))
    return set()


def libc():
    """Every "name(" of the C library's top-level and sys/ headers"""
    names = set()
    for d in LIBC:
        if not os.path.isdir(d):
            continue
        for n in os.listdir(d):
            if n.endswith(".h"):
                with open(os.path.join(d, n), encoding="utf-8",
                          errors="replace") as fh:
                    names |= set(CALL.findall(fh.read()))
    return names


def split(text):
    """Code with comments blanked, and (offset, comment) pairs"""
    code, comments, pos = [], [], 0
    for m in TOKENS.finditer(text):
        code.append(text[pos:m.start()])
        pos = m.end()
        tok = m.group(0)
        if tok.startswith("/"):
            comments.append((m.start(), tok))
            code.append(" " * len(tok))   # keep offsets
        else:
            code.append('"' + " " * (len(tok) - 2) + '"')
    code.append(text[pos:])
    return "".join(code), comments


def main(dirs):
    files = []
    for d in dirs:
        for root, subdirs, names in os.walk(d):
            subdirs.sort()
            files += [os.path.join(root, n) for n in sorted(names)
                      if n.endswith((".c", ".h"))]

    parsed, known = [], set(EXTERNAL) | syscalls() | libc()
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        code, comments = split(text)
        known |= set(CALL.findall(code)) | set(DEFINE.findall(code))
        parsed.append((f, text, code, comments))

    bad = 0
    for f, text, code, comments in parsed:
        for off, com in comments:
            for m in MENTION.finditer(com):
                if m.group(1) not in known:
                    line = text.count("\n", 0, off + m.start()) + 1
                    print(f"{f}:{line}: {m.group(1)}() is no function or "
                          "macro of the tree, nor a system call or a listed "
                          "external name")
                    bad += 1
            k = KDOC.match(com)
            if not k:
                continue
            end = off + len(com)
            decl = re.match(r'[^{;]*', code[end:]).group(0)
            if not re.search(r'\b' + k.group(1) + r'\s*\(', decl):
                line = text.count("\n", 0, off) + 1
                first = " ".join(decl.split())[:60]
                print(f"{f}:{line}: kernel-doc for {k.group(1)}() sits "
                      f"above: {first}")
                bad += 1
    if bad:
        print(f"comments: {bad} finding(s)")
        return 1
    print(f"comments: every name() in the comments of {len(files)} files "
          "exists, every kernel-doc header names its function")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or DIRS))
