"""Whether a deduplication token makes a repeated INSERT ... SELECT exactly-once (issue 17: a classifier that
re-runs a pass after a crash), before and after the rows it reads are merged.

Four 300,000-row parts (the block numbers kept, as the raw tables would keep them), one INSERT ... SELECT of them
in 65,536-row blocks under one token, the same statement again, then again after OPTIMIZE merged the source:
prints the rows the target holds after each.

Usage: python bench/classify_replay.py
"""

import tempfile

from chdb import session

with tempfile.TemporaryDirectory() as tmp:
    s = session.Session(tmp)

    def q(sql: str) -> str:
        return s.query(sql, "TSV").bytes().decode().strip()

    q("CREATE TABLE src (a UInt64, b String) ENGINE = MergeTree ORDER BY a SETTINGS enable_block_number_column = 1")
    q(
        "CREATE TABLE dst (a UInt64, b String) ENGINE = MergeTree ORDER BY a "
        "SETTINGS non_replicated_deduplication_window = 1000"
    )
    for i in range(4):
        q(f"INSERT INTO src SELECT number * 4 + {i}, toString(number) FROM numbers(300000)")
    insert = (
        "INSERT INTO dst SELECT a, b FROM src WHERE _block_number <= 4 SETTINGS insert_deduplication_token = "
        "'pass-1', max_block_size = 65536, min_insert_block_size_rows = 0, min_insert_block_size_bytes = 0"
    )
    q(insert)
    print(f"one pass: {int(q('SELECT count() FROM dst')):,} rows")
    q(insert)
    print(f"the same pass again, the same parts: {int(q('SELECT count() FROM dst')):,} rows")
    q("OPTIMIZE TABLE src FINAL")
    q(insert)
    print(f"the same pass again after the source was merged: {int(q('SELECT count() FROM dst')):,} rows")
    s.close()
