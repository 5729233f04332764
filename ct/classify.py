#!/usr/bin/env python3
"""Classify a memcheck log of ct-harness: each error is allowed when its
innermost frame inside blockmodes names a declassification point of
ct/declassify.txt; otherwise it is a failure, printed with its stack.
Usage: classify.py CASE LOG DECLASSIFY"""
import re
import sys

case, log, allow_file = sys.argv[1:4]
allow = []  # (function name, file path suffix)
for line in open(allow_file):
    line = line.strip()
    if line and not line.startswith("#"):
        func, path = line.split()[:2]
        allow.append((func, path))


def allowed_at(frame):
    """The frame is `FUNC` (a path ending in it, or generic) in a file whose
    path contains `path` (so a module split into a directory still matches)."""
    for func, path in allow:
        if re.search(r"(^|[\s:])" + re.escape(func) + r"(<.*>)? \(\S*" + re.escape(path) + r"\S*:\d+\)", frame):
            return True
    return False

text = open(log).read()
# Error blocks: lines "==PID== <message>" followed by "==PID==    at/by ..." frames.
blocks, cur = [], None
for line in text.splitlines():
    m = re.match(r"==\d+== (.*)$", line)
    if not m:
        continue
    body = m.group(1)
    if re.match(r"\s+(at|by) 0x", body):
        if cur is not None:
            cur["frames"].append(body.strip())
    elif body and not body.startswith((" ", "Use --track-origins")) and (
        "uninitialised" in body or "Invalid" in body or "Syscall param" in body
    ):
        cur = {"msg": body, "frames": []}
        blocks.append(cur)
    elif not body.strip():
        cur = None

def innermost_own(frames):
    """The innermost frame in the library's sources (valgrind runs with
    --fullpath-after= so frames carry their full file paths)."""
    for f in frames:
        if "/crates/blockmodes/src/" in f:
            return f
    return frames[0] if frames else ""

bad, allowed = [], 0
for b in blocks:
    top = innermost_own(b["frames"])
    if allowed_at(top) and "uninitialised" in b["msg"]:
        allowed += 1
    else:
        bad.append(b)

summary = re.search(r"ERROR SUMMARY: (\d+) errors", text)
print(f"  {case:<10} memcheck errors: {summary.group(1) if summary else '?'}; "
      f"at declassification points: {allowed}; elsewhere: {len(bad)}")
for b in bad[:6]:
    print(f"    {b['msg']}")
    for f in b["frames"][:8]:
        print(f"      {f}")
sys.exit(1 if bad else 0)
