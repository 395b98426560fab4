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


def test_the_test_extra_carries_what_the_docs_build_needs() -> None:
    test_extra = PYPROJECT.split("\ntest = [")[1].split("\n]")[0]
    docs_extra = re.search(r"^docs = \[(.*)\]$", PYPROJECT, re.M)[1]
    packages = re.findall(r'"([^"]+)"', docs_extra)
    assert len(packages) == 3
    for package in packages:
        assert f'"{package}"' in test_extra, package
