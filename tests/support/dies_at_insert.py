"""A store client whose process is killed at one INSERT: the crash-safety tests of the schema's start."""


class DiesAtInsert:
    """The real client; the process dies (KeyboardInterrupt) at the first command that starts with `insert`,
    before it runs or, with `after`, once it has run."""

    def __init__(self, client, insert: str, after: bool) -> None:
        self._client, self._insert, self._after = client, insert, after

    def __getattr__(self, name):
        return getattr(self._client, name)

    def command(self, sql, *args, **kwargs):
        if not sql.startswith(self._insert):
            return self._client.command(sql, *args, **kwargs)
        if self._after:
            self._client.command(sql, *args, **kwargs)
        raise KeyboardInterrupt("killed")
