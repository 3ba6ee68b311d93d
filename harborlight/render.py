"""The terminal the commands print to (the values' formatting is query/routes/display.py, shared with
the HTML report)."""

import os
import sys

from rich.console import Console


def console() -> Console:
    """The terminal's width, or 160 columns when piped (rich would fold tables at 80); COLUMNS wins.
    No markup: names come from telemetry, and "[x]" in a span name must print as it is."""
    return Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else 160, markup=False, emoji=False)
