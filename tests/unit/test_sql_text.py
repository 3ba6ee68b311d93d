"""The SQL toolkit: a fragment names the parameters its placeholders need, and a statement is run with exactly
those (a missing or unexpected one fails in Python, before the engine sees it)."""

import pytest

from harborlight.sql_text import ParameterError, Sql, identifier, literal, literals


def test_a_fragment_names_its_parameters_and_their_types_in_order_of_first_use():
    where = Sql(
        "Tenant = {tenant:String} AND TrialName IN {trials:Array(String)}"
        " AND JobName IN {jobs:Array(Nullable(String))} AND Tenant != {tenant:String}"
    )
    assert where.parameters == {"tenant": "String", "trials": "Array(String)", "jobs": "Array(Nullable(String))"}
    assert Sql("SELECT 1").parameters == {}
    # a placeholder is none inside a string literal, a quoted name or a comment, and a comment opens no string
    looks_like_one = Sql(
        "Body = '{not:String}' AND `{nor:String}` = 1 -- nor {this:String}, row's\n"
        "AND x = {job:String} /* {not:String} */ AND y = 'it\\'s {no:String}' AND z = {id:UInt64}"
    )
    assert looks_like_one.parameters == {"job": "String", "id": "UInt64"}


def test_one_name_bound_as_two_types_is_refused():
    with pytest.raises(ParameterError, match="trial is bound as String and as UInt64"):
        _ = Sql("a = {trial:String} OR b = {trial:UInt64}").parameters


def test_fragments_composed_need_the_parameters_of_each():
    where, scope = Sql("JobName = {job:String}"), Sql("Tenant = {tenant:String}")
    statement = Sql(f"SELECT * FROM agent_events WHERE ({where.text}) AND ({scope.text})")
    assert statement.parameters == {"job": "String", "tenant": "String"}
    assert statement.bind({"tenant": "", "job": "j"}) == {"job": "j", "tenant": ""}


def test_a_missing_or_unexpected_parameter_is_named_before_the_engine_runs_anything():
    statement = Sql("JobName = {job:String} AND Tenant = {tenant:String}")
    with pytest.raises(ParameterError, match=r"no value for tenant \(it needs job, tenant\)"):
        statement.bind({"job": "j"})
    with pytest.raises(ParameterError, match=r"^statement parameters: limit, trial not among its parameters"):
        statement.bind({"job": "j", "tenant": "", "trial": "t", "limit": 1})
    with pytest.raises(ParameterError, match=r"no value for job; extra not among its parameters \(it needs job\)"):
        Sql("JobName = {job:String}").bind({"extra": 1})
    with pytest.raises(ParameterError, match=r"extra not among its parameters \(it needs none\)"):
        Sql("SELECT 1").bind({"extra": 1})


@pytest.mark.parametrize(
    ("value", "spelled"),
    [("plain", "'plain'"), ("it's", "'it\\'s'"), ("back\\slash", "'back\\\\slash'"), ("\\'", "'\\\\\\''")],
)
def test_a_literal_escapes_backslashes_and_quotes(value, spelled):
    assert literal(value) == spelled


def test_an_identifier_escapes_backslashes_and_backticks():
    assert identifier("Events.Name") == "`Events.Name`"
    assert identifier("we`ird\\name") == "`we\\`ird\\\\name`"


def test_literals_spell_a_tuple_as_the_stored_statements_always_had_it():
    # (the resolution's hash is taken over these texts: they must not move)
    assert literals(("harborlight.atif", "harbor-atif2otel")) == repr(("harborlight.atif", "harbor-atif2otel"))
    assert literals(("gen_ai.user.message",)) == "('gen_ai.user.message',)"
    assert literals(["it's"]) == "('it\\'s',)"
