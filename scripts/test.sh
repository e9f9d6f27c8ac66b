#!/usr/bin/env bash
# Run every test on a fresh machine: installs Debian's chromium (for the browser test, when run
# as root on Debian/Ubuntu), the package with its test extra, then the gates (ruff lint and format,
# mypy) and pytest (unit, hardening, kernel, browser, and nbval over notebooks/). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
python -m pip install -q --disable-pip-version-check -e ".[test]"
python -m ruff check noesis_nb tests benchmarks scripts examples
python -m ruff format --check noesis_nb tests benchmarks scripts examples
python -m mypy
python -m pytest --durations=40 "$@"  # the slowest tests named, to keep the suite well under its time limit
