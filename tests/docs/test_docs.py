"""The documentation: the site builds in strict mode, and every code block in it runs.

The convention (``docs/code-blocks.md``): a ``python`` or ``bash`` block runs here, on its
own, in a scratch folder; one right after ``<!-- runs: NAME -->`` runs word for word in a
test of its own that also checks its results; one right after ``<!-- not run: REASON -->``
is not run, for that reason; ``text`` blocks are output.  Needs the ``test-core`` extra (mkdocs);
a block that imports a training library skips where that library is not installed.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(
    r"(?:^<!-- (?P<marker>runs|not run): *(?P<note>.*?) *-->\n)?"
    r"^```(?P<lang>\S*)\n(?P<code>.*?)^```$",
    re.S | re.M,
)
LANGUAGES = {"python", "bash", "text"}
MAX_NOT_RUN = 8  # setup commands and runs of minutes; keep them few
ROLES = r"(?:class|meth|func|data|attr|mod|exc|obj)"
REST_ROLE = re.compile(rf":{ROLES}:`")  # in a docstring
RAW_ROLE = re.compile(rf":{ROLES}: ?<code>")  # the same, rendered as typed
UNRESOLVED_REF = re.compile(r"\]\[[\w.]*\]")  # a cross-reference autorefs left as text
EMPTY_HEADER = re.compile(r"<thead>\s*<tr>(\s*<th[^>]*>\s*</th>)+\s*</tr>")  # | | | tables
MAX_CODE_LINE = 80  # characters of code that a 1280-pixel window shows whole on the site
# the training libraries of the extras, and the adapters that import them: a block that imports
# one skips where its library is not installed (a core install runs the others)
EXTRAS = {m: m for m in ("torch", "ray", "stable_baselines3", "sb3_contrib", "torchrl", "tianshou")}
EXTRAS["shell_envs.integrations.sb3"] = "stable_baselines3"
EXTRAS["shell_envs.integrations.rllib"] = "ray"
IMPORTED = re.compile(r"^\s*(?:from|import) +([\w.]+)", re.M)


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: Path
    line: int
    lang: str
    marker: str | None
    note: str
    code: str

    @property
    def id(self) -> str:
        """``docs/cli.md:38``: where the block starts."""
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks() -> list[Block]:
    """Every fenced block of the README and of the docs pages, in page order."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start("lang")) + 1
            found.append(Block(page, line, m["lang"], m["marker"], m["note"] or "", m["code"]))
    return found


def run_ok(command: list[str], cwd: Path, **env: str) -> str:
    """Run ``command`` in ``cwd`` with ``env`` added; it must succeed.  Returns its output."""
    done = subprocess.run(
        command,
        cwd=cwd,
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def missing_extra(code: str) -> str | None:
    """A training library that ``code`` imports, itself or by an adapter, and that is missing."""
    for module in IMPORTED.findall(code):
        parts = module.split(".")
        prefixes = (".".join(parts[:i]) for i in range(1, len(parts) + 1))
        for library in filter(None, map(EXTRAS.get, prefixes)):
            if importlib.util.find_spec(library) is None:
                return library
    return None


BLOCKS = blocks()
RUN_HERE = [b for b in BLOCKS if b.marker is None and b.lang in ("python", "bash")]


def test_the_site_builds_in_strict_mode(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")]
    run_ok(command, ROOT, NO_MKDOCS_2_WARNING="1")
    for page in ("benchmark", "api", "environments/what-the-shell", "environments/scorpion"):
        assert (tmp_path / "site" / page / "index.html").is_file(), page
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    assert "compile_notice" in api and "WhatTheShellEnv" in api  # generated from docstrings
    for html in (tmp_path / "site").rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        raw = RAW_ROLE.findall(text) + UNRESOLVED_REF.findall(text)
        assert not raw, f"{html.relative_to(tmp_path)}: shown as typed: {raw[:5]}"
        assert not EMPTY_HEADER.search(text), f"{html.relative_to(tmp_path)}: an empty header"
    site = {p.relative_to(tmp_path / "site").as_posix(): p for p in (tmp_path / "site").rglob("*")}
    home = site["index.html"].read_text(encoding="utf-8")
    assert "stylesheets/extra.css" in home and "stylesheets/extra.css" in site
    assert "code-blocks/index.html" in site and "code-blocks/" not in home  # not in the nav
    env = "shell_envs.what_the_shell.env.WhatTheShellEnv"
    for target, shown in ((env, "WhatTheShellEnv"), (f"{env}.check_action", ".check_action")):
        link = rf'<a class="autorefs autorefs-internal"[^>]* href="#{re.escape(target)}">'
        assert re.search(rf"{link}<code>[\w.]*{re.escape(shown)}</code></a>", api), target


def test_docstrings_use_markdown_not_rest_roles() -> None:
    """mkdocstrings renders Markdown: ``[`Name`][]`` links, a reST ``:func:`` shows as typed."""
    roles = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "shell_envs").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if REST_ROLE.search(line)
    ]
    assert not roles, roles


