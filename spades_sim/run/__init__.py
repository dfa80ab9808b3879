"""Runs: what is played (``spec``), playing it in memory (``memory``), the tidy table
(``frames``), the Parquet run folder (``dataset``: meta.json, writing and reading chunks; with
``folder`` for its file names, ``locks`` for its writers and ``provenance`` for the checks that
a chunk is the run's), executing a run into it (``execute``) and replaying one of its hands
(``recover``).
"""

from ..core.features import DealFilter
from .dataset import load_run, read_meta, run_status, stored_chunks
from .execute import execute
from .features import hand_features
from .memory import Run, play_games, simulate, simulate_hands
from .provenance import file_checksum
from .recover import RecoveredHand, replay_hand
from .spec import Config, RunSpec, identity_hash, make_config, parse_config, parse_shard

__all__ = ["Config", "DealFilter", "RecoveredHand", "Run", "RunSpec", "execute",
           "file_checksum", "hand_features", "identity_hash", "load_run", "make_config",
           "parse_config", "parse_shard", "play_games", "read_meta", "replay_hand", "run_status",
           "simulate", "simulate_hands", "stored_chunks"]
