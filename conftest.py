"""Session-wide test setup: a private per-run cache so tests never see stale data."""

import os
import tempfile

if "WARGAME_TEST_KEEP_CACHE" not in os.environ:
    os.environ["WARGAME_CACHE"] = tempfile.mkdtemp(prefix="wargame-test-cache-")
os.environ.setdefault("MPLBACKEND", "Agg")
