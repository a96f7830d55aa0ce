"""The request matrix of the differential test: every endpoint, every parameter, each timestamp form,
aggregates, empty/repeated values, booleans, lat/lon, case variants, paths, invalid requests.

Each entry is (tag, target) where target is the raw request target (path + query, already encoded as
sent). Tags name why a request is in the matrix; the report groups differences by cause and lists tags.
"""

from __future__ import annotations

from urllib.parse import quote

# Demo windows that hold data in `gridprint serve --demo` (found by scanning the demo database):
# W1 2024-06-14T22Z..2024-06-15T22Z: DE, ES, FR, IT_NORTH, NL, PL complete (ENTSO-E API fixtures)
# W2 2024-09-01T22Z..2024-09-02T22Z: NL preview (A65/A11 fixtures)
# W3 2017-02-01T00Z..2017-02-02T01Z: ~30 zones, mixed complete/preview (File Library fixtures)
# W4 2024-01-14T23Z..2024-01-21T23Z: BE load only (A65 week fixture)
# W5 2024-09-01T22Z..2024-09-08T22Z: DE<->NL flows week (A11 fixture), NL load on the first day
WINDOWS = {
    "W1": ("2024-06-14T22:00:00Z", "2024-06-15T22:00:00Z", "NL", ["DE", "ES", "FR", "IT_NORTH", "NL", "PL"]),
    "W2": ("2024-09-01T22:00:00Z", "2024-09-02T22:00:00Z", "NL", ["NL", "DE"]),
    "W3": ("2017-02-01T00:00:00Z", "2017-02-02T01:00:00Z", "CH", ["AT", "CH", "CZ", "DE", "FR", "BE", "PT"]),
    "W4": ("2024-01-14T23:00:00Z", "2024-01-21T23:00:00Z", "BE", ["BE", "NL"]),
    "W5": ("2024-09-01T22:00:00Z", "2024-09-08T22:00:00Z", "NL", ["NL", "DE"]),
}

# Points well inside a zone (both services resolve lat/lon with polygons; stay away from borders).
POINTS = {"NL": (52.09, 5.12), "DE": (51.3, 9.5), "ES": (40.42, -3.7), "FR": (47.0, 2.5),
          "PL": (52.2, 21.0), "BE": (50.6, 4.6), "CH": (46.8, 8.2), "OCEAN": (45.0, -30.0)}

SERIES = ["generation", "load", "imports", "exports", "mix", "footprints", "impacts", "green-score",
          "flow-share", "mix-share", "footprint-share", "impact-share"]
AGGREGATABLE = ["footprints", "impacts", "green-score"]
SECONDARY = {"imports": "source", "exports": "destination", "flow-share": "destination",
             "mix-share": "origin", "footprint-share": "source", "impact-share": "source"}


def q(**kw) -> str:
    """Encode a query in the given order; a list value repeats the key; None omits it."""
    parts = []
    for k, v in kw.items():
        if v is None:
            continue
        for one in (v if isinstance(v, list) else [v]):
            parts.append(f"{k}={quote(str(one), safe='')}")
    return "&".join(parts)


