"""The command line: `harborlight serve`, the query commands, import and export (main.py registers them)."""
