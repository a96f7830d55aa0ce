#!/usr/bin/env python3
"""Benchmark input only (docs/performance.md, the worker's cycle): website-export CSVs of day-ahead
wind and solar "forecasts" for every zone of ../shared/data/recordings-2022 from FROM to TO (UTC
dates), whose values are the zone's actual values of the hour, so that a worker cycle reads and
blends as many TSO values as a real day-ahead forecast would give. Not data: never import it
beside real forecasts.

    python3 scripts/tso-standin-forecasts.py OUT_DIR [FROM TO]   # default 2022-09-14 2022-10-18
"""
import collections
import csv
import gzip
import sys
from datetime import datetime, timedelta

out = sys.argv[1]
first, last = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("2022-09-14", "2022-10-18")
TYPES = ("Solar", "Wind Onshore", "Wind Offshore")
values = collections.defaultdict(dict)  # zone -> {(hour, type): MW}, the first value of the hour
day, end = datetime.strptime(first, "%Y-%m-%d"), datetime.strptime(last, "%Y-%m-%d")
months = sorted({(day + timedelta(days=i)).strftime("%Y-%m") for i in range((end - day).days + 1)})
for month in months:
    name = f"../shared/data/recordings-2022/{month.replace('-', '_')}_AggregatedGenerationPerType_16.1.B_C.csv.gz"
    with gzip.open(name, "rt") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            hour = r["DateTime"][:13]
            if r["ProductionType"] in TYPES and r["ActualGenerationOutput"] and first <= hour[:10] <= last:
                values[r["MapCode"]].setdefault((hour, r["ProductionType"]), r["ActualGenerationOutput"])
for zone, v in sorted(values.items()):
    types = sorted({t for _, t in v})
    with open(f"{out}/wind-solar_{zone}.csv", "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(["MTU (UTC)"] + [f"Generation - {t} [MW] Day Ahead/ BZN|{zone}" for t in types])
        for hour in sorted({h for h, _ in v}):
            start = datetime.strptime(hour, "%Y-%m-%d %H")
            end = start + timedelta(hours=1)
            w.writerow([f"{start:%d.%m.%Y %H:%M} - {end:%d.%m.%Y %H:%M}"] + [v.get((hour, t), "N/A") for t in types])
print(f"{len(values)} zones written to {out}")
