"""The README and docs/ stand alone: every relative link points at a file of the repository, and
the docs the README's table of contents names all exist."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_relative_links_resolve():
    broken = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = (page.parent / target.split("#")[0]).resolve()
            if not path.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, "broken links: " + ", ".join(broken)


def test_docs_point_nowhere_outside_the_repository():
    outside = [f"{page.relative_to(ROOT)}: {target}" for page in PAGES
               for target in LINK.findall(page.read_text())
               if not re.match(r"[a-z]+:", target)
               and not (page.parent / target.split("#")[0]).resolve().is_relative_to(ROOT)]
    assert not outside, outside


def test_the_benchmark_results_page_matches_the_history():
    """benchmarks/RESULTS.md is generated from benchmarks/history.jsonl (never edited)."""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "results.py"), "--check"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_the_parameter_slots_in_the_docs_are_the_code_s():
    from spades_sim.core.strategies import N_PARAMS

    text = " ".join((ROOT / "docs" / "strategies.md").read_text().split())
    assert f"(zero-padded to {N_PARAMS} slots)" in text
