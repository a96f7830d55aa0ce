"""The abuse load test of issue #28 (driven by scripts/abuse-load.sh, which starts the server).

One attacker account, inside its rate limit, runs the probes of issue #28 items 1, 2, 3 and 9 one
after the other, and item 4's correctness check at the end; a victim account sends one-day
footprint requests at a fixed rate throughout, from a process of its own (open loop: a stalled
server shows as latency, not as fewer requests). Printed: the victim's latency per phase and
overall, the server's RSS per phase (sampled from /proc every 100 ms, and its VmHWM), what each
probe got back, and a JSON line `RESULT {...}` for the shell script. HTTP is aiohttp's; item 2's sockets, which must send a request
and never read, are plain asyncio streams.

Issue #49 adds two phases over many client addresses (127.0.0.x): `slow`, connections that send a
request head one byte every 2 s and never finish it (reopened a second after the server closes
them), and `stalled`, token-service POSTs whose body stops (half a `Content-Length` body cut short,
half a chunked body that never ends), each reopened after its answer.
"""

import argparse
import asyncio
import datetime as dt
import json
import multiprocessing
import resource
import socket
import time

import aiohttp

VICTIM_ZONES = ["DE", "FR", "NL", "ES", "PL", "IT_NORTH", "AT", "BE"]


def percentile(values, p):
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return s[k]


class Rss:
    """Samples the server's RSS (MiB) every 100 ms; `mark(phase)` starts a new phase."""

    def __init__(self, pid):
        self.pid = pid
        self.phase = "start"
        self.peak = {}
        self.samples = []

    def read(self, field):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
        return None

    async def run(self):
        while True:
            try:
                v = self.read("VmRSS")
            except OSError:
                return
            self.samples.append((time.monotonic(), self.phase, v))
            self.peak[self.phase] = max(self.peak.get(self.phase, 0), v)
            await asyncio.sleep(0.1)


class Victim:
    """Another user's one-day requests at `rate` per second, each in its own task, sent from a
    process of its own: the attacker's probes read hundreds of megabytes in this process's event
    loop, and a victim sharing that loop would time the load generator's stalls, not the server's.
    Each request is recorded with its start (the system-wide monotonic clock) and put in the phase
    that was current when it started."""

    def __init__(self, base, token, days, rate):
        self.base = base
        self.token = token
        self.days = days
        self.rate = rate
        self.marks = []  # (monotonic start, phase name)
        self.lat = {}  # phase -> [ms]
        self.status = {}  # phase -> {status: count}

    def mark(self, phase):
        self.marks.append((time.monotonic(), phase))

    def start(self):
        self.stop = multiprocessing.Event()
        recv, self.send = multiprocessing.Pipe(duplex=False)
        self.recv = recv
        self.proc = multiprocessing.Process(
            target=_victim_process,
            args=(self.base, self.token, self.days, self.rate, self.stop, self.send),
            daemon=True)
        self.proc.start()

    async def finish(self):
        self.stop.set()
        records = await asyncio.to_thread(self.recv.recv)
        self.proc.join()
        for t0, ms, st in records:
            phase = "start"
            for at, name in self.marks:
                if at <= t0:
                    phase = name
            self.lat.setdefault(phase, []).append(ms)
            c = self.status.setdefault(phase, {})
            c[st] = c.get(st, 0) + 1


