"""Kinds and facts are plain SQL on agent_events (what a Grafana panel writes); the generated views
are the compiled rule table; tool categories follow the rules for real tool names."""

import pytest

from harborlight.agent.compile import generated_files
from harborlight.agent.rules import FACTS, KIND_RULES, KINDS
from harborlight.agent.sources import CONTEXTS
from harborlight.store.schema import agent_view_source, statement
from harborlight.store.schema_ddl import TRIAL_ATTRIBUTE, plain_schema
from tests.agent.otlp_build import Logs, Traces


def test_generated_view_sql_is_the_compiled_rule_table():
    for name, sql in generated_files().items():
        assert statement(name) == sql, f"run `python -m harborlight.agent.compile` to regenerate {name}.sql"


def test_the_store_finds_the_events_of_each_agent_view_by_its_raw_table():
    """The store reads which stored events a changed view derives again from the view's statement."""
    views = [s for s in plain_schema() if s.kind == "view" and agent_view_source(s.sql)]
    assert {s.name: agent_view_source(s.sql) for s in views} == {ctx.mv: ctx.table for ctx in CONTEXTS}


def test_the_cluster_shards_by_the_resource_attribute_the_rules_name_a_trial_by_first():
    trial = next(f for f in FACTS if f.name == "trial")
    assert next(a.key for a in trial.aliases if a.key.startswith("resource:")) == f"resource:{TRIAL_ATTRIBUTE}"


def test_every_rule_names_a_known_kind():
    assert {r.kind for r in KIND_RULES} <= {*KINDS, None}


def test_grafana_style_sql_counts_429s_tokens_and_tool_calls_per_trial(server, unique):
    job = f"job-{unique}"
    for trial in ("a", "b"):
        traces = Traces({"service.name": unique, "harbor.job.name": job, "harbor.trial.name": f"{unique}-{trial}"})
        traces.span(
            "chat m",
            {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 10},
        )
        traces.span("chat m", {"gen_ai.operation.name": "chat", "error.type": "429"}, error="429", start_ms=1)
        traces.span(
            "execute_tool Read", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Read"}, start_ms=2
        )
        traces.send(server)
    logs = Logs(
        {"service.name": unique, "harbor.job.name": job, "harbor.trial.name": f"{unique}-a"},
        scope="com.anthropic.claude_code.events",
    )
    logs.event({"event.name": "api_error", "status_code": 429, "model": "m"}, body="claude_code.api_error")
    logs.send(server)

    rows = server.sql(
        """
        SELECT TrialName,
               countIf(Kind = 'llm_request' AND HttpStatus = 429) AS rate_limited,
               sumIf(InputTokens, Kind = 'llm_request') AS input_tokens,
               countIf(Kind = 'tool' AND ToolCategory = 'read') AS reads,
               countIf(OutputTokens IS NULL) AS without_output_tokens
        FROM agent_events WHERE JobName = {job:String}
        GROUP BY TrialName ORDER BY TrialName""",
        job=job,
    )
    assert rows == [(f"{unique}-a", 2, 100, 1, 3), (f"{unique}-b", 1, 100, 1, 2)]


CATEGORY = """
SELECT _f_tool_category FROM (
    SELECT *, {category} AS _f_tool_category FROM (
        SELECT *, {exact} FROM (
            SELECT *, {helpers} FROM (
                SELECT {name:Nullable(String)} AS _f_tool_name, {arguments:Nullable(String)} AS _f_arguments,
                       mapFilter((k, v) -> v != '',
                                 map('mcp_server', {server:String}, 'gen_ai.operation.name', '')) AS _a))))"""


@pytest.mark.parametrize(
    ("tool", "arguments", "server_name", "category"),
    [
        ("TodoWrite", None, "", "plan"),
        ("update_plan", None, "", "plan"),
        ("tracker_add", None, "", "plan"),
        ("Grep", None, "", "search"),
        ("google_web_search", None, "", "search"),
        ("find_file", None, "", "search"),
        ("Read", None, "", "read"),
        ("read_many_files", None, "", "read"),
        ("WebFetch", None, "", "read"),
        ("MultiEdit", None, "", "edit"),
        ("apply_patch", None, "", "edit"),
        ("replace", None, "", "edit"),
        ("Bash", None, "", "execute"),
        ("exec_command", None, "", "execute"),
        ("run_shell_command", None, "", "execute"),
        ("str_replace_editor", '{"command": "view", "path": "/a"}', "", "read"),
        ("str_replace_editor", '{"command": "str_replace", "path": "/a"}', "", "edit"),
        ("Task", None, "", "other"),
        ("spawn_agent", None, "", "other"),
        ("browser_click", None, "", "other"),
        ("mcp__github__search_issues", None, "", "search"),
        ("mcp__github__get_file_contents", None, "", "read"),
        ("mcp__my_db__run_query", None, "", "search"),
        ("mcp__fs__write_file", None, "", "edit"),
        ("linear__create_issue", None, "", "edit"),
        ("create_issue", None, "linear", "edit"),
        ("mcp__weird__frobnicate", None, "", "other"),
        ("frobnicate", None, "", "other"),
    ],
)
def test_tool_category_rules(server, tool, arguments, server_name, category):
    from harborlight.agent.sql_parts import category_sql, tool_exact_sql, tool_helpers_sql

    sql = (
        CATEGORY.replace("{category}", category_sql())
        .replace("{exact}", tool_exact_sql())
        .replace("{helpers}", ", ".join(tool_helpers_sql()))
    )
    assert server.sql(sql, name=tool, arguments=arguments, server=server_name) == [(category,)]
