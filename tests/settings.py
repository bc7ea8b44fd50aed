"""Settings for the test suite and the type checker: the site's own, in development mode unless the
environment says otherwise (the site itself defaults to DEBUG off, which needs a real SECRET_KEY).
Tests of production behaviour start processes with DEBUG=0 and their own keys (tests/site, tests/faults)."""

import os

os.environ.setdefault("DEBUG", "1")

from accordion_site.settings import *  # noqa: F403
