"""The machine code of the hand loop, normalised, to compare two checkouts of the engine where
timings are too noisy to tell a few percent apart (a shared machine).

Compiles ``simulate_hands_nb`` for four heuristic seats in a fresh numba cache (numba does not
disassemble cached code), strips labels, symbol names and comments, and prints the instruction
count and a hash of the listing; ``--out FILE`` writes the listing for ``diff``. Run it in each
checkout (``PYTHONPATH=OTHER python benchmarks/kernel_asm.py --out b.txt``) and diff the files:
the same instructions in the same order run at the same speed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import tempfile


def listing() -> list[str]:
    from spades_sim.core.rules import preset
    from spades_sim.core.strategies import seat_strategies
    from spades_sim.engine import simulate
    from spades_sim.run import simulate_hands

    simulate_hands(preset("classic"), seat_strategies(["heuristic"], 4), 10, 1)
    kernel = simulate.simulate_hands_nb
    lines = []
    for line in kernel.inspect_asm(kernel.signatures[0]).splitlines():
        line = line.split("#")[0].strip()
        if not line or line.startswith(".") or line.endswith(":"):
            continue
        line = re.sub(r"_ZN[\w$.]+", "SYM", line)
        lines.append(re.sub(r"\.L\w+", "LABEL", line))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the normalised listing here")
    args = parser.parse_args()
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="kernel-asm-")
    lines = listing()
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    print(f"simulate_hands_nb (heuristic): {len(lines)} instructions, listing {digest}")
    if args.out:
        with open(args.out, "w") as handle:
            handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
