"""Differential test runner: gridprint against the reference server (wattnet-api) on the same data.

Started by run.sh inside the reference venv. Steps:
 1. import the demo into a temporary SQLite database and start `gridprint serve` on a free port, its
    providers configured against a stub (so `/v1/status` reports their checks); grant, register
    and get a token through the token endpoints;
 2. dump gridprint's own /v1 answers over the demo windows and around now (the demo replayed onto
    the present: all zones, every option) and convert them into the reference storage's metrics
    (rows.json);
 3. start reference_server.py (the published app on the in-memory ClickHouse stand-in) on those rows;
 4. send every request of matrix.py to both; compare status, content-type and body bytes (valid
    requests) or status and the body a reference client reads (invalid requests);
 5. drop differences the allow-list (allowlist.toml) documents; write the report grouped by cause to
    last-report.txt and exit 1 if any difference is not allowed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections import OrderedDict, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, urljoin, urlsplit

import matrix

HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg: str) -> None:
    print(f"[differential] {msg}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port: int, target: str, token: str | None, method: str = "GET"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, target, headers=headers)
    r = conn.getresponse()
    body = r.read()
    hdrs = {k.lower(): v for k, v in r.getheaders()}
    conn.close()
    return r.status, hdrs, body


def wait_http(port: int, target: str, proc: subprocess.Popen, logfile: str, seconds: float = 180) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"process exited ({proc.returncode}); log:\n" + open(logfile).read()[-4000:])
        try:
            request(port, target, None)
            return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"no answer on port {port} after {seconds}s; log:\n" + open(logfile).read()[-4000:])


class Stub(BaseHTTPRequestHandler):
    """Answers 200 to anything: the provider/storage URLs the status endpoints check."""

    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *a):
        pass


# ---------------------------------------------------------------------------------------------
# gridprint answers -> reference storage metrics
# ---------------------------------------------------------------------------------------------

def _flags(s: dict) -> dict:
    return {"valid": s["valid"], "zone_status": s["zone_status"]}


# gridprint names its estimated and forecast points `wattnet-hybrid-estimation:gridprint-<method>`
# (docs/compatibility.md, "Datasource names"), a name the reference's models accept: the stand-in is
# fed gridprint's names as they are and nothing is mapped before comparing.


def convert(endpoint: str, extra: dict, doc: list) -> list[dict]:
    """One gridprint answer (JSON array) -> metrics rows {name, timestamp, value, metadata}."""
    out = []

    def emit(name, values, meta):
        for ts, v in values:
            out.append({"name": name, "timestamp": ts, "value": v, "metadata": dict(meta)})

    for o in doc:
        if endpoint in ("generation", "mix"):
            name = "zone_generation" if endpoint == "generation" else "zone_mix_generation"
            for s in o["series"]:
                for b in s["production"]:
                    emit(name, b["values"], {"zone": o["zone"], "unit": o["unit"], **_flags(s),
                                             "production_type": b["production_type"],
                                             "data_state": b["data_state"], "datasource": b["datasource"]})
        elif endpoint == "load":
            for s in o["series"]:
                for b in s["blocks"]:
                    emit("zone_load", b["values"], {"zone": o["zone"], "unit": o["unit"], **_flags(s),
                                                    "data_state": b["data_state"], "datasource": b["datasource"]})
        elif endpoint in ("imports", "exports"):
            key, label, name = ("imports", "source", "zone_import") if endpoint == "imports" else ("exports", "destination", "zone_export")
            db_label = "from" if endpoint == "imports" else "to"
            for s in o["series"]:
                for b in s[key]:
                    emit(name, b["values"], {"zone": o["zone"], "unit": o["unit"], **_flags(s), db_label: b[label],
                                             "data_state": b["data_state"], "datasource": b["datasource"]})
        elif endpoint == "footprints":
            name = "global_footprint" if o["coverage"] == "global" else "local_footprint"
            for s in o["series"]:
                emit(name, s["values"], {"zone": o["zone"], "unit": o["unit"], "footprint_type": o["footprint_type"],
                                         "scope": o["scope"], **_flags(s)})
        elif endpoint == "impacts":
            name = "global_impact" if o["coverage"] == "global" else "local_impact"
            for s in o["series"]:
                emit(name, s["values"], {"zone": o["zone"], "unit": o["unit"], "impact_type": o["impact_type"],
                                         "scope": o["scope"], **_flags(s)})
        elif endpoint == "green-score":
            name = "global_score" if o["coverage"] == "global" else "local_score"
            for s in o["series"]:
                emit(name, s["values"], {"zone": o["zone"], "scope": o["scope"], **_flags(s)})
        elif endpoint in ("flow-share", "mix-share"):
            key, label, name, db = (("flows", "destination", "flow_share", "target") if endpoint == "flow-share"
                                    else ("shares", "origin", "mix_share", "source"))
            for s in o["series"]:
                for b in s[key]:
                    emit(name, b["values"], {"zone": o["zone"], "unit": o["unit"], **_flags(s), db: b[label]})
        elif endpoint in ("footprint-share", "impact-share"):
            name = endpoint.replace("-", "_")
            tkey = "footprint_type" if endpoint == "footprint-share" else "impact_type"
            for s in o["series"]:
                for b in s["blocks"]:
                    emit(name, b["values"], {"zone": o["zone"], "unit": o["unit"], tkey: o[tkey], "scope": o["scope"],
                                             **_flags(s), "source": b["source"]})
        elif endpoint == "factors":
            for s in o["series"]:
                emit("factor", s["values"], {k: o[k] for k in ("factor_type", "production_type", "scope", "unit",
                                                               "source", "year", "source_link")})
    return out


DUMPS = [
    ("generation", {}), ("load", {}), ("imports", {}), ("exports", {}), ("mix", {}),
    ("footprints", {"scope": "life-cycle", "use_global": "true"}),
    ("footprints", {"scope": "operational", "use_global": "true"}),
    ("footprints", {"scope": "life-cycle", "use_global": "false"}),
    ("footprints", {"scope": "operational", "use_global": "false"}),
    ("impacts", {"use_global": "true"}), ("impacts", {"use_global": "false"}),
    ("green-score", {"use_global": "true"}), ("green-score", {"use_global": "false"}),
    ("flow-share", {}), ("mix-share", {}),
    ("footprint-share", {"footprint_type": "carbon", "scope": "life-cycle"}),
    ("footprint-share", {"footprint_type": "carbon", "scope": "operational"}),
    ("footprint-share", {"footprint_type": "water", "scope": "life-cycle"}),
    ("footprint-share", {"footprint_type": "water", "scope": "operational"}),
    ("impact-share", {}),
    ("factors", {}),
]


def dump(gp_port: int, token: str) -> tuple[list[dict], list[str]]:
    rows: list[dict] = []
    problems: list[str] = []
    windows = [(s, e) for (s, e, _z, _zs) in matrix.WINDOWS.values()]
    # The demo replays its documents onto the present (provider data to an hour ago, then estimates
    # and the forecast), so requests without a window (the current slot) have data: those answers
    # are dumped over a window around now, wide enough for the slot boundaries the run may cross.
    from datetime import datetime, timedelta, timezone
    t = datetime.now(timezone.utc).replace(second=0, microsecond=0)
    t = t.replace(minute=t.minute - t.minute % 15)
    iso = lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")
    around_now = (iso(t - timedelta(hours=1)), iso(t + timedelta(hours=3)))
    for ep, extra in DUMPS:
        for s, e in windows + [(None, None)]:
            params = dict(extra)
            if s:
                params.update(start=s, end=e)
            elif ep != "factors":
                params.update(start=around_now[0], end=around_now[1])
            target = f"/v1/{ep}" + ("?" + matrix.q(**params) if params else "")
            st, _h, body = request(gp_port, target, token)
            if st != 200:
                problems.append(f"dump {target}: gridprint {st} {body[:200]!r}")
                continue
            got = convert(ep, extra, json.loads(body))
            if ep == "factors":
                got = spread_factors(got, s, e)
            rows.extend(got)
    return rows, problems


def spread_factors(rows: list[dict], start: str | None, end: str | None) -> list[dict]:
    """The reference's storage holds factors as a time series like every other table (its `/factors`
    without dates reads the current 15-minute slot, which only answers if a row exists for every
    slot). With a window gridprint answers one point per slot already: its rows are that series.
    Without one it answers the current slot: write that value at the current slot and the next two,
    so a slot boundary passing during the run does not matter."""
    if start:
        return rows
    from datetime import datetime, timedelta, timezone
    step = timedelta(minutes=15)
    out = []
    for r in rows:
        t0 = datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00"))
        for k in range(3):
            t = t0 + k * step
            out.append(dict(r, timestamp=t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")))
    return out


# ---------------------------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------------------------

class Raw(str):
    """A JSON number kept as the text it was written as."""


def parse(body: bytes):
    return json.loads(body, object_pairs_hook=OrderedDict, parse_float=Raw, parse_int=Raw)


def canon(v) -> str:
    """Serialise like FastAPI's JSONResponse (compact, UTF-8), numbers as written."""
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canon(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def first_diff(a, b, path="$"):
    """First place two parsed JSON values differ: (path pattern, path, a-part, b-part)."""
    pat = re.sub(r"\[\d+\]", "[]", path)
    if type(a) is not type(b) and not (isinstance(a, (Raw, str)) and isinstance(b, (Raw, str))):
        return ("type", pat, path, a, b)
    if isinstance(a, dict):
        ka, kb = list(a.keys()), list(b.keys())
        if ka != kb:
            return ("keys", pat, path, ka, kb)
        for k in ka:
            d = first_diff(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return ("length", pat, path, len(a), len(b))
        return None
    if isinstance(a, Raw) != isinstance(b, Raw) or str(a) != str(b):
        return ("value", pat, path, a, b)
    return None


def all_diffs(a, b, path="$", out=None, limit=6):
    """Every distinct kind of difference (by path pattern), the first example of each, at most `limit`."""
    if out is None:
        out = OrderedDict()
    if len(out) >= limit:
        return list(out.values())
    pat = re.sub(r"\[\d+\]", "[]", path)
    if type(a) is not type(b) and not (isinstance(a, (Raw, str)) and isinstance(b, (Raw, str))):
        out.setdefault(("type", pat), ("type", pat, path, a, b))
    elif isinstance(a, dict):
        if list(a.keys()) != list(b.keys()):
            out.setdefault(("keys", pat), ("keys", pat, path, list(a.keys()), list(b.keys())))
        for k in a:
            if k in b:
                all_diffs(a[k], b[k], f"{path}.{k}", out, limit)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.setdefault(("length", pat), ("length", pat, path, len(a), len(b)))
        b = _align(a, b, pat, path, out)
        for i, (x, y) in enumerate(zip(a, b)):
            all_diffs(x, y, f"{path}[{i}]", out, limit)
    elif isinstance(a, Raw) != isinstance(b, Raw) or str(a) != str(b):
        out.setdefault(("value", pat), ("value", pat, path, a, b))
    return list(out.values())


def _ident(x):
    """Identity of a result object or block: its text and boolean fields (zone, type, flags...)."""
    if isinstance(x, dict):
        return tuple((k, v) for k, v in x.items() if isinstance(v, (bool, type(None))) or
                     (isinstance(v, str) and not isinstance(v, Raw)))
    return None


def _align(a, b, pat, path, out):
    """Lists holding the same objects (by identity) in another order: note the order difference once
    and compare the objects pairwise, so one ordering cause does not cascade into value differences."""
    if not a or not b or not all(isinstance(x, dict) for x in a + b):
        return b
    ia, ib = [_ident(x) for x in a], [_ident(x) for x in b]
    if ia == ib or len(set(ia)) != len(ia) or set(ia) != set(ib) or len(ia) != len(ib):
        return b
    first = next(i for i, (x, y) in enumerate(zip(ia, ib)) if x != y)
    out.setdefault(("order", pat), ("order", pat, f"{path}[{first}]", dict(ia[first]), dict(ib[first])))
    pos = {k: i for i, k in enumerate(ib)}
    return [b[pos[k]] for k in ia]


def drop_keys(v, keys):
    if isinstance(v, dict):
        return OrderedDict((k, drop_keys(x, keys)) for k, x in v.items() if k not in keys)
    if isinstance(v, list):
        return [drop_keys(x, keys) for x in v]
    return v


def short(b: bytes, n: int = 500) -> str:
    t = b.decode("utf-8", "replace")
    return t if len(t) <= n else t[:n] + f"... ({len(b)} bytes)"


def compare(tag, target, ref, gp, allow):
    """Differences of one request, each marked with the allow-list entry that documents it (or None)."""
    diffs = _compare(tag, target, ref, gp, allow)
    rs, gs = ref[0], gp[0]
    for d in diffs:
        d.setdefault("allowed_by", None)
        if d["allowed_by"] is None:
            for entry in allow:
                if d["kind"] == "reference-5xx":
                    break  # never allowed
                if not entry.get("drop_gridprint_keys") and matches(entry, tag, target, rs, gs, d["kind"], d["signature"]):
                    d["allowed_by"] = entry["id"]
                    break
    return diffs


def _compare(tag, target, ref, gp, allow):
    """Differences of one request: list of dicts {kind, signature, allowed_by, detail}."""
    (rs, rh, rb), (gs, gh, gb) = ref, gp
    path, _, query = target.partition("?")
    diffs = []

    def add(kind, signature, detail=""):
        diffs.append({"kind": kind, "signature": signature, "detail": detail})

    rct, gct = rh.get("content-type", ""), gh.get("content-type", "")
    if rs >= 500:
        # the reference never answers 5xx on this data: a stand-in gap or an unexpected query
        add("reference-5xx", f"reference answered {rs}: storage stand-in problem? (see reference.log)")
        return diffs
    if rs != gs:
        parts = tag.split(":")
        family = parts[1] if parts[0] in matrix.WINDOWS else parts[0]
        add("status", f"status {rs} (reference) vs {gs} (gridprint) [{family}]")
        return diffs
    if rct != gct:
        add("content-type", f"content-type {rct!r} vs {gct!r} at status {rs}/{gs}")
    if rs == gs and 300 <= rs < 400:
        # a relative Location is resolved against the request, as every HTTP client does
        base = "http://host" + target
        rl = urlsplit(urljoin(base, rh.get("location", "")))
        gl = urlsplit(urljoin(base, gh.get("location", "")))
        if (rl.path, rl.query) != (gl.path, gl.query):
            add("location", f"redirect location {rh.get('location')!r} vs {gh.get('location')!r}")
    if rs < 400:
        if rb != gb and rs == gs:
            try:
                ra, ga = parse(rb), parse(gb)
            except Exception:
                add("body", f"body bytes differ (not JSON) at {path}", "")
                return diffs
            # allow-list transforms (extra gridprint fields) before the structural comparison
            for entry in allow:
                keys = entry.get("drop_gridprint_keys")
                if keys and matches(entry, tag, target, rs, gs, "body"):
                    ga2 = ga
                    if entry.get("hole_flags") and isinstance(ga, list) and isinstance(ra, list) \
                            and len(ga) == len(ra):
                        # gridprint's aggregate over a window with a hole (points < slots) is
                        # valid=false, zone_status=missing; the reference judges only the points
                        # present: those two members may differ, nothing else
                        # matched by the descriptive fields, not by position (order may differ)
                        ident = ("zone", "footprint_type", "impact_type", "scope", "coverage")
                        key = lambda o: tuple(str(o.get(k)) for k in ident)  # noqa: E731
                        by_key = {key(r): r for r in ra if isinstance(r, dict)}
                        ga2 = [dict(g, valid=by_key[key(g)].get("valid"),
                                    zone_status=by_key[key(g)].get("zone_status"))
                               if isinstance(g, dict) and key(g) in by_key
                               and float(str(g.get("points", 0))) < float(str(g.get("slots", 0)))
                               else g
                               for g in ga]
                    ga2 = drop_keys(ga2, set(keys))
                    if canon(ga2).encode() == rb:
                        diffs.append({"kind": "body", "signature": f"extra gridprint keys {keys}",
                                      "detail": "", "allowed_by": entry["id"]})
                        return diffs
                    ga = ga2
            fam = tag.split(":")[0]
            # the request family names the cause only for repeated parameters; other body differences
            # (order, aggregate rounding, factors) have the same cause whatever the request form
            suffix = f" [{fam}]" if fam == "repeat" else ""
            d = first_diff(ra, ga)
            if d is None:
                add("body-bytes", "same JSON, different bytes (number/string formatting or whitespace)" + suffix,
                    _byte_pos(rb, gb))
            else:
                for kind, pat, p, a, b in all_diffs(ra, ga):
                    if kind == "value" and re.search(r"\.values\[\]\[\]$|\.value$", pat):
                        try:
                            delta = abs(float(a) - float(b))
                            sig = (f"number at {pat} differs by {delta:.2f}" if delta <= 0.011
                                   else f"number at {pat} differs by more than 0.01")
                        except ValueError:
                            sig = f"value at {pat} differs"
                    elif kind == "order":
                        sig = f"same items, different order of the list at {pat}"
                    else:
                        sig = f"{kind} differ at {pat}"
                    add("body", sig + suffix, f"at {p}: reference {_j(a)} vs gridprint {_j(b)}")
    else:
        # invalid request: same status (checked above) and a body a reference client reads alike
        try:
            ra = json.loads(rb)
        except Exception:
            ra = None
        try:
            ga = json.loads(gb)
        except Exception:
            ga = None
        rdet = ra.get("detail") if isinstance(ra, dict) else None
        gdet = ga.get("detail") if isinstance(ga, dict) else None
        if not isinstance(ga, dict) or "detail" not in ga:
            add("error-body", f"gridprint error body has no 'detail' (reference {type(rdet).__name__})")
        elif type(rdet) is not type(gdet):
            add("error-shape", f"'detail' is {type(rdet).__name__} (reference) vs {type(gdet).__name__} (gridprint) at status {rs}/{gs}")
        elif isinstance(rdet, list):
            norm = lambda d: [{k: x.get(k) for k in ("type", "loc", "msg", "input", "ctx")} for x in d]
            if norm(rdet) != norm(gdet):
                add("error-422-detail", "422 detail list differs")
        elif rdet != gdet:
            add("detail-text", f"'detail' text differs at status {rs}/{gs}")
        if isinstance(ga, dict) and isinstance(ra, dict) and set(ga) - set(ra):
            add("error-members", f"extra error members {sorted(set(ga) - set(ra))} at status {rs}/{gs}")
    return diffs


def _j(v) -> str:
    t = canon(v) if not isinstance(v, (int, float)) else str(v)
    return t if len(t) < 160 else t[:160] + "..."


def _byte_pos(a: bytes, b: bytes) -> str:
    i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    return f"first differing byte {i}: reference ...{a[max(0, i-40):i+40]!r} vs gridprint ...{b[max(0, i-40):i+40]!r}"


def matches(entry, tag, target, rs, gs, kind, signature="") -> bool:
    path, _, query = target.partition("?")
    if "kind" in entry and kind not in entry["kind"]:
        return False
    if "signature" in entry and not re.search(entry["signature"], signature):
        return False
    if "path" in entry and not re.search(entry["path"], path):
        return False
    if "query" in entry and not re.search(entry["query"], query):
        return False
    if "tag" in entry and not re.search(entry["tag"], tag):
        return False
    if "ref_status" in entry and rs not in entry["ref_status"]:
        return False
    if "gp_status" in entry and gs not in entry["gp_status"]:
        return False
    if entry.get("same_status") and rs != gs:
        return False
    return True


# ---------------------------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gridprint-bin", required=True)
    ap.add_argument("--report", default=os.path.join(HERE, "last-report.txt"))
    ap.add_argument("--allowlist", default=os.path.join(HERE, "allowlist.toml"))
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()

    with open(args.allowlist, "rb") as f:
        allow = tomllib.load(f).get("allow", [])
    for e in allow:
        for k in ("id", "reason", "doc"):
            if k not in e:
                raise SystemExit(f"allowlist entry {e} lacks {k!r}")

    work = tempfile.mkdtemp(prefix="gridprint-differential.")
    procs: list[subprocess.Popen] = []
    stub = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    stub_url = f"http://127.0.0.1:{stub.server_address[1]}/"
    try:
        # 1. gridprint
        db = f"sqlite://{work}/gridprint.db"
        gp_port = free_port()
        # The providers count as configured (serve checks only those, against the stub): the
        # credentials are never sent by the checks. The demo is imported first, since `serve --demo`
        # leaves Elexon unchecked.
        env = dict(os.environ, GRIDPRINT_LOG="warn", GRIDPRINT_ENTSOE_TOKEN="differential-stub",
                   GRIDPRINT_EPIAS_USERNAME="differential-stub", GRIDPRINT_EPIAS_PASSWORD="differential-stub")
        subprocess.run([args.gridprint_bin, "--database", db, "import", "--demo"], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        email, password = "differential@example.org", "differential password 123"
        granted = subprocess.run([args.gridprint_bin, "--database", db, "access", "grant", email], check=True,
                                 env=env, stdout=subprocess.PIPE, text=True).stdout
        code = next(l[len("code: "):] for l in granted.splitlines() if l.startswith("code: "))
        gp_log = os.path.join(work, "gridprint.log")
        procs.append(subprocess.Popen(
            [args.gridprint_bin, "--database", db, "serve", "--dashboard-history-days", "0",
             "--listen", f"127.0.0.1:{gp_port}",
             "--rate-limit-per-second", "0", "--check-providers", "true", "--entsoe-url", stub_url,
             "--elexon-url", stub_url, "--epias-url", stub_url, "--epias-auth-url", stub_url],
            env=env, stdout=open(os.path.join(work, "gridprint.out"), "w"), stderr=open(gp_log, "w")))
        wait_http(gp_port, "/v1/status", procs[-1], gp_log, 600)
        log(f"gridprint at http://127.0.0.1:{gp_port}")
        hdr = {"content-type": "application/json"}
        cred = {"email": email, "password": password}
        for ep, body in (("register", dict(cred, code=code)), ("get_token", cred)):
            conn = http.client.HTTPConnection("127.0.0.1", gp_port, timeout=60)
            conn.request("POST", f"/token-request/{ep}", body=json.dumps(body), headers=hdr)
            r = conn.getresponse(); body = r.read(); conn.close()
            if r.status != 200:
                raise SystemExit(f"token {ep}: {r.status} {body!r}")
        token = json.loads(body)["access_token"]
        # The server answers /v1/status before its data cache is loaded; data routes answer 503
        # until then. The dump must not start before: wait until a data route answers 200.
        deadline = time.time() + 600
        while True:
            conn = http.client.HTTPConnection("127.0.0.1", gp_port, timeout=60)
            conn.request("GET", "/v1/footprints?zone=DE&start=2017-02-01&end=2017-02-02",
                         headers={"Authorization": f"Bearer {token}"})
            r = conn.getresponse(); r.read(); conn.close()
            if r.status == 200:
                break
            if time.time() > deadline:
                raise SystemExit(f"gridprint's data did not load within 600 s (last status {r.status})")
            time.sleep(0.2)

        # 2. dump gridprint's answers into reference rows
        rows, problems = dump(gp_port, token)
        for p in problems:
            log(p)
        rows_path = os.path.join(work, "rows.json")
        with open(rows_path, "w") as f:
            json.dump({"metrics": rows}, f)
        log(f"{len(rows)} metric rows from gridprint's answers")

        # 3. the reference server
        ref_port = free_port()
        ref_log = os.path.join(work, "reference.log")
        zones_dir = os.path.join(sys.prefix, "lib", f"python{sys.version_info.major}.{sys.version_info.minor}",
                                 "site-packages", "data", "zones")
        renv = dict(os.environ,
                    WATTNET_API_STORAGE_DB_URL=stub_url, WATTNET_API_ENTSOE_URL=stub_url,
                    WATTNET_API_ELEXON_URL=stub_url, WATTNET_API_EPIAS_URL=stub_url,
                    # gridprint serves the 52 zones in use (--zone-set selected, its default)
                    WATTNET_API_ZONES_FILE_PATH=os.path.join(zones_dir, "entsoe_selected_zones_2026.yaml"),
                    WATTNET_API_CROSSBORDERS_FILE_PATH=os.path.join(zones_dir, "entsoe_selected_crossborders_2026.yaml"),
                    WATTNET_API_LOG_LEVEL="WARNING")
        procs.append(subprocess.Popen(
            [sys.executable, os.path.join(HERE, "reference_server.py"), "--rows", rows_path, "--port", str(ref_port)],
            cwd=work, env=renv, stdout=open(os.path.join(work, "reference.out"), "w"), stderr=open(ref_log, "w")))
        wait_http(ref_port, "/favicon.ico", procs[-1], ref_log, 300)
        log(f"reference at http://127.0.0.1:{ref_port}")

        # 4. the matrix
        results = []
        for tag, target in matrix.build():
            method, tok = "GET", token
            if target.startswith("POST "):
                method, target = "POST", target[5:]
            if target.startswith("NOAUTH "):
                tok, target = None, target[7:]
            ref = request(ref_port, target, tok, method)
            gp = request(gp_port, target, tok, method)
            shown = ("POST " + target) if method == "POST" else target
            results.append((tag, shown, ref, gp, compare(tag, target, ref, gp, allow)))
        return report(results, allow, args.report, len(rows), problems)
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
        stub.shutdown()
        if not args.keep:
            subprocess.run(["rm", "-rf", work])
        else:
            log(f"kept {work}")


def report(results, allow, path, nrows, problems) -> int:
    valid = [r for r in results if r[2][0] < 400]
    invalid = [r for r in results if r[2][0] >= 400]
    identical_valid = sum(1 for r in valid if r[2][0] == r[3][0] and r[2][2] == r[3][2] and
                          r[2][1].get("content-type") == r[3][1].get("content-type"))
    ok_valid = sum(1 for r in valid if all(d["allowed_by"] for d in r[4]))
    same_status_invalid = sum(1 for r in invalid if r[2][0] == r[3][0])
    ok_invalid = sum(1 for r in invalid if all(d["allowed_by"] for d in r[4]))
    groups: dict[tuple, list] = defaultdict(list)
    for tag, target, ref, gp, diffs in results:
        for d in diffs:
            groups[(d["allowed_by"] is not None, d["allowed_by"] or "", d["kind"], d["signature"])].append((tag, target, ref, gp, d))
    lines = []
    w = lines.append
    w("gridprint vs reference (wattnet-api 1.0.0, wattnet-storage 1.1.0) — differential report")
    w(f"requests: {len(results)}; reference rows loaded from gridprint's answers: {nrows}")
    w(f"valid requests (reference < 400): {len(valid)}; byte-identical (status, content-type, body): {identical_valid}; "
      f"identical or only allowed differences: {ok_valid}")
    w(f"invalid requests (reference >= 400): {len(invalid)}; same status: {same_status_invalid}; "
      f"same status and body read alike (or allowed): {ok_invalid}")
    for p in problems:
        w(f"dump problem: {p}")
    unallowed = [(k, v) for k, v in groups.items() if not k[0]]
    allowed = [(k, v) for k, v in groups.items() if k[0]]
    w(f"difference groups not allowed: {len(unallowed)}; allowed groups: {len(allowed)}")
    for title, items in (("NOT ALLOWED", unallowed), ("ALLOWED (docs/compatibility.md)", allowed)):
        w("")
        w("=" * 100)
        w(title)
        w("=" * 100)
        items.sort(key=lambda kv: (kv[0][2], -len(kv[1])))
        for (isallowed, by, kind, sig), hits in items:
            tags = sorted({h[0].split(":", 1)[-1] if h[0].startswith("W") else h[0] for h in hits})
            tag, target, ref, gp, d = hits[0]
            w("")
            w(f"--- [{kind}] {sig}  ({len(hits)} requests)" + (f"  allowed by '{by}'" if by else ""))
            w(f"    tags: {', '.join(tags[:25])}{' ...' if len(tags) > 25 else ''}")
            w(f"    example: {target if target.startswith('POST ') else 'GET ' + target}")
            if d["detail"]:
                w(f"    {d['detail']}")
            w(f"    reference: {ref[0]} {ref[1].get('content-type', '')} {short(ref[2])}")
            w(f"    gridprint: {gp[0]} {gp[1].get('content-type', '')} {short(gp[2])}")
    w("")
    w("=" * 100)
    w("REFERENCE 422 BODIES (the exact shape gridprint must answer; one per tag)")
    for tag, target, ref, gp, diffs in results:
        if ref[0] == 422:
            w(f"{tag}: GET {target}")
            w(f"    {short(ref[2], 1200)}")
            if gp[0] != 422 or gp[2] != ref[2]:
                w(f"    gridprint {gp[0]}: {short(gp[2], 300)}")
    w("")
    w("=" * 100)
    w("EVERY REQUEST (status reference/gridprint, verdict)")
    for tag, target, ref, gp, diffs in results:
        verdict = "same" if not diffs else ("allowed" if all(d["allowed_by"] for d in diffs) else "DIFF " + ",".join(sorted({d["kind"] for d in diffs if not d["allowed_by"]})))
        w(f"{ref[0]}/{gp[0]} {verdict:28} {tag:40} {target}")
    text = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)
    head = text.split("\n" + "=" * 100 + "\nREFERENCE 422 BODIES")[0]
    print(head)
    print(f"full report: {path}")
    n_bad = sum(1 for r in results if not all(d["allowed_by"] for d in r[4]))
    if os.environ.get("DIFFERENTIAL_REPORT_ONLY") == "1":
        # Transition switch while the known differences are being fixed: report, do not fail.
        # Install and harness failures still fail (they never reach this point).
        print(f"differential (report only, DIFFERENTIAL_REPORT_ONLY=1): {n_bad} of {len(results)} requests differ")
        return 0
    print(f"differential: {len(results) - n_bad} passed, {n_bad} failed")
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
