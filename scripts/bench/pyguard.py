#!/usr/bin/env python3
"""The peer the hook benchmark measures git-queen against: a pre-commit
reservation guard as agent tools write it in Python (read the staged paths
with git, read the reservation log, latest line per id, fnmatch every path
against every active exclusive reservation of another agent)."""
import fnmatch, json, os, subprocess, sys
from datetime import datetime, timezone

me = os.environ.get("QUEEN_DROID", "")
staged = subprocess.run(["git", "diff", "--cached", "--name-only", "-z"], capture_output=True, check=True).stdout.decode().split("\0")
latest = {}
with open(".git/queen/queen_reservations.jsonl") as f:
    for line in f:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        latest[r["id"]] = r
now = datetime.now(timezone.utc)
held = []
for r in latest.values():
    if r["status"] != "active" or not r.get("exclusive") or r["droid"] == me:
        continue
    if datetime.fromisoformat(r["expires_at"].replace("Z", "+00:00")) <= now:
        continue
    for p in staged:
        if p and not p.startswith(".beads/") and fnmatch.fnmatch(p, r["pattern"]):
            held.append((p, r["droid"]))
if held:
    for p, d in held:
        print(f"{p}: reserved by {d}", file=sys.stderr)
    sys.exit(1)