def _victim_process(base, token, days, rate, stop, send):
    """The victim's own process: sends until `stop` is set, then sends back its records
    `(start, ms, status)`."""
    records = []
    headers = {"Authorization": f"Bearer {token}"}

    async def one(session, i):
        zone = VICTIM_ZONES[i % len(VICTIM_ZONES)]
        day = days[(i // len(VICTIM_ZONES)) % len(days)]
        nxt = day + dt.timedelta(days=1)
        url = f"{base}/v1/footprints?zone={zone}&start={day}T00:00Z&end={nxt}T00:00Z"
        t0 = time.monotonic()
        try:
            async with session.get(url, headers=headers) as r:
                await r.read()
                st = r.status
        except Exception as e:  # a cut connection or a timeout counts, with its kind
            st = type(e).__name__
        records.append((t0, (time.monotonic() - t0) * 1000, st))

    async def run():
        timeout = aiohttp.ClientTimeout(total=120)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            tasks = set()
            i = 0
            start = time.monotonic()
            while not stop.is_set():
                t = asyncio.create_task(one(session, i))
                tasks.add(t)
                t.add_done_callback(tasks.discard)
                i += 1
                delay = start + i / rate - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            if tasks:
                await asyncio.wait(tasks, timeout=130)

    asyncio.run(run())
    send.send(records)


def count(d, k):
    d[k] = d.get(k, 0) + 1


async def item1(base, token, seconds, senders):
    """Item 1: `senders` requests at once, each for one day by the first start/end and a year by
    the last, as CSV; each sender repeats after its answer (at most every 0.5 s)."""
    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": "identity"}
    out = {"status": {}, "bytes": 0, "seconds": []}
    deadline = time.monotonic() + seconds

    async def sender(session, n):
        while time.monotonic() < deadline:
            url = (f"{base}/v1/factors?start=2017-01-01&end=2017-01-02"
                   f"&start=2016-09-{n:02d}&end=2017-09-{n:02d}&format=csv")
            t0 = time.monotonic()
            try:
                async with session.get(url, headers=headers) as r:
                    async for chunk in r.content.iter_chunked(1 << 20):
                        out["bytes"] += len(chunk)
                    count(out["status"], r.status)
            except Exception as e:
                count(out["status"], type(e).__name__)
            out["seconds"].append(time.monotonic() - t0)
            await asyncio.sleep(max(0.0, 0.5 - (time.monotonic() - t0)))

    timeout = aiohttp.ClientTimeout(total=300)
    conn = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(timeout=timeout, connector=conn) as session:
        await asyncio.gather(*(sender(session, n) for n in range(1, senders + 1)))
    return out


async def item2(host, port, token, seconds, sockets):
    """Item 2: `sockets` connections each ask a year of factors as CSV without compression and
    never read; held for `seconds`. Reports whether the server closed them."""
    req = (f"GET /v1/factors?start=2024-01-01&end=2025-01-01&format=csv HTTP/1.1\r\n"
           f"Host: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
           f"Accept-Encoding: identity\r\n\r\n").encode()
    socks = []
    for _ in range(sockets):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the kernel holds little for us
        s.connect((host, port))
        s.sendall(req)
        socks.append(s)
    await asyncio.sleep(seconds)
    # Still connected? Drain what the kernel holds without blocking: EOF or a reset means cut.
    cut = 0
    for s in socks:
        s.setblocking(False)
        closed = False
        try:
            while True:
                b = s.recv(1 << 20)
                if not b:
                    closed = True
                    break
        except BlockingIOError:
            pass
        except OSError:
            closed = True
        cut += closed
        s.close()
    return {"sockets": sockets, "held_s": seconds, "closed_by_server": cut}


async def item3(base, token, seconds, rate):
    """Item 3: `/v1/availability` without a window, a junk parameter making every request
    distinct, `rate` requests per second."""
    headers = {"Authorization": f"Bearer {token}"}
    out = {"status": {}, "ms": []}

    async def one(session, i):
        t0 = time.monotonic()
        try:
            async with session.get(f"{base}/v1/availability?junk={i}", headers=headers) as r:
                await r.read()
                count(out["status"], r.status)
        except Exception as e:
            count(out["status"], type(e).__name__)
        out["ms"].append((time.monotonic() - t0) * 1000)

    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0)) as session:
        tasks = []
        start = time.monotonic()
        for i in range(int(seconds * rate)):
            tasks.append(asyncio.create_task(one(session, i)))
            delay = start + (i + 1) / rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        await asyncio.gather(*tasks)
    return {"status": out["status"], "p50_ms": percentile(out["ms"], 50),
            "p99_ms": percentile(out["ms"], 99)}


