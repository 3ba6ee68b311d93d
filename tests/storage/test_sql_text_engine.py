"""What the SQL toolkit writes, as the engine reads it: a literal is the string it was made of, a tuple of
literals the strings `IN` finds, and a fragment runs with the values bound by its parameters' names."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harborlight.sql_text import Sql, identifier, literal, literals

# any text a caller may hand over, quotes, backslashes, placeholders and escapes included (not NUL: the query
# text crosses into the engine as a C string)
_TEXT = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=40)
_TRICKY = ["it's", "\\", "\\'", "'; DROP TABLE otel_traces; --", "{tenant:String}", "\\n\n\t", "ünïcödé ✓"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_TEXT)
def test_a_literal_reads_back_as_its_string(server, value):
    assert server.store.client.query(f"SELECT {literal(value)}").result_rows == [(value,)]


def test_tricky_literals_read_back_and_are_found_in_their_tuple(server):
    client = server.store.client
    for value in _TRICKY:
        assert client.query(f"SELECT {literal(value)}, {literal(value)} IN {literals(_TRICKY)}").result_rows == [
            (value, True)
        ]
    assert client.query(f"SELECT 'b' IN {literals(['a'])}, 'a' IN {literals(['a'])}").result_rows == [(False, True)]


def test_an_identifier_names_the_column_it_was_made_of(server):
    for name in ("TrialName", "Events.Name", "we`ird \\ name", "it's"):
        result = server.store.client.query(f"SELECT 1 AS {identifier(name)}")
        assert result.column_names == (name,)


def test_a_fragment_runs_with_its_bound_parameters(server):
    echo = Sql("SELECT {job:String}, {n:UInt64} -- the job's name, a count")
    assert server.sql(echo.text, **echo.bind({"job": "it's", "n": 3})) == [("it's", 3)]
