"""Whether insert block numbers become visible in order, so a classifier may take every block up to the newest
it sees as committed (issue 17: the watermark of a classify-after-commit pass).

Three writers on connections of their own INSERT into one table (three partitions, so three blocks an INSERT)
for `--seconds`, while a reader polls the block numbers stored; counts the blocks that appeared at or below an
earlier poll's newest block (a watermark taken then would have skipped them).

Usage: python bench/block_order.py [--seconds 20]
"""

import argparse
import tempfile
import threading
import time

import clickhouse_connect


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as path:  # the engine may still write merges

        def connect():
            return clickhouse_connect.get_client(interface="chdb", path=path)

        reader = connect()
        reader.command(
            "CREATE TABLE src (a UInt64) ENGINE = MergeTree PARTITION BY a % 3 ORDER BY a "
            "SETTINGS enable_block_number_column = 1"
        )
        stopping = threading.Event()

        def write(k: int) -> None:
            client = connect()
            while not stopping.is_set():
                client.command(f"INSERT INTO src SELECT number FROM numbers({20_000 + k * 1_000})")

        writers = [threading.Thread(target=write, args=(k,)) for k in range(3)]
        for w in writers:
            w.start()
        earlier: list[tuple[int, set[int]]] = []
        late = polls = 0
        ends = time.monotonic() + args.seconds
        while time.monotonic() < ends:
            blocks = {row[0] for row in reader.query("SELECT DISTINCT _block_number FROM src").result_rows}
            late += sum(1 for newest, seen in earlier for b in blocks if b <= newest and b not in seen)
            if blocks:
                earlier.append((max(blocks), blocks))
            polls += 1
        stopping.set()
        for w in writers:
            w.join()
        print(f"{polls} polls, {len(blocks):,} blocks written: {late} appeared at or below an earlier poll's newest")


if __name__ == "__main__":
    main()