async def item4(base, token, day):
    """Item 4: the same parameters in two orders must answer as their last occurrences say."""
    headers = {"Authorization": f"Bearer {token}"}
    d = day.isoformat()
    q = f"{base}/v1/footprints?zone=DE&footprint_type=carbon&start={d}T00:00Z"
    checks = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
        async def get(url):
            async with session.get(url, headers=headers) as r:
                body = await r.read()
                return r.status, r.headers.get("ETag"), body

        def points(body):
            return sum(len(s["values"]) for item in json.loads(body) for s in item["series"])

        # `end` twice: 06:00 then 03:00 (03:00 wins: 12 points), and swapped (06:00 wins: 24 points).
        # The first order is asked first so that a cache keyed on sorted pairs would answer the
        # second from it.
        a = await get(f"{q}&end={d}T06:00Z&end={d}T03:00Z")
        b = await get(f"{q}&end={d}T03:00Z&end={d}T06:00Z")
        a1 = await get(f"{q}&end={d}T03:00Z")
        b1 = await get(f"{q}&end={d}T06:00Z")
        ok = (a[0] == b[0] == 200 and points(a[2]) == 12 and points(b[2]) == 24
              and a[1] != b[1] and a[2] == a1[2] and b[2] == b1[2])
        checks.append({"check": "end twice, two orders", "statuses": [a[0], b[0]],
                       "points": [points(a[2]) if a[0] == 200 else None,
                                  points(b[2]) if b[0] == 200 else None],
                       "etags_differ": a[1] != b[1],
                       "equal_to_single_end": [a[2] == a1[2], b[2] == b1[2]], "pass": ok})
        # `start` twice with garbage: the last occurrence decides (docs/api.md §2: an invalid
        # earlier value is overridden and named in Gridprint-Ignored, an invalid last one is 422).
        e = f"{base}/v1/footprints?zone=DE&footprint_type=carbon&end={d}T06:00Z"
        g1 = await get(f"{e}&start=garbage&start={d}T00:00Z")
        g2 = await get(f"{e}&start={d}T00:00Z&start=garbage")
        ok = g1[0] == 200 and points(g1[2]) == 24 and g2[0] == 422
        checks.append({"check": "start=garbage then valid, and swapped", "statuses": [g1[0], g2[0]],
                       "expected": [200, 422], "pass": ok})
    return checks


async def item9(base, addresses, seconds, first_day, last_day, concurrency):
    """Item 9: anonymous `/dashboard/api/day` for every day from `first_day` to `last_day`, newest
    first, shared out over `addresses` (127.0.0.x), `concurrency` requests at once per address."""
    days = []
    d = last_day
    while d >= first_day:
        days.append(d)
        d -= dt.timedelta(days=1)
    queue = asyncio.Queue()
    for day in days:
        queue.put_nowait(day)
    out = {"status": {}, "bytes": 0, "days_served": set(), "ms": []}
    deadline = time.monotonic() + seconds

    async def fetcher(session):
        while time.monotonic() < deadline:
            try:
                day = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            t0 = time.monotonic()
            try:
                async with session.get(f"{base}/dashboard/api/day?date={day}") as r:
                    body = await r.read()
                    count(out["status"], r.status)
                    if r.status == 200:
                        out["bytes"] += len(body)
                        out["days_served"].add(day)
                    elif r.status == 400:
                        out.setdefault("refused_days", set()).add(day)  # outside the history bound
                    else:
                        queue.put_nowait(day)  # again later, from this address or another
                        if r.status == 429:
                            await asyncio.sleep(min(float(r.headers.get("Retry-After", "1")), 2.0))
            except Exception as e:
                count(out["status"], type(e).__name__)
            out["ms"].append((time.monotonic() - t0) * 1000)

    sessions = []
    try:
        for a in addresses:
            conn = aiohttp.TCPConnector(local_addr=(a, 0), limit=0)
            sessions.append(aiohttp.ClientSession(connector=conn,
                                                  timeout=aiohttp.ClientTimeout(total=60)))
        await asyncio.gather(*(fetcher(s) for s in sessions for _ in range(concurrency)))
    finally:
        for s in sessions:
            await s.close()
    refused = out.get("refused_days", set())
    return {"addresses": len(addresses), "days_asked": len(days), "status": out["status"],
            "days_served": len(out["days_served"]),
            "oldest_served": min(out["days_served"]).isoformat() if out["days_served"] else None,
            "days_refused_400": len(refused), "mb_served": round(out["bytes"] / 2**20, 1),
            "p99_ms": percentile(out["ms"], 99)}


