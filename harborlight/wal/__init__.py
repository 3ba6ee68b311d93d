"""The write-ahead log in front of the store (harborlight.wal.write_ahead_log)."""

from harborlight.wal.durability import FsyncPolicy
from harborlight.wal.record import Record
from harborlight.wal.segment import Damage
from harborlight.wal.write_ahead_log import Depth, Entry, LogInUse, LogReport, Recovered, WriteAheadLog

__all__ = [
    "Damage",
    "Depth",
    "Entry",
    "FsyncPolicy",
    "LogInUse",
    "LogReport",
    "Record",
    "Recovered",
    "WriteAheadLog",
]
