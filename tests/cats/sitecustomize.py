"""Test support for tests/cats/run.sh, copied into the throwaway venv's site-packages, where Python
imports it at start-up: points CATS' wattnet.eu provider at gridprint without editing CATS' files
(CATS hard-codes WattnetEuProvider.BASE_URL), and appends every URL the provider fetches, with the
answer it got, to the file named by GRIDPRINT_CATS_TRACE (one JSON object per line), so the test can
check what CATS read. Does nothing unless GRIDPRINT_CATS_BASE_URL is set."""

import json
import os

_base = os.environ.get("GRIDPRINT_CATS_BASE_URL")
if _base:
    from cats.providers import eu_wattnet

    eu_wattnet.WattnetEuProvider.BASE_URL = _base.rstrip("/")
    _trace = os.environ.get("GRIDPRINT_CATS_TRACE")
    if _trace:
        _fetch = eu_wattnet.fetch_url

        def _traced_fetch(url, headers=None):
            answer = _fetch(url, headers=headers)
            with open(_trace, "a", encoding="utf-8") as f:
                f.write(json.dumps({"url": url, "answer": answer}) + "\n")
            return answer

        eu_wattnet.fetch_url = _traced_fetch
