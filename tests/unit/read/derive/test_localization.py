"""Localization: the agent's edited files against the gold patch's. The patches are written as git
writes them (SWE-bench's `patch` field is `git diff` output), not by harborlight."""

from harborlight.read.derive.localization import NO_GOLD_PATCH, derive_localization, patch_files
from harborlight.read.derive.provenance import inferred, unavailable

# A gold patch in git's format: a change, a new file and a deleted one (the shape of SWE-bench's `patch`).
GOLD = """diff --git a/django/db/models/query.py b/django/db/models/query.py
index 1f2a3b4..5c6d7e8 100644
--- a/django/db/models/query.py
+++ b/django/db/models/query.py
@@ -10,3 +10,3 @@ class QuerySet:
     def count(self):
-        return len(self._result_cache)
+        return self.query.get_count(using=self.db)
 
diff --git a/django/db/models/lookups_new.py b/django/db/models/lookups_new.py
new file mode 100644
index 0000000..9a8b7c6
--- /dev/null
+++ b/django/db/models/lookups_new.py
@@ -0,0 +1,2 @@
+class Exact:
+    pass
diff --git a/django/db/old.py b/django/db/old.py
deleted file mode 100644
index 3e4f5a6..0000000
--- a/django/db/old.py
+++ /dev/null
@@ -1 +0,0 @@
-OLD = True
"""


def test_the_gold_patch_names_changed_added_and_deleted_files_repository_relative():
    assert patch_files(GOLD) == ("django/db/models/lookups_new.py", "django/db/models/query.py", "django/db/old.py")


def test_hit_missed_and_extra_split_the_edited_files_against_the_gold_ones():
    touched = inferred(("django/db/models/query.py", "tests/test_count.py"))
    loc = derive_localization(touched, GOLD)
    assert loc.provenance.value == "inferred"
    assert loc.value.hit == ("django/db/models/query.py",)
    assert loc.value.missed == ("django/db/models/lookups_new.py", "django/db/old.py")
    assert loc.value.extra == ("tests/test_count.py",)


def test_an_agent_that_edited_nothing_missed_every_gold_file():
    loc = derive_localization(inferred(()), GOLD)
    assert (loc.value.hit, loc.value.extra, len(loc.value.missed)) == ((), (), 3)


def test_without_a_gold_patch_or_without_tool_calls_it_is_null_with_the_reason():
    assert derive_localization(inferred(("a.py",)), None) == unavailable(NO_GOLD_PATCH)
    assert derive_localization(unavailable("no tool-call telemetry"), GOLD).note == "no tool-call telemetry"
    assert derive_localization(inferred(("a.py",)), "just words, no diff").note == "the gold patch changes no file"
