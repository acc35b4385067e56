#!/usr/bin/env bash
# The test command of the README: sets up everything the suite needs on a fresh machine, then runs it.
#   bash tests/run.sh [pytest options]
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's headless Chromium renders the HTML reports in tests/report/test_browser.py.
if ! command -v chromium >/dev/null 2>&1; then
    (apt-get update -q && apt-get install -y -q chromium) >/dev/null || { echo "tests/run.sh: cannot install chromium" >&2; exit 1; }
fi
python3 -m venv .venv
.venv/bin/pip install -q -e '.[dev,cluster]'  # the cluster extra: Dask, for its tests
exec .venv/bin/python -m pytest "$@"
