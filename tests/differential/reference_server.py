"""Run the reference server (PyPI wattnet-api, unmodified) on an in-memory storage stand-in.

Only the network layer is replaced: `clickhouse_connect.get_client` returns `FakeClickHouse`, which
executes the SQL the wattnet-storage ClickHouse plugin builds on an in-memory SQLite database:

* `command()` receives the plugin's own `CREATE TABLE ... ENGINE = ReplacingMergeTree(updated_at)
  ORDER BY (...)` statements; the stand-in creates the same columns and a unique index on the ORDER BY
  key, so a later insert with the same key replaces the earlier row (what `SELECT ... FINAL` shows).
* `insert()` receives the rows the plugin's own `write_metrics` / `_build_row` produced (labels
  stringified by the plugin, e.g. `valid` -> "True").
* `query_df()` receives the plugin's parameterised SELECT (`FROM db.table FINAL WHERE timestamp >=
  toDateTime({start:String}) AND timestamp < toDateTime({end:String}) [AND col = {label_col:String}]
  ORDER BY timestamp ASC`) and answers a pandas DataFrame typed as clickhouse-connect types it:
  DateTime -> naive datetime64, Float32 -> float32 (so the plugin's `round(float(val), 2)` sees the
  Float32 value), Nullable(Int32) -> pandas Int32, strings -> object. Rows with the same timestamp
  come in the table's ORDER BY key order (ClickHouse leaves ties of `ORDER BY timestamp` unspecified;
  reading a merged part in key order gives this order).

Everything above the client (time-range resolution, SQL building, Float32 rounding,
filter_best_metrics, services' regrouping, validation, FastAPI/pydantic serialisation) is the
published code, run as installed.

Usage (inside the reference venv):
    python reference_server.py --rows ROWS.json --port PORT [--host 127.0.0.1]

ROWS.json: {"metrics": [{"name": "zone_generation", "timestamp": "2024-06-15T10:00:00Z",
"value": 1.5, "metadata": {...}}, ...]} (written by runner.py from gridprint's answers).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
from datetime import datetime, timezone

import clickhouse_connect
import numpy as np
import pandas as pd

_DB = sqlite3.connect(":memory:", check_same_thread=False)
_TABLES: dict[str, dict] = {}  # table -> {"cols": [(name, type)], "order": [cols]}


def _ts_text(v) -> str | None:
    if v is None:
        return None
    if isinstance(v, str):
        v = datetime.fromisoformat(v)
    if v.tzinfo is not None:
        v = v.astimezone(timezone.utc).replace(tzinfo=None)
    return v.strftime("%Y-%m-%d %H:%M:%S")


class FakeClickHouse:
    """The clickhouse_connect client surface the wattnet-storage plugin uses."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def close(self):
        pass

    def command(self, sql: str):
        sql = " ".join(sql.split())
        if sql.startswith("CREATE DATABASE"):
            return None
        m = re.match(
            r"CREATE TABLE IF NOT EXISTS (\w+)\.(\w+) \( (.*) \) ENGINE = "
            r"ReplacingMergeTree\((\w+)\) ORDER BY \((.*)\)$",
            sql,
        )
        if not m:
            raise RuntimeError(f"stand-in: unsupported command {sql!r}")
        _db, table, cols_sql, _version_col, order_sql = m.groups()
        cols = []
        for part in re.split(r",\s*(?=\w+ )", cols_sql):
            name, typ = part.strip().split(" ", 1)
            cols.append((name, typ))
        order = [c.strip() for c in order_sql.split(",")]
        _TABLES[table] = {"cols": cols, "order": order}
        col_defs = ", ".join(f'"{n}"' for n, _ in cols)
        _DB.execute(f'CREATE TABLE IF NOT EXISTS "{table}" ({col_defs})')
        keys = ", ".join(f'"{c}"' for c in order)
        _DB.execute(f'CREATE UNIQUE INDEX IF NOT EXISTS "{table}_key" ON "{table}" ({keys})')
        return None

    def insert(self, table: str, rows: list, column_names: list[str]):
        cols = _TABLES[table]["cols"]
        types = dict(cols)
        out = []
        for row in rows:
            vals = []
            for name, v in zip(column_names, row):
                typ = types[name]
                if typ.startswith("DateTime"):
                    vals.append(_ts_text(v))
                elif typ == "Float32":
                    # ClickHouse stores a Float32: keep exactly the float32 value.
                    vals.append(float(np.float32(v)))
                else:
                    vals.append(v)
            out.append(vals)
        names = ", ".join(f'"{c}"' for c in column_names)
        marks = ", ".join("?" for _ in column_names)
        # ReplacingMergeTree(updated_at): the row inserted last (largest updated_at) wins.
        _DB.executemany(f'INSERT OR REPLACE INTO "{table}" ({names}) VALUES ({marks})', out)
        _DB.commit()

    def query_df(self, sql: str, parameters: dict | None = None):
        parameters = parameters or {}
        m = re.match(r"\s*SELECT \* FROM (\w+)\.(\w+) FINAL (.*)$", " ".join(sql.split()))
        if not m:
            raise RuntimeError(f"stand-in: unsupported query {sql!r}")
        _db, table, rest = m.groups()
        meta = _TABLES[table]
        rest = re.sub(r"toDateTime\(\{(\w+):String\}\)", r":\1", rest)
        rest = re.sub(r"\{(\w+):String\}", r":\1", rest)
        if not rest.endswith("ORDER BY timestamp ASC"):
            raise RuntimeError(f"stand-in: unexpected ORDER BY in {sql!r}")
        ties = ", ".join(f'"{c}"' for c in meta["order"][1:])
        if ties:
            rest += ", " + ties
        cols = meta["cols"]
        names = ", ".join(f'"{n}"' for n, _ in cols)
        cur = _DB.execute(f'SELECT {names} FROM "{table}" {rest}', parameters)
        rows = cur.fetchall()
        data = {}
        for i, (name, typ) in enumerate(cols):
            col = [r[i] for r in rows]
            if typ.startswith("DateTime"):
                data[name] = pd.to_datetime(pd.Series(col, dtype="object"), format="%Y-%m-%d %H:%M:%S")
            elif typ == "Float32":
                data[name] = pd.Series(col, dtype="float32")
            elif typ.startswith("Nullable(Int"):
                data[name] = pd.Series(col, dtype="Int32")
            else:
                data[name] = pd.Series(col, dtype="object")
        return pd.DataFrame(data, columns=[n for n, _ in cols])


