"""A start on an up-to-date store rewrites no table's metadata: on a full disk such a rewrite (a no-op ALTER ...
IF NOT EXISTS) left the table's metadata file empty, and the store would not open again."""

from harborlight.store import ensure_schema


def _metadata_files(store_dir) -> dict[str, int]:
    """Each table's metadata file (`<table>.sql` in its database's directory of the store) and its mtime."""
    return {str(path.relative_to(store_dir)): path.stat().st_mtime_ns for path in (store_dir / "store").rglob("*.sql")}


def test_a_start_on_an_up_to_date_store_rewrites_no_table_s_metadata(server, store_dir):
    before = _metadata_files(store_dir)
    ensure_schema(server.store.client)
    after = _metadata_files(store_dir)
    assert any(name.endswith("/agent_events.sql") for name in before)
    assert sorted(name for name in before if after.get(name) != before[name]) == []