async def slow_connections(host, port, addresses, per_address, seconds):
    """`per_address` connections from each of `addresses` send `GET /v1/status` without ending its
    head: the request line and one header, then a byte every 2 s; a connection the server closes
    (or answers) is reopened 1 s later, until `seconds` have passed."""
    out = {"addresses": len(addresses), "per_address": per_address, "opened": 0,
           "closed_by_server": 0, "connect_errors": 0, "held_max": 0}
    held = 0
    deadline = time.monotonic() + seconds

    async def worker(addr, n):
        nonlocal held
        await asyncio.sleep(n * 0.002)  # spread the first connects a little
        while time.monotonic() < deadline:
            try:
                r, w = await asyncio.wait_for(
                    asyncio.open_connection(host, port, local_addr=(addr, 0)), 10)
            except Exception:
                out["connect_errors"] += 1
                await asyncio.sleep(1)
                continue
            out["opened"] += 1
            held += 1
            out["held_max"] = max(out["held_max"], held)
            try:
                w.write(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n")
                await w.drain()
                while time.monotonic() < deadline:
                    try:
                        got = await asyncio.wait_for(r.read(4096), 2)
                    except asyncio.TimeoutError:
                        w.write(b"x")
                        await w.drain()
                        continue
                    if not got:
                        out["closed_by_server"] += 1
                        break
            except OSError:
                out["closed_by_server"] += 1
            finally:
                held -= 1
                w.close()
            await asyncio.sleep(1)

    await asyncio.gather(*(worker(a, i) for a in addresses for i in range(per_address)))
    return out


async def stalled_bodies(host, port, addresses, per_address, seconds):
    """`per_address` connections from each of `addresses` POST `/token-request/get_token` and stop
    sending its body (even ones: `Content-Length: 100` and 10 bytes; odd ones: a chunked body, one
    more chunk every 2 s, never the last); each waits for the answer and starts again, until
    `seconds` have passed. Reports the statuses and how long the answers took."""
    head = (b"POST /token-request/get_token HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\n")
    out = {"addresses": len(addresses), "per_address": per_address, "status": {}, "s": []}
    deadline = time.monotonic() + seconds

    async def worker(addr, n):
        await asyncio.sleep(n * 0.002)
        while time.monotonic() < deadline:
            t0 = time.monotonic()
            try:
                r, w = await asyncio.wait_for(
                    asyncio.open_connection(host, port, local_addr=(addr, 0)), 10)
            except Exception as e:
                count(out["status"], type(e).__name__)
                await asyncio.sleep(1)
                continue
            try:
                if n % 2 == 0:
                    w.write(head + b'Content-Length: 100\r\n\r\n{"email": "')
                else:
                    w.write(head + b"Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n")
                await w.drain()
                answer = b""
                while True:
                    try:
                        got = await asyncio.wait_for(r.read(4096), 2)
                    except asyncio.TimeoutError:
                        if n % 2 == 1:
                            w.write(b"1\r\n \r\n")
                            await w.drain()
                        continue
                    if not got:
                        break
                    answer += got
                status = answer[9:12].decode() if answer.startswith(b"HTTP/1.1 ") else "closed"
            except OSError as e:
                status = type(e).__name__
            finally:
                w.close()
            count(out["status"], status)
            out["s"].append(time.monotonic() - t0)

    await asyncio.gather(*(worker(a, i) for a in addresses for i in range(per_address)))
    secs = out.pop("s")
    out["answers"] = len(secs)
    out["p50_s"] = round(percentile(secs, 50), 1) if secs else None
    out["max_s"] = round(max(secs), 1) if secs else None
    return out


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--attacker-token", required=True)
    ap.add_argument("--victim-token", required=True)
    ap.add_argument("--data-first", required=True, help="first day with data (YYYY-MM-DD)")
    ap.add_argument("--data-last", required=True, help="last day with data")
    ap.add_argument("--seconds", type=float, default=15, help="length of each phase")
    ap.add_argument("--hold-seconds", type=float, default=30, help="item 2: how long sockets stay unread")
    ap.add_argument("--victim-rate", type=float, default=10)
    ap.add_argument("--item1-senders", type=int, default=8)
    ap.add_argument("--item2-sockets", type=int, default=6)
    ap.add_argument("--item3-rate", type=float, default=20)
    ap.add_argument("--item9-addresses", type=int, default=8)
    ap.add_argument("--item9-days", type=int, default=3650)
    ap.add_argument("--slow-seconds", type=float, default=30, help="length of the slow phase")
    ap.add_argument("--slow-addresses", type=int, default=40)
    ap.add_argument("--slow-per-address", type=int, default=200)
    ap.add_argument("--stalled-seconds", type=float, default=25, help="length of the stalled phase")
    ap.add_argument("--stalled-addresses", type=int, default=8)
    ap.add_argument("--stalled-per-address", type=int, default=250)
    a = ap.parse_args()
    # Thousands of sockets: as many as this process may open.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    host, port = a.base.split("//")[1].split(":")
    port = int(port)
    first = dt.date.fromisoformat(a.data_first)
    last = dt.date.fromisoformat(a.data_last)
    recent = [last - dt.timedelta(days=i) for i in range(min(20, (last - first).days + 1))]

    rss = Rss(a.pid)
    victim = Victim(a.base, a.victim_token, recent, a.victim_rate)
    rss_task = asyncio.create_task(rss.run())
    victim.start()
    results = {}
    phases = []

    def phase(name):
        rss.phase = name
        victim.mark(name)
        phases.append(name)
        print(f"-- {name}", flush=True)

    phase("baseline")
    await asyncio.sleep(a.seconds)
    phase("item1")
    results["item1"] = await item1(a.base, a.attacker_token, a.seconds, a.item1_senders)
    phase("after1")
    await asyncio.sleep(5)
    phase("item2")
    results["item2"] = await item2(host, port, a.attacker_token, a.hold_seconds, a.item2_sockets)
    phase("after2")
    await asyncio.sleep(5)
    phase("item3")
    results["item3"] = await item3(a.base, a.attacker_token, a.seconds, a.item3_rate)
    phase("item9")
    addrs = [f"127.0.0.{i}" for i in range(2, 2 + a.item9_addresses)]
    results["item9"] = await item9(a.base, addrs, a.seconds, last - dt.timedelta(days=a.item9_days),
                                   last, 4)
    phase("slow")
    addrs = [f"127.0.{10 + i // 250}.{2 + i % 250}" for i in range(a.slow_addresses)]
    results["slow"] = await slow_connections(host, port, addrs, a.slow_per_address, a.slow_seconds)
    phase("after_slow")
    await asyncio.sleep(5)
    phase("stalled")
    addrs = [f"127.0.9.{2 + i}" for i in range(a.stalled_addresses)]
    results["stalled"] = await stalled_bodies(host, port, addrs, a.stalled_per_address,
                                              a.stalled_seconds)
    phase("item4")
    results["item4"] = await item4(a.base, a.attacker_token, recent[3])
    phase("end")
    await asyncio.sleep(2)
    await victim.finish()
    rss_task.cancel()
    hwm = rss.read("VmHWM")

    i1 = results["item1"]
    i1["mb"] = round(i1.pop("bytes") / 2**20, 1)
    secs = i1.pop("seconds")
    i1["answers"] = len(secs)
    i1["max_s"] = round(max(secs), 1) if secs else None

    print()
    print(f"{'phase':<9} {'victim n':>8} {'p50 ms':>8} {'p99 ms':>9} {'max ms':>9} {'RSS peak MiB':>13}  victim statuses")
    allv = []
    for p in phases:
        lat = victim.lat.get(p, [])
        allv += lat
        print(f"{p:<9} {len(lat):>8} {fmt(percentile(lat, 50)):>8} {fmt(percentile(lat, 99)):>9} "
              f"{fmt(max(lat) if lat else None):>9} {fmt(rss.peak.get(p)):>13}  {victim.status.get(p, {})}")
    print(f"{'all':<9} {len(allv):>8} {fmt(percentile(allv, 50)):>8} {fmt(percentile(allv, 99)):>9} "
          f"{fmt(max(allv) if allv else None):>9} {fmt(max(rss.peak.values())):>13}  (VmHWM {fmt(hwm)})")
    print()
    for k in ["item1", "item2", "item3", "item9", "slow", "stalled"]:
        print(f"{k}: {results[k]}")
    for c in results["item4"]:
        print(f"item4: {c}")
    summary = {
        "victim": {p: {"n": len(victim.lat.get(p, [])), "p50": percentile(victim.lat.get(p, []), 50),
                       "p99": percentile(victim.lat.get(p, []), 99),
                       "status": {str(k): v for k, v in victim.status.get(p, {}).items()}}
                   for p in phases},
        "victim_all": {"n": len(allv), "p50": percentile(allv, 50), "p99": percentile(allv, 99)},
        "rss_peak": rss.peak, "rss_start": rss.samples[0][2] if rss.samples else None, "vmhwm": hwm,
        "probes": {k: results[k] for k in ["item1", "item2", "item3", "item9", "slow", "stalled"]},
        "item4": results["item4"],
    }
    print("RESULT " + json.dumps(summary, default=str))


def fmt(v):
    return "-" if v is None else f"{v:.1f}"


if __name__ == "__main__":
    asyncio.run(main())
