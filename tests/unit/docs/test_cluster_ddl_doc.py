"""The cluster DDL shown in docs/operating.md is the generator's output, not a hand-written copy: a change to
the schema or to its cluster form that leaves the page behind fails here."""

import re

from harborlight.store.schema_ddl import Cluster, cluster_schema
from tests.support.paths import REPO

PAGE = REPO / "docs" / "operating.md"
MARK = re.compile(
    r"<!-- generated: harborlight schema --cluster (\w+) --replicated print \((\w+)\) -->\n```sql\n"
    r"(.*?)\n```",
    re.S,
)


def test_the_cluster_ddl_on_the_operating_page_is_what_schema_print_writes():
    shown = MARK.findall(PAGE.read_text())
    assert shown, "docs/operating.md shows a generated excerpt of the cluster DDL"
    for cluster, table, block in shown:
        statements = [
            s
            for s in cluster_schema(Cluster(cluster, replicated=True))
            if re.fullmatch(rf"{table}(_local|_mv)?", s.name)
        ]
        assert block.strip() == "".join(f"{s.sql.strip()}\n;\n\n" for s in statements).strip()
