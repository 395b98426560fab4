"""Test-session settings shared by every test module."""

from __future__ import annotations

import os

from shell_envs.core.background import ENV_VAR

# Tests compile in the foreground, as they always did: environments built by the tests do not
# start background compiles (tests/test_background_compile.py switches them on where it
# tests them).  Subprocesses the tests start inherit this.
os.environ[ENV_VAR] = "0"
