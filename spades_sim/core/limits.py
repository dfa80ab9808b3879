"""The largest values the toolkit accepts, in one place, so that every entry point (the command
line, experiment files, Python) refuses the same things before anything is played or written,
and no score, bag counter, id or size can overflow its type.

Why each bound:

- ``MAX_UNITS``: hands or games in one run. A hand's id and a game's key index must stay far
  below 2**63 (a game's hands use ``game_id << 20``, ``core/seeding.py``), and a billion
  billion hands would take longer than any cluster runs; 10**12 is beyond a year of a large
  cluster and leaves the ids 2**20 times below overflow.
- ``MAX_SEED``: ``numpy.random.SeedSequence`` takes any non-negative int; 2**128 keeps seeds
  printable and storable as JSON numbers in every reader that matters.
- ``MAX_CHUNK_SIZE``: a chunk is held in memory whole (about 1 KiB a hand with its frame).
- ``MAX_CHUNKS``: chunks in one run. Resuming, ``status`` and ``load_run`` look at every chunk
  and ``meta.json`` lists each finished one, so the count must stay small enough to scan; with
  ``MAX_UNITS`` and ``MAX_CHUNK_SIZE`` every allowed size still has an allowed chunk size
  (10**12 / 10**7 = 10**5).
- ``MAX_JOBS``: worker processes; more than the chunks are never started anyway.
- ``MAX_GRID``: configurations one experiment may expand to (a ``[[grid]]`` of 300,000
  combinations would run for days before its report could be read).
"""

MAX_UNITS = 10**12
MAX_SEED = 2**128 - 1
MAX_CHUNK_SIZE = 10**7
MAX_CHUNKS = 100_000
MAX_JOBS = 4096
MAX_GRID = 1000
