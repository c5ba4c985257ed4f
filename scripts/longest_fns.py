#!/usr/bin/env python3
"""The longest Rust functions under a folder (issue 10's figure).

Usage: python3 scripts/longest_fns.py [src] [N]
Counts the lines from a `fn` keyword to its closing brace, with comments,
strings, raw strings and char literals skipped while matching braces.
Functions inside `#[cfg(test)]` modules are left out.
"""
import os
import re
import sys


def blank_literals(src):
    """The source with comments and literals replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j): depth += 1; j += 2
                elif src.startswith("*/", j): depth -= 1; j += 2
                else: j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j])); i = j
        elif (m := re.match(r'b?r(#*)"', src[i:i + 40])) and (i == 0 or not (src[i-1].isalnum() or src[i-1] == "_")):
            end = '"' + m.group(1)
            j = src.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", src[i:j])); i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j])); i = j
        elif c == "'" and (m := re.match(r"'(\\.[^']*|[^\\'])'", src[i:i + 12])):
            out.append(" " * m.end()); i += m.end()
        else:
            out.append(c); i += 1
    return "".join(out)


def functions(path):
    text = blank_literals(open(path, encoding="utf-8").read())
    line_of = lambda pos: text.count("\n", 0, pos) + 1
    test_ranges = []
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(pub\s+)?mod\s+\w+\s*\{", text):
        test_ranges.append((m.end() - 1, match_brace(text, m.end() - 1)))
    for m in re.finditer(r"\bfn\s+(\w+)", text):
        j = m.end()
        depth = 0
        while j < len(text):
            ch = text[j]
            if ch in "(<[": depth += 1
            elif ch in ")>]": depth -= 1
            elif ch == ";" and depth <= 0: j = -1; break
            elif ch == "{" and depth <= 0: break
            j += 1
        if j < 0 or j >= len(text):
            continue  # a declaration without a body
        end = match_brace(text, j)
        if any(a < m.start() < b for a, b in test_ranges):
            continue
        yield m.group(1), line_of(m.start()), line_of(end)


def match_brace(text, open_at):
    depth = 0
    for k in range(open_at, len(text)):
        if text[k] == "{": depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(text)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "src"
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    rows = []
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".rs"):
                p = os.path.join(d, f)
                rows += [(b - a + 1, f"{p}:{a}", name) for name, a, b in functions(p)]
    rows.sort(key=lambda r: (-r[0], r[1]))
    for lines, where, name in rows[:top]:
        print(f"{lines:5}  {name}  {where}")


if __name__ == "__main__":
    main()
