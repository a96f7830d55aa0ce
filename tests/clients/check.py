"""Uses the client that openapi-python-client generated from gridprint's /openapi.json, and nothing
else, to register, get a token and read /v1/footprints as JSON and as CSV (tests/clients/openapi-python.sh).

Usage: PYTHONPATH=<dir holding gridprint_client> python check.py URL EMAIL
"""

import csv
import io
import secrets
import sys

from gridprint_client import AuthenticatedClient, Client
from gridprint_client.api.data import footprints, footprints_csv
from gridprint_client.api.token import get_token, register
from gridprint_client.models import Credentials, FootprintResult, Registration, TokenResponse
from gridprint_client.models.footprint_type import FootprintType

url, email, code = sys.argv[1:]
password = "generated " + secrets.token_hex(8)
# A day the demo data covers (docs/usage.md, "What the demo holds").
WINDOW = {"zone": "DE", "start": "2017-02-01T00:00:00Z", "end": "2017-02-02T00:00:00Z"}

public = Client(base_url=url, raise_on_unexpected_status=True)
reg = register.sync(client=public, body=Credentials(email=email, password=password, code=code))
assert isinstance(reg, Registration), reg
assert reg.detail == "registered", reg.detail
tok = get_token.sync(client=public, body=Credentials(email=email, password=password))
assert isinstance(tok, TokenResponse), tok
assert tok.token_type == "bearer" and tok.expires_in == 86400 and len(tok.access_token) == 64, tok
# A wrong password is a documented answer (401, a problem document), not an exception.
wrong = get_token.sync_detailed(client=public, body=Credentials(email=email, password=password + "x"))
assert wrong.status_code == 401, wrong.status_code

client = AuthenticatedClient(base_url=url, token=tok.access_token, raise_on_unexpected_status=True)
answer = footprints.sync(client=client, footprint_type=FootprintType.CARBON, **WINDOW)
assert isinstance(answer, list) and answer, answer
assert all(isinstance(r, FootprintResult) for r in answer), answer
from_json = {}
for result in answer:
    for series in result.series:
        for ts, value in series.values:
            key = (result.zone, result.footprint_type.value, result.scope.value, result.coverage.value)
            from_json[key + (ts.strftime("%Y-%m-%dT%H:%M:%SZ"),)] = value
assert len(from_json) >= 96, len(from_json)

text = footprints_csv.sync(client=client, footprint_type=FootprintType.CARBON, **WINDOW)
assert isinstance(text, str), type(text)
rows = list(csv.DictReader(io.StringIO(text)))
from_csv = {
    (r["zone"], r["footprint_type"], r["scope"], r["coverage"], r["timestamp"]): float(r["value"])
    for r in rows
}
assert from_csv == from_json, (len(from_csv), len(from_json))
print(f"generated client: registered, token for {tok.expires_in} s, {len(from_json)} footprint points "
      f"as JSON equal to the {len(rows)} CSV rows")
