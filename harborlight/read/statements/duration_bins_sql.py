"""The SQL that counts a job's (or one trial's) agent spans into the duration bins of
harborlight/read/derive/duration_bins.py: per kind and bin, the spans and their summed duration, and apart the
spans with no known end. Bin i holds the durations below edge i and at or above edge i-1
(`arrayFirstIndex` is 1-based and 0 when no edge is above: the open last bin). The spans are the resolved
events (harborlight/read/statements/resolved_sql.py): a call told both by a span and by a log event counts
once. Not charted: `group` spans, which bracket a same-named child and are charged no time (the field guide),
and derived records (a model call's reasoning or output), which carry their call's clock and are not spans of
their own.
"""

from harborlight.read.statements.tenancy import AGENT_TENANT_FILTER

_SPANS = f"""{AGENT_TENANT_FILTER} AND NOT OuterTelling AND JobKey = {{job:String}} AND TrialName IS NOT NULL
      AND ({{trial:String}} = '' OR TrialKey = {{trial:String}})
      AND Kind != 'group' AND Provenance['kind'] != 'derived'"""

BINS = f"""
SELECT Kind, toUInt32(if(bin = 0, length({{edges:Array(UInt64)}}), bin - 1)) AS slot, count() AS n, sum(d) AS total_ns
FROM (
    SELECT Kind, toUInt64(toUnixTimestamp64Nano(EndTimestamp) - toUnixTimestamp64Nano(Timestamp)) AS d,
           arrayFirstIndex(e -> d < e, {{edges:Array(UInt64)}}) AS bin
    FROM resolved_events FINAL
    WHERE {_SPANS} AND EndTimestamp IS NOT NULL AND TimingQuality != 'unknown' AND EndTimestamp >= Timestamp
)
GROUP BY Kind, slot
"""

WITHOUT_CLOCK = f"""
SELECT count() FROM resolved_events FINAL
WHERE {_SPANS} AND (EndTimestamp IS NULL OR TimingQuality = 'unknown' OR EndTimestamp < Timestamp)
"""
