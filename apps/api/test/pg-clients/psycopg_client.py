"""Drives psycopg 3 (Debian's python3-psycopg, run with /usr/bin/python3) against a PostgreSQL
wire-protocol server for the pg-clients harness (clients.ts). The connection comes from libpq's
environment (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, ...).

    python3 psycopg_client.py MODE 'JSON-ARGS'

Prints exactly one JSON document on stdout. An unexpected failure prints
{"error": {...}} and exits 1; the expected error of mode `error` and `cancel` exits 0.

Modes (JSON-ARGS fields):
  query    {sql, params?, setup?}          extended protocol, rows as the server's exact text
  prepare  {sql, paramSets, repeat?, checkPrepared?}
                                           prepare=True: a named server-side statement, executed
                                           once per parameter set (repeat times over)
  binary   {sql, params?, setup?}          binary=True cursor: typed Python values as exact strings
  cancel   {sql, afterMs}                  conn.cancel() from a thread after afterMs
  error    {sql, params?}                  the statement is expected to fail: sqlstate, message, ...

A parameter is a JSON value, or {"type": T, "value": V} to send a typed Python value:
  T = numeric | date | time | timestamp | timestamptz | interval_seconds | bytea_hex | uuid |
      json | jsonb | float | int | text
"""

import datetime
import decimal
import json
import sys
import threading
import time
import uuid

import psycopg
from psycopg.types.json import Json, Jsonb

REPORTED_PARAMETERS = (
    "server_version",
    "server_encoding",
    "client_encoding",
    "TimeZone",
    "DateStyle",
    "IntervalStyle",
    "integer_datetimes",
    "standard_conforming_strings",
)


def connect(**kw):
    # "" = everything from the environment, as psql does
    return psycopg.connect("", application_name="junction-test-psycopg", **kw)


def parameters(conn):
    return {k: conn.info.parameter_status(k) for k in REPORTED_PARAMETERS}


def to_param(p):
    if isinstance(p, list):
        return [to_param(x) for x in p]
    if not isinstance(p, dict) or "type" not in p:
        return p
    t, v = p["type"], p.get("value")
    if v is None:
        return None
    if t == "numeric":
        return decimal.Decimal(v)
    if t == "date":
        return datetime.date.fromisoformat(v)
    if t == "time":
        return datetime.time.fromisoformat(v)
    if t in ("timestamp", "timestamptz"):
        return datetime.datetime.fromisoformat(v)
    if t == "interval_seconds":
        return datetime.timedelta(seconds=float(v))
    if t == "bytea_hex":
        return bytes.fromhex(v)
    if t == "uuid":
        return uuid.UUID(v)
    if t == "json":
        return Json(v)
    if t == "jsonb":
        return Jsonb(v)
    if t == "float":
        return float(v)
    if t == "int":
        return int(v)
    if t == "text":
        return str(v)
    raise ValueError(f"unknown parameter type {t!r}")


def to_params(ps):
    return None if ps is None else [to_param(p) for p in ps]


def columns_of(cur):
    res = cur.pgresult
    if res is None or cur.description is None:
        return []
    return [
        {"name": d.name, "typeOid": d.type_code, "format": res.fformat(i)}
        for i, d in enumerate(cur.description)
    ]


def raw_rows(cur):
    """The rows exactly as the server sent them (text format), whatever psycopg would load."""
    res = cur.pgresult
    if res is None or cur.description is None:
        return []
    rows = []
    for r in range(res.ntuples):
        row = []
        for c in range(res.nfields):
            v = res.get_value(r, c)
            row.append(None if v is None else bytes(v).decode("utf-8"))
        rows.append(row)
    return rows