def build() -> list[tuple[str, str]]:
    m: list[tuple[str, str]] = []

    def add(tag: str, path: str, query: str = "") -> None:
        m.append((tag, path + ("?" + query if query else "")))

    # --- every endpoint, per window: one zone, all zones, lowercase zone, lat/lon -----------------
    for wname, (s, e, zone, zones) in WINDOWS.items():
        for ep in SERIES:
            add(f"{wname}:{ep}:zone", f"/v1/{ep}", q(zone=zone, start=s, end=e))
            add(f"{wname}:{ep}:all-zones", f"/v1/{ep}", q(start=s, end=e))
        for z in zones:
            add(f"{wname}:footprints:each-zone", "/v1/footprints", q(zone=z, start=s, end=e))
            add(f"{wname}:generation:each-zone", "/v1/generation", q(zone=z, start=s, end=e))
        add(f"{wname}:footprints:lowercase-zone", "/v1/footprints", q(zone=zone.lower(), start=s, end=e))
        if zone in POINTS:
            lat, lon = POINTS[zone]
            for ep in ["footprints", "generation", "impacts", "green-score"]:
                add(f"{wname}:{ep}:latlon", f"/v1/{ep}", q(lat=lat, lon=lon, start=s, end=e))
        # secondary locations
        for ep, pre in SECONDARY.items():
            add(f"{wname}:{ep}:{pre}_zone", f"/v1/{ep}", q(zone=zone, **{f"{pre}_zone": zone}, start=s, end=e))
            other = [z for z in zones if z != zone][0]
            add(f"{wname}:{ep}:{pre}_zone-other", f"/v1/{ep}", q(**{f"{pre}_zone": other}, start=s, end=e))
            if zone in POINTS:
                lat, lon = POINTS[zone]
                add(f"{wname}:{ep}:{pre}_latlon", f"/v1/{ep}",
                    q(zone=zone, **{f"{pre}_lat": lat, f"{pre}_lon": lon}, start=s, end=e))
        # endpoint parameters
        for ft in ["carbon", "water"]:
            for sc in ["life-cycle", "operational"]:
                for ug in ["true", "false"]:
                    add(f"{wname}:footprints:type-scope-global", "/v1/footprints",
                        q(zone=zone, footprint_type=ft, scope=sc, use_global=ug, start=s, end=e))
                add(f"{wname}:footprint-share:type-scope", "/v1/footprint-share",
                    q(zone=zone, footprint_type=ft, scope=sc, start=s, end=e))
        for ug in ["true", "false"]:
            add(f"{wname}:impacts:use_global", "/v1/impacts", q(zone=zone, impact_type="water", scope="operational", use_global=ug, start=s, end=e))
            add(f"{wname}:green-score:use_global", "/v1/green-score", q(zone=zone, scope="operational", use_global=ug, start=s, end=e))
        add(f"{wname}:impact-share:params", "/v1/impact-share", q(zone=zone, impact_type="water", scope="operational", start=s, end=e))
        for pt in ["solar", "gas", "nuclear", "wind_onshore", "hydro_river"]:
            add(f"{wname}:generation:production_type", "/v1/generation", q(zone=zone, production_type=pt, start=s, end=e))
            add(f"{wname}:mix:production_type", "/v1/mix", q(zone=zone, production_type=pt, start=s, end=e))
        # aggregates: every zone, whole window, misaligned window, 1 slot, equal start/end
        for ep in AGGREGATABLE:
            for z in zones:
                add(f"{wname}:{ep}:aggregate", f"/v1/{ep}", q(zone=z, start=s, end=e, aggregate="true"))
            add(f"{wname}:{ep}:aggregate-all-zones", f"/v1/{ep}", q(start=s, end=e, aggregate="true"))
            add(f"{wname}:{ep}:aggregate-local", f"/v1/{ep}", q(zone=zone, start=s, end=e, aggregate="true", use_global="false"))
        add(f"{wname}:factors:window", "/v1/factors", q(start=s, end=e))
        add(f"{wname}:factors:aggregate", "/v1/factors", q(start=s, end=e, aggregate="true"))

    s1, e1, z1 = "2024-06-15T10:00:00Z", "2024-06-15T12:00:00Z", "NL"
    fp = "/v1/footprints"
    # misaligned windows and the resolution rules
    for tag, (s, e) in {
        "misaligned": ("2024-06-15T10:07:00Z", "2024-06-15T11:52:00Z"),
        "equal": ("2024-06-15T10:00:00Z", "2024-06-15T10:00:00Z"),
        "equal-misaligned": ("2024-06-15T10:07:00Z", "2024-06-15T10:07:00Z"),
        "one-slot": ("2024-06-15T10:00:00Z", "2024-06-15T10:15:00Z"),
        "end-5959999": ("2024-06-15T00:00:00Z", "2024-06-15T05:59:59.999Z"),
        "end-5959": ("2024-06-15T00:00:00Z", "2024-06-15T05:59:59Z"),
        "second-60": ("2024-06-15T10:00:60Z", "2024-06-15T11:00:00Z"),
        "leap-day-invalid": ("2024-02-30T00:00:00Z", "2024-03-01T00:00:00Z"),
    }.items():
        add(f"window:{tag}", fp, q(zone=z1, start=s, end=e))
        add(f"window:{tag}:aggregate", fp, q(zone=z1, start=s, end=e, aggregate="true"))

    # timestamp forms (same instant 10:00Z .. 12:00Z)
    forms = {
        "Z": ("2024-06-15T10:00:00Z", "2024-06-15T12:00:00Z"),
        "lower-z": ("2024-06-15t10:00:00z", "2024-06-15t12:00:00z"),
        "offset+02": ("2024-06-15T12:00:00+02:00", "2024-06-15T14:00:00+02:00"),
        "offset-0130": ("2024-06-15T08:30:00-01:30", "2024-06-15T10:30:00-01:30"),
        "offset+0000": ("2024-06-15T10:00:00+00:00", "2024-06-15T12:00:00+00:00"),
        "offset-compact": ("2024-06-15T12:00:00+0200", "2024-06-15T14:00:00+0200"),
        "naive": ("2024-06-15T10:00:00", "2024-06-15T12:00:00"),
        "naive-space": ("2024-06-15 10:00:00", "2024-06-15 12:00:00"),
        "no-seconds-Z": ("2024-06-15T10:00Z", "2024-06-15T12:00Z"),
        "no-seconds-naive": ("2024-06-15T10:00", "2024-06-15T12:00"),
        "date-only": ("2024-06-15", "2024-06-16"),
        "unix-seconds": ("1718445600", "1718452800"),
        "unix-float": ("1718445600.5", "1718452800.0"),
        "unix-millis": ("1718445600000", "1718452800000"),
        "fractional": ("2024-06-15T10:00:00.123456Z", "2024-06-15T11:59:59.5Z"),
        "fractional-ms": ("2024-06-15T10:00:00.000Z", "2024-06-15T12:00:00.000Z"),
        "hour-only": ("2024-06-15T10Z", "2024-06-15T12Z"),
        "basic-format": ("20240615T100000Z", "20240615T120000Z"),
        "week-date": ("2024-W24-6", "2024-W24-7"),
        "garbage": ("yesterday", "today"),
    }
    for tag, (s, e) in forms.items():
        add(f"time:{tag}", fp, q(zone=z1, start=s, end=e))
        add(f"time:{tag}:generation", "/v1/generation", q(zone=z1, start=s, end=e))
    for tag in ["Z", "offset+02", "naive", "date-only", "unix-seconds", "fractional", "no-seconds-Z"]:
        st, en = forms[tag]
        add(f"time:{tag}:aggregate", fp, q(zone=z1, start=st, end=en, aggregate="true"))
    add("time:plus-unencoded", fp, f"zone=NL&start=2024-06-15T12:00:00+02:00&end=2024-06-15T14:00:00+02:00")

    # booleans on aggregate and use_global
    for b in ["1", "0", "true", "false", "yes", "no", "on", "off", "True", "FALSE", "YES", "Off", "t", "f", "y", "n", "2", "maybe", ""]:
        add(f"bool:aggregate={b}", fp, q(zone=z1, start=s1, end=e1, aggregate=b))
        add(f"bool:use_global={b}", fp, q(zone=z1, start=s1, end=e1, use_global=b))
    for b in ["yes", "no", "on", "off", "1", "0"]:
        add(f"bool:factors-aggregate={b}", "/v1/factors", q(start=s1, end=e1, aggregate=b))

    # empty values
    for k in ["zone", "lat", "lon", "aggregate", "use_global", "footprint_type", "scope", "start", "end"]:
        add(f"empty:{k}", fp, q(**{"zone": z1, "start": s1, "end": e1, k: ""}))
    add("empty:start-and-end", fp, q(zone=z1, start="", end=""))
    add("empty:lat-and-lon", fp, q(lat="", lon="", start=s1, end=e1))
    add("empty:production_type", "/v1/generation", q(zone=z1, production_type="", start=s1, end=e1))
    add("empty:mix-production_type", "/v1/mix", q(zone=z1, production_type="", start=s1, end=e1))
    add("empty:impact_type", "/v1/impacts", q(zone=z1, impact_type="", start=s1, end=e1))
    add("empty:score-scope", "/v1/green-score", q(zone=z1, scope="", start=s1, end=e1))
    add("empty:factor_type", "/v1/factors", q(factor_type="", start=s1, end=e1))
    add("empty:factors-production_type", "/v1/factors", q(production_type="", start=s1, end=e1))
    add("empty:source_zone", "/v1/imports", q(zone=z1, source_zone="", start=s1, end=e1))
    add("empty:destination_zone", "/v1/flow-share", q(zone=z1, destination_zone="", start=s1, end=e1))
    add("empty:origin_zone", "/v1/mix-share", q(zone=z1, origin_zone="", start=s1, end=e1))
    add("empty:bare-key", fp, f"zone=NL&start={quote(s1)}&end={quote(e1)}&aggregate")

    # repeated values (the framework keeps the last)
    add("repeat:zone", fp, q(zone=["ES", "FR"], start=s1, end=e1))
    add("repeat:zone-generation", "/v1/generation", q(zone=["ES", "FR"], start=s1, end=e1))
    add("repeat:footprint_type", fp, q(zone=z1, footprint_type=["carbon", "water"], start=s1, end=e1))
    add("repeat:scope", fp, q(zone=z1, scope=["operational", "life-cycle"], start=s1, end=e1))
    add("repeat:start", fp, q(zone=z1, start=["2024-06-15T08:00:00Z", s1], end=e1))
    add("repeat:aggregate", fp, q(zone=z1, start=s1, end=e1, aggregate=["true", "false"]))
    add("repeat:production_type", "/v1/generation", q(zone=z1, production_type=["gas", "solar"], start=s1, end=e1))
    add("comma:zone", fp, q(zone="ES,FR", start=s1, end=e1))

    # case variants
    add("case:footprint_type", fp, q(zone=z1, footprint_type="Carbon", start=s1, end=e1))
    add("case:scope", fp, q(zone=z1, scope="LIFE-CYCLE", start=s1, end=e1))
    add("case:zone", fp, q(zone="nl", start=s1, end=e1))
    add("case:zone-mixed", "/v1/generation", q(zone="It_North", start=s1, end=e1))
    add("case:production_type", "/v1/generation", q(zone=z1, production_type="Solar", start=s1, end=e1))
    add("case:impact_type", "/v1/impacts", q(zone=z1, impact_type="WATER", start=s1, end=e1))
    add("case:factor_type", "/v1/factors", q(factor_type="Carbon", start=s1, end=e1))
    add("case:param-name", fp, "ZONE=NL&Start=2024-06-15T10:00:00Z&End=2024-06-15T12:00:00Z")

    # unknown zone, unknown parameter
    add("zone:unknown", fp, q(zone="XX", start=s1, end=e1))
    add("zone:not-in-window", fp, q(zone="PT", start=s1, end=e1))
    add("param:unknown", fp, q(zone=z1, start=s1, end=e1, foo="bar"))

    # lat/lon rules
    lat, lon = POINTS["NL"]
    add("latlon:zone-and-lat", fp, q(zone=z1, lat=lat, lon=lon, start=s1, end=e1))
    add("latlon:lat-only", fp, q(lat=lat, start=s1, end=e1))
    add("latlon:lon-only", fp, q(lon=lon, start=s1, end=e1))
    add("latlon:lat-91", fp, q(lat=91, lon=5, start=s1, end=e1))
    add("latlon:lon-181", fp, q(lat=52, lon=181, start=s1, end=e1))
    add("latlon:lat-abc", fp, q(lat="abc", lon=5, start=s1, end=e1))
    add("latlon:lat-nan", fp, q(lat="nan", lon=5, start=s1, end=e1))
    add("latlon:lat-inf", fp, q(lat="inf", lon=5, start=s1, end=e1))
    add("latlon:ocean", fp, q(lat=POINTS["OCEAN"][0], lon=POINTS["OCEAN"][1], start=s1, end=e1))
    add("latlon:exponent", fp, q(lat="5.209e1", lon="5.12", start=s1, end=e1))
    for z in ["DE", "ES", "FR", "PL"]:
        la, lo = POINTS[z]
        add("latlon:zones", fp, q(lat=la, lon=lo, start=s1, end=e1))
    add("latlon:source-only-lat", "/v1/imports", q(zone=z1, source_lat=lat, start=s1, end=e1))
    add("latlon:source-zone-and-lat", "/v1/imports", q(zone=z1, source_zone="DE", source_lat=lat, source_lon=lon, start=s1, end=e1))
    add("latlon:destination-ocean", "/v1/exports", q(zone=z1, destination_lat=45, destination_lon=-30, start=s1, end=e1))
    add("latlon:origin-lat-91", "/v1/mix-share", q(zone=z1, origin_lat=91, origin_lon=5, start=s1, end=e1))

    # time rules
    add("time-rule:start-only", fp, q(zone=z1, start=s1))
    add("time-rule:end-only", fp, q(zone=z1, end=e1))
    add("time-rule:start-after-end", fp, q(zone=z1, start=e1, end=s1))
    add("time-rule:aggregate-no-dates", fp, q(zone=z1, aggregate="true"))
    add("time-rule:aggregate-no-dates-impacts", "/v1/impacts", q(zone=z1, aggregate="true"))
    add("time-rule:aggregate-no-dates-score", "/v1/green-score", q(zone=z1, aggregate="true"))
    add("time-rule:aggregate-no-dates-factors", "/v1/factors", q(aggregate="true"))
    add("time-rule:no-window", fp, q(zone=z1))
    add("time-rule:no-window-all", fp, "")

    # invalid enum values
    add("enum:footprint_type", fp, q(zone=z1, footprint_type="nuclear", start=s1, end=e1))
    add("enum:scope", fp, q(zone=z1, scope="cradle", start=s1, end=e1))
    add("enum:impact_type-carbon", "/v1/impacts", q(zone=z1, impact_type="carbon", start=s1, end=e1))
    add("enum:impacts-scope-life-cycle", "/v1/impacts", q(zone=z1, scope="life-cycle", start=s1, end=e1))
    add("enum:score-scope-life-cycle", "/v1/green-score", q(zone=z1, scope="life-cycle", start=s1, end=e1))
    add("enum:impact-share-impact_type", "/v1/impact-share", q(zone=z1, impact_type="carbon", start=s1, end=e1))
    add("enum:footprint-share-scope", "/v1/footprint-share", q(zone=z1, scope="x", start=s1, end=e1))
    add("enum:production_type", "/v1/generation", q(zone=z1, production_type="fusion", start=s1, end=e1))
    add("enum:production_type-pumped", "/v1/generation", q(zone=z1, production_type="hydro_pumped_storage", start=s1, end=e1))
    add("enum:mix-production_type-pumped", "/v1/mix", q(zone=z1, production_type="hydro_pumped_storage", start=s1, end=e1))
    add("enum:factors-production_type-pumped", "/v1/factors", q(production_type="hydro_pumped_storage", start=s1, end=e1))
    add("enum:factor_type", "/v1/factors", q(factor_type="heat", start=s1, end=e1))
    add("enum:factors-scope", "/v1/factors", q(scope="x", start=s1, end=e1))

    # factors parameters
    for ft in ["carbon", "water"]:
        for sc in ["life-cycle", "operational"]:
            add("factors:type-scope", "/v1/factors", q(factor_type=ft, scope=sc, start=s1, end=e1))
    for pt in ["solar", "coal", "nuclear", "wind_offshore"]:
        add("factors:production_type", "/v1/factors", q(production_type=pt, start=s1, end=e1))
        add("factors:production_type-aggregate", "/v1/factors", q(production_type=pt, start=s1, end=e1, aggregate="true"))
    add("factors:no-window", "/v1/factors", "")
    add("factors:no-window-solar", "/v1/factors", q(production_type="solar"))

    # other endpoints and paths
    add("path:zones", "/v1/zones")
    add("path:zones-params", "/v1/zones", q(zone="NL"))
    for p in ["/v1/status", "/v1/status/storage", "/v1/status/entso-e", "/v1/status/elexon", "/v1/status/epias"]:
        add("path:status", p)
    add("path:latest-footprints", "/latest/footprints", q(zone=z1, start=s1, end=e1))
    add("path:latest-generation", "/latest/generation", q(zone=z1, start=s1, end=e1))
    add("path:latest-zones", "/latest/zones")
    add("path:latest-status", "/latest/status")
    add("path:trailing-slash", "/v1/footprints/", q(zone="DE"))
    add("path:trailing-slash-zones", "/v1/zones/")
    add("path:trailing-slash-latest", "/latest/zones/")
    for p in ["/openapi.json", "/docs", "/redoc", "/v1/openapi.json", "/v1/docs", "/v1/redoc",
              "/latest/openapi.json", "/latest/docs", "/", "/favicon.ico", "/v1", "/v1/",
              "/v2/footprints", "/v1/nonexistent", "/v1/environmental-score", "/static/images/banner.png"]:
        add("path:" + p, p)
    add("method:post", "POST /v1/footprints", q(zone=z1))
    add("auth:no-token", "NOAUTH /v1/footprints", q(zone=z1, start=s1, end=e1))
    add("format:csv", fp, q(zone=z1, start=s1, end=e1, format="csv"))
    return m
