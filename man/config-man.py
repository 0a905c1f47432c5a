#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""config-man.py: destor.config(5), made from the sample destor.config,
which documents every key in the comment above it; so the page and the
sample never disagree. Usage: config-man.py destor.config > destor.config.5
"""
import re
import sys

KEY = re.compile(r"^#?([a-z0-9][a-z0-9-]*)\s+(\S.*)$")


def roff(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return ("\\&" + s) if s[:1] in (".", "'") else s


def main(argv):
    lines = open(argv[1], encoding="utf-8").read().splitlines()
    header, i = [], 0
    while i < len(lines) and lines[i].startswith("#"):
        header.append(lines[i].lstrip("#").strip())
        i += 1
    print('.TH DESTOR.CONFIG 5 "" "destor-plc" "destor-plc file formats"')
    print(".SH NAME")
    print("destor.config \\- settings of destor\\-plc")
    print(".SH SYNOPSIS")
    print("\\fB./destor.config\\fR, or the file given with \\fBdestor \\-c\\fR \\fIFILE\\fR")
    print(".SH DESCRIPTION")
    print(".PP")
    print(roff(" ".join(header[1:]) if len(header) > 1 else " ".join(header)))
    print(".PP")
    print("Each key below is shown with the value the sample configuration gives it.")
    print(".SH KEYS")
    comment, items, last_was_key = [], [], False

    def flush():
        # a comment no key follows is a paragraph; its indented
        # "#   key form" lines a list (the upstream Destor keys)
        if comment and not last_was_key:
            print(".PP")
            print(roff(" ".join(comment)))
        for name, form in items:
            print(".TP")
            print("\\fB%s\\fR \\fI%s\\fR" % (roff(name), roff(form)))

    for line in lines[i:]:
        s = line.strip()
        section = re.match(r"^#\s*-+\s*(.*?)\s*-+\s*$", s)
        key = KEY.match(s) if re.match(r"^#?[a-z0-9][a-z0-9-]* ", s) else None
        item = re.match(r"^#\s{2,}([a-z][a-z0-9-]*)\s+(\S.*)$", s)
        if section:
            flush()
            print(".SS %s" % roff(section.group(1)))
            comment, items, last_was_key = [], [], False
        elif item:
            items.append((item.group(1), item.group(2)))
        elif key:
            # a run of keys shares the comment above it
            print(".TP")
            print("\\fB%s\\fR \\fI%s\\fR%s" % (roff(key.group(1)), roff(key.group(2)),
                                           " (no default)" if s.startswith("#") else ""))
            if comment:
                print(roff(" ".join(comment)))
            last_was_key = True
        elif s.startswith("#"):
            if last_was_key:
                comment, last_was_key = [], False
            if s.lstrip("#").strip():
                comment.append(s.lstrip("#").strip())
        else:
            flush()
            comment, items, last_was_key = [], [], False
    flush()
    print(".SH EXIT STATUS")
    print("A bad line (an unknown key, a missing value, a word more than the key takes, "
          "an unknown value, a bad size) makes destor exit 2 with one "
          "\\fBdestor:\\fR line naming the file and the line (or the \\fB\\-p\\fR override), "
          "the key and what is wrong.")
    print(".SH SEE ALSO")
    print("\\fBdestor\\fR(1)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
