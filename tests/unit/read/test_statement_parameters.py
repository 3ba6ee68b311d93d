"""The statements made of the twin and identity rules' fragments name every parameter their conditions need, so
the keeper binds exactly those: the renames and earlier runs only in the forms that name the rows."""

import pytest

from harborlight.agent import identity, twins
from harborlight.read.statements import resolved_sql, trial_rows_sql
from harborlight.sql_text import ParameterError, Sql

_NAMES = set(identity.parameters([], []))  # the renames and earlier runs bound
_SCOPE = {"tenant": "", "trials": ["t"], "nameless": False}


def test_the_rules_statements_need_the_parameters_of_their_conditions():
    where, scope = Sql("JobName = {job:String}"), Sql("Tenant = {tenant:String} AND JobName = {job:String}")
    for form in twins.FORMS:
        # the scope names the rows, and with it come the renames and earlier runs bound
        named = {"tenant", *_NAMES} if form & twins.NAMED else set()
        assert set(twins.events(where, form, scope=scope).parameters) == {"job", *named}, form
        assert set(twins.outer_tellings(where, form, scope=scope).parameters) <= {"job", *named}, form
    # read alone (Grafana's form) the renames are read inside: nothing more to bind
    assert set(twins.events(where, twins.ALONE, scope=scope).parameters) == {"job", "tenant"}
    assert set(twins.form(where, scope=scope).parameters) == {"job", "tenant"}


def test_the_keepers_statements_take_exactly_what_it_binds():
    assert resolved_sql.FORM.bind(_SCOPE) == _SCOPE
    assert resolved_sql.GONE.bind({**_SCOPE, "version": 1}) == {**_SCOPE, "version": 1}
    for form in twins.FORMS:
        named = identity.parameters([], []) if form & twins.NAMED else {}
        resolved_sql.resolve(["Tenant", "TrialName"], form).bind({**_SCOPE, "version": 1, **named})
    lifecycle = set(trial_rows_sql.TRIAL_LIFECYCLE.parameters)
    assert lifecycle == {"tenant", "trials", "jobs", *identity.RUN_PARAMETERS}


def test_the_renames_missing_from_a_named_form_fail_before_the_engine_runs_it():
    named = resolved_sql.resolve(["Tenant", "TrialName"], twins.NAMED)
    with pytest.raises(ParameterError, match=r"no value for _names_keys, .*_runs_cutoffs"):
        named.bind({**_SCOPE, "version": 1})


def test_renames_given_to_a_plain_form_are_refused():
    plain = resolved_sql.resolve(["Tenant", "TrialName"], twins.PLAIN)
    with pytest.raises(ParameterError, match="_names_jobs, _names_keys, .* not among its parameters"):
        plain.bind({**_SCOPE, "version": 1, **identity.parameters([], [])})
