#!/usr/bin/env bash
# The web app in a real headless Chromium against a real `cab serve` (issues 8, 13): Tests/browser/test_webapp.py.
# Needs Debian's chromium and chromium-driver (make test-deps) and a debug build (.build/debug/cab or $CAB_BINARY).
# Arguments select tests by name fragment. Screenshots: .build/screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f Tests/browser/test_webapp.py ]]; then
  echo "browser tests: none yet"
  exit 0
fi
for tool in chromium chromedriver zbarimg; do  # zbarimg reads the rider's QR code from a screenshot
  command -v "$tool" >/dev/null || { echo "browser tests: $tool is missing (run scripts/install-deps.sh --test)" >&2; exit 1; }
done
if [[ ! -x .build/venv/bin/python ]]; then
  python3 -m venv --system-site-packages .build/venv >/dev/null
fi
if ! .build/venv/bin/python -c 'import selenium' 2>/dev/null; then
  .build/venv/bin/pip install --quiet --disable-pip-version-check selenium
fi
rm -rf .build/screenshots
exec .build/venv/bin/python Tests/browser/test_webapp.py "$@"
