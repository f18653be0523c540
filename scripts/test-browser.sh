#!/usr/bin/env bash
# The web app in a real headless Chromium against a real `cab serve` (issue 8). Skipped until Public/ exists.
set -euo pipefail
if [[ ! -f Tests/browser/test_webapp.py ]]; then
  echo "browser tests: none yet"
  exit 0
fi
python3 -m venv --system-site-packages .build/venv >/dev/null
.build/venv/bin/pip install --quiet --disable-pip-version-check selenium
.build/venv/bin/python Tests/browser/test_webapp.py
