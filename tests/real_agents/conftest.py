import pytest

# The checks live beside the tests that run them: let pytest explain their failed asserts.
pytest.register_assert_rewrite("tests.real_agents.checks")
