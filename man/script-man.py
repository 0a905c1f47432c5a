#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""script-man.py: the man page (roff, section 1) of one of the Python
commands in scripts/, made from its own argparse --help, so the page lists
exactly the options the command takes. Usage: script-man.py SCRIPT > NAME.1
"""
import os
import re
import subprocess
import sys

SEE_ALSO = ["destor(1)", "destor.config(5)"]


def roff_text(s):
    """A line of text as roff: backslashes and hyphens escaped, no line
    starting with a control character."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return ("\\&" + s) if s[:1] in (".", "'") else s


def sections(help_text):
    """usage, then (heading, lines) pairs of argparse's help."""
    blocks, cur, heading = [], [], "usage"
    for line in help_text.splitlines():
        m = re.match(r"^([A-Za-z][A-Za-z ]*):$", line)
        if m and not line.startswith(" "):
            blocks.append((heading, cur))
            heading, cur = m.group(1), []
        else:
            cur.append(line)
    blocks.append((heading, cur))
    return blocks


def options(lines):
    """argparse option lines -> (term, description) pairs."""
    items = []
    for line in lines:
        if not line.strip():
            continue
        m = re.match(r"^  (\S.*?)(?:  +(\S.*))?$", line)
        if m and not line.startswith("    " + " " * 10) and line[2] != " ":
            items.append([m.group(1), m.group(2) or ""])
        elif items:
            items[-1][1] = (items[-1][1] + " " + line.strip()).strip()
    return items


def main(argv):
    script = argv[1]
    name = os.path.basename(script)
    out = subprocess.run([sys.executable, script, "--help"], stdout=subprocess.PIPE, check=True,
                         env=dict(os.environ, COLUMNS="100")).stdout.decode("utf-8")
    blocks = sections(out)
    usage_lines = blocks[0][1]
    text = "\n".join(usage_lines).strip()
    usage, _, description = text.partition("\n\n")
    usage = re.sub(r"^usage:\s*", "", usage)
    usage = " ".join(usage.split())
    print('.TH %s 1 "" "destor-plc" "destor-plc commands"' % name.upper().replace("-", "\\-"))
    print(".SH NAME")
    first = " ".join(description.split()).split(". ")[0].rstrip(".") if description else name
    print("%s \\- %s" % (roff_text(name), roff_text(first[0].lower() + first[1:] if first else "")))
    print(".SH SYNOPSIS")
    print(".B %s" % roff_text(name))
    print(roff_text(usage[len(name):].strip()))
    print(".SH DESCRIPTION")
    for para in description.split("\n\n"):
        if para.strip():
            print(".PP")
            print(roff_text(" ".join(para.split())))
    for heading, lines in blocks[1:]:
        print(".SH %s" % roff_text(heading.upper()))
        items = options(lines)
        epilogue = []
        for term, desc in items:
            if term.startswith("-") or heading.startswith("positional"):
                print(".TP")
                print("\\fB%s\\fR" % roff_text(term))
                print(roff_text(desc))
            else:
                epilogue.append(term + " " + desc)
        rest = [l for l in lines if l.strip() and not l.startswith("  ")]
        for para in "\n".join(rest + epilogue).split("\n\n"):
            if para.strip():
                print(".PP")
                print(roff_text(" ".join(para.split())))
    print(".SH SEE ALSO")
    print(", ".join("\\fB%s\\fR%s" % (s.split("(")[0].replace("-", "\\-"), "(" + s.split("(")[1]) for s in SEE_ALSO))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
