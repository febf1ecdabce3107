#!/usr/bin/env python3
"""packfs(1) in roff from the argument parser's own help: `packfs help` and `packfs help SUB` for
every subcommand, each a section with its usage, arguments and options as printed.

usage: manpage.py PACKFS VERSION > packfs.1
"""
import re
import subprocess
import sys


def help_text(packfs, *words):
    return subprocess.run([packfs, "help", *words], capture_output=True, text=True, check=True).stdout


def roff(text):
    """Help text as roff: sections of the help become .SS, other lines stay as they are."""
    out = []
    for line in text.splitlines():
        line = line.replace("\\", "\\e")
        if line.startswith("."):
            line = "\\&" + line
        if re.match(r"^[A-Z ]+:$", line):
            out.append(".TP 0\n.B " + line[:-1].title())
        elif line.strip():
            out.append(line)
        else:
            out.append(".sp")
    return "\n".join(out)


def main(packfs, version):
    top = help_text(packfs)
    subcommands = re.findall(r"^  (\w+)\s{2,}", top.split("SUBCOMMANDS:")[1], re.M)
    print(f'.TH PACKFS 1 "" "packfs {version}" "User Commands"')
    print(".SH NAME\npackfs \\- offline map packs (MapLibre Native's offline database) as a filesystem")
    print(".SH SYNOPSIS\n.B packfs\n.I subcommand\n[options]")
    print(".SH DESCRIPTION\n.nf")
    print(roff(top))
    print(".fi")
    for name in subcommands:
        if name == "help":
            continue
        print(f".SH {name.upper()}\n.nf")
        print(roff(help_text(packfs, name)))
        print(".fi")
    print(".SH SEE ALSO\nmount.fuse.packfs(8), fusermount3(1), mount(8)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