def test_every_block_follows_the_convention() -> None:
    assert len(RUN_HERE) >= 20
    for block in BLOCKS:
        assert block.lang in LANGUAGES, f"{block.id}: a ```{block.lang} block is never run"
        if block.marker == "not run":
            assert block.note, f"{block.id}: say why the block is not run"
        if block.marker is not None:
            assert block.lang in ("python", "bash"), f"{block.id}: a marker on a text block"
    not_run = [b.id for b in BLOCKS if b.marker == "not run"]
    assert len(not_run) <= MAX_NOT_RUN, not_run


def test_code_lines_show_whole_on_the_site() -> None:
    """Lines longer than the site's code column hide their ends behind a scroll bar."""
    long = [
        f"{block.id}: {line}"
        for block in BLOCKS
        if block.page.parent != ROOT and block.lang != "text"  # the README is not on the site
        for line in block.code.splitlines()
        if len(line) > MAX_CODE_LINE
    ]
    assert not long, long


def test_blocks_run_elsewhere_are_run_by_their_test() -> None:
    from tests.integrations import test_clients

    named = {b.note: b for b in BLOCKS if b.marker == "runs"}
    assert set(named) == set(test_clients.BLOCKS)
    for name, block in named.items():
        assert test_clients.BLOCKS[name] == block.code, f"{block.id}: not the code that runs"


def test_the_readme_keeps_its_promises() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## Benchmark your agent" in readme and "(docs/benchmark.md)" in readme
    assert "pip install -e . && shell-envs bench" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install, test = (
        'pip install torch==2.13.0 -e ".[test,clients,cuda]"',
        "python -m pytest -q -n auto",
    )
    assert f"{install} && {test}" in readme  # the README's test command is what CI runs
    assert install.replace("pip install", "pip install -q") in ci and f"\n{test}\n" in ci
    assert "--index-url https://download.pytorch.org/whl/cpu" in readme
    assert len(readme.splitlines()) < 120


def test_the_anchor_tables_show_the_shipped_ratings() -> None:
    """The README's and the benchmark page's anchor tables are the shipped table, row for row."""
    from shell_envs.bench.scale import anchor_table

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    page = (ROOT / "docs" / "benchmark.md").read_text(encoding="utf-8")
    table = anchor_table()
    for a in table.anchors:
        rating, low, high = (f"{x:+.0f}" for x in (a.rating, *a.ci))
        assert f"| `{a.spec}` | {rating} | [{low}, {high}] |" in readme, a.label
        assert f"| {a.label} | `{a.spec}` | {rating} | [{low}, {high}] | {a.games} |" in page
    fitted = f"Fitted {table.date} with shell-envs {table.version} ({table.reference};"
    assert fitted in page


@pytest.mark.parametrize("block", RUN_HERE, ids=[b.id for b in RUN_HERE])
def test_the_block_runs(block: Block, tmp_path: Path) -> None:
    """As a reader runs it: a ``python`` block saved as a file and run by a fresh ``python``."""
    if missing := missing_extra(block.code):
        pytest.skip(f"the block needs {missing}, from an extra that is not installed")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    if block.lang == "python":
        script = tmp_path / "block.py"
        script.write_text(block.code, encoding="utf-8")
        command = [sys.executable, script.name]
    else:
        command = ["bash", "-e", "-o", "pipefail", "-c", block.code]
    output = run_ok(command, tmp_path, PATH=path)
    assert "Traceback" not in output
