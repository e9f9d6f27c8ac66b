#!/usr/bin/env bash
# Run every test on a fresh machine: installs Debian's chromium (for the browser test, when run
# as root on Debian/Ubuntu), the package with its test extra, then the gates (ruff lint and format,
# mypy) and pytest (unit, hardening, kernel, browser, and nbval over notebooks/). Extra arguments go to pytest
# (and then only what they name runs).
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
if [ "$#" -gt 0 ]; then
  exec python -m pytest --durations=40 "$@"
fi
# The two tests that build fresh environments spend minutes in pip, mostly waiting: they run beside the rest
# (their own process and log), which keeps the whole suite well under its time limit on 2 cores.
fresh=(tests/test_binder.py tests/test_ipykernel629.py)
fresh_log="$(mktemp)"
python -m pytest -p no:cacheprovider "${fresh[@]}" >"$fresh_log" 2>&1 &
fresh_pid=$!
set +e
python -m pytest --durations=40 "${fresh[@]/#/--ignore=}"  # the slowest tests named, to keep the suite well under its time limit
rest=$?
wait "$fresh_pid"
fresh_rc=$?
set -e
echo "==================== ${fresh[*]} (run beside the rest) ===================="
cat "$fresh_log"
rm -f "$fresh_log"
if [ "$rest" -ne 0 ]; then exit "$rest"; fi
exit "$fresh_rc"
