"""The query API's HTTP routes (/api/...): parse the request, run the statements, answer JSON."""