def _fake_get_client(**kwargs):
    return FakeClickHouse(**kwargs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    args = ap.parse_args()

    # The network layer, and only it, is replaced.
    clickhouse_connect.get_client = _fake_get_client

    import uvicorn
    from wattnet.api.app import versioned_app
    from wattnet.api.dependencies import metrics_repo
    from wattnet.storage.models import Metric, MetricType

    with open(args.rows, encoding="utf-8") as f:
        doc = json.load(f)
    metrics = []
    for r in doc["metrics"]:
        ts = datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00"))
        metrics.append(Metric(MetricType(r["name"]), r["value"], ts, dict(r["metadata"])))
    # The plugin's own write path (_build_row, buffer) then an immediate flush into the stand-in.
    metrics_repo.write_metrics(metrics)
    for client in metrics_repo.storage_manager.storage_clients.values():
        client._flush_all()
    counts = {t: _DB.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in _TABLES}
    print("reference stand-in loaded: " + json.dumps(counts), file=sys.stderr, flush=True)

    config = uvicorn.Config(versioned_app, host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)
    print(f"reference listening on http://{args.host}:{args.port}", file=sys.stderr, flush=True)
    server.run()


if __name__ == "__main__":
    os.environ.setdefault("WATTNET_API_LOG_LEVEL", "WARNING")
    main()
