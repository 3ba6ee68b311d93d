"""Trial rows kept as data: derived by harborlight/read/derive/ when a trial's events change, stored in trial_rows,
read by the API, the reports, the CLI and the dashboards."""
