"""The write-ahead log in front of the store (collector.wal.write_ahead_log)."""

from collector.wal.durability import FsyncPolicy
from collector.wal.record import Record
from collector.wal.segment import Damage
from collector.wal.write_ahead_log import Depth, Entry, LogInUse, LogReport, Recovered, WriteAheadLog

__all__ = [
    "Damage", "Depth", "Entry", "FsyncPolicy", "LogInUse", "LogReport", "Record", "Recovered", "WriteAheadLog",
]
