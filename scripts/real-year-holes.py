#!/usr/bin/env python3
"""Counts, per zone, the slots of a window with generation data but no carbon footprint, through a
server's /v1/availability and /v1/footprints (scripts/real-year-bench.sh --holes).

    scripts/real-year-holes.py BASE TOKEN START END
"""
import json, sys, urllib.request, datetime as dt
base, token, start, end = sys.argv[1:5]
def get(path):
    req = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + token, "Accept": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=600))
def ts(s): return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
def slots(a, b): return int((ts(b) - ts(a)).total_seconds() // 900)
total_holes = 0
for z in get(f"/v1/availability?start={start}&end={end}"):
    gen = [r for i in z["inputs"] if i["input"] == "generation" for r in i["runs"]]
    if not gen: continue
    have = set()
    for r in gen:
        s0 = ts(r["start"]); n = slots(r["start"], r["end"])
        have.update(s0 + dt.timedelta(minutes=15 * k) for k in range(n))
    fp = get(f"/v1/footprints?zone={z['zone']}&footprint_type=carbon&start={start}&end={end}")
    got = {ts(p[0]) for r in fp for e in r["series"] for p in e["values"]}
    holes = len(have - got)
    total_holes += holes
    print(f"{z['zone']:4} generation slots {len(have):6}  footprints {len(got):6}  holes {holes}")
print(f"zone-slots with generation but no footprint: {total_holes}")
