"""The package metadata keeps its promises: an SPDX license string and the LICENSE it names."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_license_is_an_spdx_expression_with_its_file() -> None:
    assert re.search(r'^license = "MIT"$', PYPROJECT, re.M)  # not the deprecated table form
    assert re.search(r'^license-files = \["LICENSE"\]$', PYPROJECT, re.M)
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and "WITHOUT WARRANTY OF ANY KIND" in text
    # setuptools reads SPDX expressions and license-files from 77 on
    assert int(re.search(r'requires = \["setuptools>=(\d+)"\]', PYPROJECT)[1]) >= 77


def test_the_installed_metadata_says_mit() -> None:
    metadata = importlib.metadata.metadata("shell-envs")
    assert metadata["License-Expression"] == "MIT"
    assert "LICENSE" in (metadata.get_all("License-File") or [])


def extra(name: str) -> set[str]:
    """The requirements of extra ``name``, with the extras of shell-envs it names expanded."""
    body = re.search(rf"^{re.escape(name)} = \[(.*?)\]$", PYPROJECT, re.M | re.S)[1]
    found = set()
    for requirement in re.findall(r'"([^"]+)"', re.sub(r"#.*", "", body)):
        inner = re.fullmatch(r"shell-envs\[([\w-]+)\]", requirement)
        found |= extra(inner[1]) if inner else {requirement}
    return found


def test_the_test_extras_carry_what_the_docs_build_needs() -> None:
    assert len(extra("docs")) == 3
    assert extra("docs") <= extra("test-core") <= extra("test")


def test_the_core_test_extra_needs_no_training_library() -> None:
    """CI's second environment (``.ci/run``) runs the suite on ``test-core`` without them."""
    names = {re.match(r"[\w.-]+", requirement)[0] for requirement in extra("test-core")}
    assert {"pytest", "hypothesis", "pygame", "mkdocs"} <= names
    assert not names & {"torch", "ray", "stable-baselines3", "sb3-contrib", "torchrl", "tianshou"}