def exact(v):
    """A loaded Python value as a string that says exactly what was loaded."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)  # shortest string that round-trips the double
    if isinstance(v, (int, decimal.Decimal, uuid.UUID)):
        return str(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, datetime.timedelta):
        return f"{v.days}d {v.seconds}s {v.microseconds}us"
    if isinstance(v, (bytes, bytearray, memoryview)):
        return "\\x" + bytes(v).hex()
    if isinstance(v, str):
        return v
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return repr(v)


def error_info(e, started):
    d = e.diag
    return {
        "sqlstate": e.sqlstate,
        "class": type(e).__name__,
        "severity": d.severity_nonlocalized or d.severity,
        "message": d.message_primary or str(e),
        "detail": d.message_detail,
        "hint": d.message_hint,
        "position": int(d.statement_position) if d.statement_position else None,
        "elapsedMs": round((time.monotonic() - started) * 1000, 1),
    }


def still_usable(conn):
    """After an error: roll back, then does the session still answer?"""
    try:
        conn.rollback()
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            return cur.fetchone()[0] == 1
    except psycopg.Error:
        return False


def run_setup(conn, setup):
    with conn.cursor() as cur:
        for s in setup or []:
            cur.execute(s)


def mode_query(a):
    with connect(autocommit=True) as conn:
        run_setup(conn, a.get("setup"))
        with conn.cursor() as cur:
            started = time.monotonic()
            cur.execute(a["sql"], to_params(a.get("params")))
            ms = (time.monotonic() - started) * 1000
            return {
                "columns": columns_of(cur),
                "rows": raw_rows(cur),
                "rowcount": cur.rowcount,
                "status": cur.statusmessage,
                "ms": round(ms, 2),
                "parameters": parameters(conn),
            }


def mode_prepare(a):
    sets = a.get("paramSets") or [[]]
    repeat = int(a.get("repeat", 1))
    results = []
    with connect(autocommit=True) as conn:
        with conn.cursor() as cur:
            started = time.monotonic()
            for _ in range(repeat):
                for ps in sets:
                    cur.execute(a["sql"], to_params(ps), prepare=True)
                    results.append(raw_rows(cur))
            ms = (time.monotonic() - started) * 1000
            columns = columns_of(cur)
            prepared = None
            if a.get("checkPrepared"):
                cur.execute("SELECT name, statement FROM pg_prepared_statements ORDER BY name")
                prepared = raw_rows(cur)
    n = len(results)
    return {
        "columns": columns,
        "results": results,
        "executions": n,
        "ms": round(ms, 2),
        "perExecMs": round(ms / n, 3) if n else None,
        "preparedStatements": prepared,
    }


def mode_binary(a):
    with connect(autocommit=True) as conn:
        run_setup(conn, a.get("setup"))
        with conn.cursor(binary=True) as cur:
            cur.execute(a["sql"], to_params(a.get("params")))
            columns = columns_of(cur)
            loaded = cur.fetchall()
            return {
                "columns": columns,
                "rows": [[exact(v) for v in row] for row in loaded],
                "pyTypes": [[type(v).__name__ for v in row] for row in loaded],
                "parameters": parameters(conn),
            }


def mode_cancel(a):
    after = float(a.get("afterMs", 500)) / 1000
    with connect(autocommit=True) as conn:
        canceller = threading.Timer(after, conn.cancel)
        started = time.monotonic()
        canceller.start()
        try:
            with conn.cursor() as cur:
                cur.execute(a["sql"])
            out = {"sqlstate": None, "completed": True,
                   "elapsedMs": round((time.monotonic() - started) * 1000, 1)}
        except psycopg.Error as e:
            out = error_info(e, started)
            out["completed"] = False
        finally:
            canceller.cancel()
        out["usableAfter"] = still_usable(conn)
        return out


def mode_error(a):
    with connect(autocommit=True) as conn:
        started = time.monotonic()
        try:
            with conn.cursor() as cur:
                cur.execute(a["sql"], to_params(a.get("params")))
            return {"sqlstate": None, "completed": True}
        except psycopg.Error as e:
            out = error_info(e, started)
            out["completed"] = False
            out["usableAfter"] = still_usable(conn)
            return out


MODES = {
    "query": mode_query,
    "prepare": mode_prepare,
    "binary": mode_binary,
    "cancel": mode_cancel,
    "error": mode_error,
}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        print(f"usage: psycopg_client.py {{{'|'.join(MODES)}}} 'JSON-ARGS'", file=sys.stderr)
        return 2
    args = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    started = time.monotonic()
    try:
        out = MODES[sys.argv[1]](args)
    except psycopg.Error as e:
        print(json.dumps({"error": error_info(e, started)}))
        return 1
    out["psycopg"] = {"version": psycopg.__version__, "impl": psycopg.pq.__impl__,
                      "libpq": psycopg.pq.version()}
    out["totalMs"] = round((time.monotonic() - started) * 1000, 1)
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
