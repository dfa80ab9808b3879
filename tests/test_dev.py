"""The development set-up holds: every make target has a rule, CI runs the lanes it should, and
listing the tests compiles nothing."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_phony_target_has_a_rule():
    makefile = (ROOT / "Makefile").read_text()
    phony = re.search(r"^\.PHONY:(.*)$", makefile, re.M).group(1).split()
    rules = set(re.findall(r"^([A-Za-z][\w-]*):", makefile, re.M))
    assert set(phony) <= rules, sorted(set(phony) - rules)


def test_ci_runs_the_tests_and_the_bounds_checked_lane():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M)
    assert re.search(r"^make test-boundscheck$", ci, re.M)


def test_listing_the_tests_compiles_nothing(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               XDG_CACHE_HOME=str(tmp_path / "xdg"))
    env.pop("NUMBA_DISABLE_JIT", None)
    result = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:xdist",
                             "-p", "no:cacheprovider", "tests/test_engine.py",
                             "tests/test_dd.py", "tests/test_search.py"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "tests collected" in result.stdout
    compiled = [p.name for p in tmp_path.rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert compiled == []
