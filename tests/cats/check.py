"""Checks one CATS run against gridprint (tests/cats/run.sh calls it).

1. The first series CATS reads (`response[0]["series"][0]`, the only one it looks at) covers the whole
   window it asked for, without a gap; and from the window's first slot the first series of
   `/v1/footprints` reaches the end of the data (the forecast's end): one series, api-contract.md §6.
2. The start CATS printed minimises CATS' own measure, recomputed here independently from gridprint's
   full `/v1/footprints` series: the trapezoidal mean of the piecewise-linear series over
   [start, start + duration], for starts every 15 minutes from CATS' "now" (its `valueNow.start`), up to
   CATS' default search window of 2,820 minutes.
3. At least `--min-hours` of data exist from now.
"""

import argparse
import datetime as dt
import json
import sys
import urllib.parse
import urllib.request

STEP = dt.timedelta(minutes=15)
UTC = dt.timezone.utc
MAX_WINDOW_MIN = 2820  # CATS' default and largest --window


def parse_ts(s):
    return dt.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def floor15(t):
    return t.replace(minute=t.minute - t.minute % 15, second=0, microsecond=0)


def post_json(url, body):
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def get_json(url, token):
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def value_at(points, t):
    """Linear interpolation of the piecewise-linear series at t (points sorted, t inside)."""
    for (t0, v0), (t1, v1) in zip(points, points[1:]):
        if t0 <= t <= t1:
            return v0 + (v1 - v0) * (t - t0).total_seconds() / (t1 - t0).total_seconds()
    raise ValueError(f"{t} outside the series")


def mean_over(points, a, b):
    """Exact mean of the piecewise-linear series over [a, b] (trapezoids between its knots)."""
    knots = [(a, value_at(points, a))]
    knots += [(t, v) for t, v in points if a < t < b]
    knots.append((b, value_at(points, b)))
    area = sum(
        0.5 * (v0 + v1) * (t1 - t0).total_seconds()
        for (t0, v0), (t1, v1) in zip(knots, knots[1:])
    )
    return area / (b - a).total_seconds()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--email", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--cats-output", required=True)
    p.add_argument("--trace", required=True)
    p.add_argument("--duration", type=int, required=True)
    p.add_argument("--location", default="DE")
    p.add_argument("--min-hours", type=float, default=0)
    a = p.parse_args()
    failures = []

    cats = json.load(open(a.cats_output, encoding="utf-8"))
    now = dt.datetime.fromisoformat(cats["valueNow"]["start"]).astimezone(UTC)
    cats_start = dt.datetime.fromisoformat(cats["valueOptimal"]["start"]).astimezone(UTC)
    cats_value = cats["valueOptimal"]["value"]

    # 1. What CATS asked for and read.
    trace = [json.loads(line) for line in open(a.trace, encoding="utf-8")]
    if not trace:
        sys.exit("CATS fetched nothing (empty trace)")
    first = trace[0]
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(first["url"]).query)
    asked_start = dt.datetime.fromisoformat(q["start"][0]).replace(tzinfo=UTC)
    asked_end = dt.datetime.fromisoformat(q["end"][0]).replace(tzinfo=UTC)
    series0 = [(parse_ts(t), v) for t, v in first["answer"][0]["series"][0]["values"]]
    n_series = len(first["answer"][0]["series"])
    need_from, need_to = floor15(asked_start), floor15(asked_end - dt.timedelta(microseconds=1))
    gaps = [t0 for (t0, _), (t1, _) in zip(series0, series0[1:]) if t1 - t0 != STEP]
    if series0[0][0] > need_from or series0[-1][0] < need_to or gaps:
        failures.append(
            f"first series covers {series0[0][0]:%FT%TZ}..{series0[-1][0]:%FT%TZ} "
            f"({len(series0)} points, {len(gaps)} gaps, {n_series} series in the answer); "
            f"CATS asked for {asked_start:%FT%TZ}..{asked_end:%FT%TZ} "
            f"(slots {need_from:%FT%TZ}..{need_to:%FT%TZ})"
        )

    # 2. gridprint's own full series, fetched independently of CATS.
    token = post_json(
        f"{a.url}/token-request/get_token", {"email": a.email, "password": a.password}
    )["access_token"]
    query = urllib.parse.urlencode(
        {
            "footprint_type": "carbon",
            "zone": a.location,
            "start": floor15(now).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "end": (now + dt.timedelta(hours=100)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
    )
    answer = get_json(f"{a.url}/v1/footprints?{query}", token)
    points = sorted(
        (parse_ts(t), v) for s in answer[0]["series"] for t, v in s["values"]
    )
    if points[0][0] > now:
        sys.exit(f"gridprint's series starts at {points[0][0]}, after now ({now})")
    # 1b. Now and the forecast in one series (api-contract.md §6): from the window's first slot, the
    # first series reaches the forecast's end.
    first_of_all = answer[0]["series"][0]["values"]
    if parse_ts(first_of_all[-1][0]) != points[-1][0]:
        failures.append(
            f"from {floor15(now):%FT%TZ} the first series ends at {first_of_all[-1][0]}, "
            f"the data at {points[-1][0]:%FT%TZ} ({len(answer[0]['series'])} series)"
        )
    covered = points[-1][0] - now
    if covered < dt.timedelta(hours=a.min_hours):
        failures.append(
            f"gridprint's series reaches {covered} past now, less than {a.min_hours} h"
        )

    # CATS' search space (cats/forecast.py, WindowedForecast): its data reach at most
    # now + window + duration, and a start is a candidate while a data point lies past its job's end
    # (at most window / 15 min starts after now).
    duration = dt.timedelta(minutes=a.duration)
    horizon = now + dt.timedelta(minutes=MAX_WINDOW_MIN) + duration
    data = [p for p in points if p[0] <= horizon]
    data = data[max(i for i, (t, _) in enumerate(data) if t <= now) :]
    ndata = next(i + 1 for i, (t, _) in enumerate(data) if t + STEP >= now + duration)
    n_starts = min(len(data) - ndata - 1, MAX_WINDOW_MIN // 15) + 1
    candidates = []
    for i in range(n_starts):
        s = now + i * STEP
        candidates.append((mean_over(points, s, s + duration), s))
    best_value, best_start = min(candidates)
    at_cats = mean_over(points, cats_start, cats_start + duration)
    if abs(at_cats - best_value) > 1e-6:
        failures.append(
            f"CATS chose {cats_start:%FT%TZ} (mean {at_cats:.6f}) but the minimum over "
            f"{len(candidates)} starts is {best_value:.6f} at {best_start:%FT%TZ}"
        )
    if abs(cats_value - at_cats) > 1e-6:
        failures.append(f"CATS reports {cats_value:.6f} at its start; recomputed {at_cats:.6f}")

    print(
        f"duration {a.duration} min: CATS start {cats_start:%FT%TZ} mean {cats_value:.4f} gCO2/kWh; "
        f"independent minimum {best_value:.4f} at {best_start:%FT%TZ} over {len(candidates)} starts "
        f"from {now:%FT%T}Z; first series {series0[0][0]:%FT%TZ}..{series0[-1][0]:%FT%TZ} "
        f"({len(series0)} points, {n_series} series) for asked {asked_start:%FT%T}..{asked_end:%FT%T}; "
        f"data {covered.total_seconds() / 3600:.2f} h past now"
    )
    for f in failures:
        print(f"FAIL: {f}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
