"""Runs: what is played (``spec``), playing it in memory (``memory``), the tidy table
(``frames``), the Parquet run folder (``dataset``) and executing a run into it (``execute``).
"""

from .dataset import load_run, read_meta, run_status, table_checksum
from .execute import execute
from .memory import Run, play_games, simulate, simulate_hands
from .spec import Config, RunSpec, identity_hash, make_config, parse_config, parse_shard

__all__ = ["Config", "Run", "RunSpec", "execute", "identity_hash", "load_run", "make_config",
           "parse_config", "parse_shard", "play_games", "read_meta", "run_status", "simulate",
           "simulate_hands", "table_checksum"]
