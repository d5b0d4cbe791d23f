"""Every pointer a user follows resolves: in the README, the docs and the example galleries, and in the text of the
program, its tools, workflows and stack files (error messages, warnings, docstrings that become
docs/config-reference.md, comments), a repository path exists, a `page.md#anchor` names one of the page's headings
as GitHub slugs it, and a URL is https and well-formed. Nothing is fetched: a URL's page is not checked."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from tests.support import PROJECT_ROOT

PAGES = sorted(
    {PROJECT_ROOT / "README.md", PROJECT_ROOT / "BENCHMARKS.md", *PROJECT_ROOT.glob("docs/**/*.md")}
    | set(PROJECT_ROOT.glob("examples/**/*.md"))
)
TEXTS = sorted(
    path
    for pattern in (
        "__main__.py",
        "Pulumi.yaml",
        "pyproject.toml",
        "requirements*.in",
        ".ci/run",
        ".github/workflows/*.yml",
        "components/**/*.py",
        "tools/**/*.py",
        "policies/**/*.py",
        "policies/*.yaml",
        "stacks/*.yaml",
        "examples/**/*.yaml",
        "deploy/**/*",
    )
    for path in PROJECT_ROOT.glob(pattern)
    if path.is_file() and "__pycache__" not in path.parts
)
TOP = "|".join(
    re.escape(name)
    for name in (".github", ".ci", "components", "deploy", "docs", "examples", "policies", "stacks", "tests", "tools")
)
REPO_PATH = re.compile(rf"(?<![\w./-])((?:{TOP})/[\w./*-]*|README\.md|BENCHMARKS\.md)(#[\w-]+)?")
"""A path from the repository's root, as prose names one (``docs/operations.md#runners``, ``components/fleet.py``)."""
TEMPLATE = re.compile(r"[\w.-]*[{<$\[]")
"""What follows a path made from a template (``stacks/Pulumi.<stack>.yaml``, f"out/{name}"): not a path to check."""
LINK = re.compile(r"\]\(([^)\s]+)\)")
URL = re.compile(r"https?://[^\s\"'`<>()\[\]{}\\|^…]+")
HOST = re.compile(r"^(?:(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}|\d{1,3}(?:\.\d{1,3}){3}|host)(?::\d+)?$")
"""A DNS name with a top-level domain, an IPv4 address, or the placeholder ``host`` (``https://host/...``)."""
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
FOREIGN = {
    "examples/kueue-and-ray-on-aks": "in Azure/AKS (docs/sources.md)",
    ".github/workflows/release.yml": "in kubelogin (deploy/ci/install-tools.sh)",
    "deploy/crds/pulumi.com_stacks.yaml": "in a pulumi-kubernetes-operator release (docs/operations.md)",
}
"""Paths of other repositories that the prose names, with where: not this repository's files."""


def relative(path: Path) -> str:
    return str(path.relative_to(PROJECT_ROOT))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: links reduced to their text, lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    """The anchors of ``page``'s headings (outside code blocks), a repeated one numbered as GitHub numbers it."""
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", FENCE.sub("", page.read_text()), re.M):
        base = slug(heading)
        seen[base if base not in seen else f"{base}-{seen[base]}"] = 0
        seen[base] = seen.get(base, 0) + 1
    return frozenset(seen)


def broken(target: Path, anchor: str, named: str) -> str | None:
    """Why ``target#anchor`` does not resolve, or None."""
    found = list(PROJECT_ROOT.glob(relative(target))) if "*" in named else [target] if target.exists() else []
    if not found:
        return f"{named}: no such file"
    if anchor and (target.suffix != ".md" or anchor not in anchors(target)):
        return f"{named}#{anchor}: no such heading"
    return None


def bad_url(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme != "https" and parts.hostname != "127.0.0.1":  # a loopback server the job itself runs
        return f"{url}: not https"
    if not HOST.match(parts.netloc):
        return f"{url}: no well-formed host"
    return None


def problems(path: Path) -> list[str]:
    text = path.read_text()
    found = []
    for match in REPO_PATH.finditer(text):
        if TEMPLATE.match(text, match.end(1)):
            continue
        named = match.group(1).rstrip(".-")
        if named in FOREIGN:
            continue
        found.append(broken(PROJECT_ROOT / named, (match.group(2) or "#")[1:], named))
    if path.suffix == ".md":
        for target in LINK.findall(text):
            if not target.startswith(("https://", "http://")):
                file, _, anchor = target.partition("#")
                found.append(broken(path.parent / file if file else path, anchor, target))
    for match in URL.finditer(text):
        if not TEMPLATE.match(text, match.end()):
            found.append(bad_url(match.group().rstrip(".,;:!?*_")))
    return [f"{relative(path)}: {problem}" for problem in found if problem]


def test_every_path_anchor_and_url_resolves():
    assert [problem for path in [*PAGES, *TEXTS] for problem in problems(path)] == []


def test_the_checks_find_what_they_are_for(tmp_path):
    page = PROJECT_ROOT / "docs/operations.md"
    assert "troubleshooting" in anchors(page) and slug("Pull: the `operator` [ACK](x.md)") == "pull-the-operator-ack"
    assert broken(page, "gone", "docs/operations.md") == "docs/operations.md#gone: no such heading"
    assert broken(PROJECT_ROOT / "docs/gone.md", "", "docs/gone.md") == "docs/gone.md: no such file"
    assert bad_url("http://kueue.sigs.k8s.io") == "http://kueue.sigs.k8s.io: not https"
    assert bad_url("https://kueue") == "https://kueue: no well-formed host"
