"""What an experiment file describes: its configurations, sizes, tournament and analyses.

``parse.py`` reads a file into an :class:`Experiment`; ``execute.py`` plays it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.features import DealFilter
from ..core.rules import Rules
from ..core.strategies import Strategy
from ..run import Config, RunSpec
from .counterfactual import with_number_lines

EXPERIMENT_COPY = "experiment.toml"  # the copy of the experiment file in its results dir
MODES = ("hands", "games")
DEFAULT_CHUNK = {"hands": 100_000, "games": 1000}

# The analyses a report can show, in the order the report shows them (report.py maps each name
# to its section; this list only validates the file).
ANALYSES = ("variant_effects", "bid_accuracy", "nil", "facts", "games", "strategies")

TOP_KEYS = ("name", "title", "question", "notes", "seed", "hands", "games", "chunk_size",
            "games_chunk_size", "duplicate", "par", "cards", "nil_counterfactual", "analyses",
            "baseline", "config", "grid", "tournament", "deal_filter", "deal_filter_max_tries")
TOURNAMENT_KEYS = ("strategies", "rules", "rule", "games", "hands", "chunk_size",
                   "games_chunk_size", "hands_chunk_size")
# The tournament's folder in the results dir; a [tournament] in both modes (games and hands
# given) plays one round robin into each of its subfolders games/ and hands/.
TOURNAMENT_DIR = "tournament"
CONFIG_KEYS = ("name", "rules", "rule", "strategy", "strategies")
GRID_KEYS = ("name", "rules", "rule", "strategy", "strategies", "params")


@dataclass(frozen=True)
class ConfigSource:
    """How the file described one configuration (for the report's setup table)."""

    name: str
    preset: str
    overrides: dict
    strategies: tuple[str, ...]
    origin: str  # "config" or "grid"


@dataclass(frozen=True)
class TournamentSpec:
    """The ``[tournament]`` table: a round robin of duplicate matches (``evaluate.tournament``)
    on the experiment's seed."""

    strategies: tuple[Strategy, ...]
    rules: Rules
    unit: str  # "games" or "hands"
    n: int  # boards per pair (each deal played twice)
    chunk_size: int
    folder: str = TOURNAMENT_DIR  # its folder in the results dir: tournament/[UNIT]

    @property
    def names(self) -> tuple[str, ...]:
        """The strategies' canonical specs."""
        return tuple(str(strategy) for strategy in self.strategies)

    @property
    def rules_text(self) -> str:
        """The preset and its overrides, for people: ``classic, target=300``."""
        return ", ".join([self.rules.preset_name] + [
            f"{name}={'null' if value is None else str(value).lower()}"
            for name, value in self.rules.overrides().items()])

    def sizes(self) -> dict:
        """The size keywords of ``evaluate.tournament`` and ``evaluate.match``."""
        return {f"n_{self.unit}": self.n, "chunk_size": self.chunk_size}


@dataclass(frozen=True)
class Experiment:
    """A parsed, validated experiment file."""

    name: str
    title: str
    question: str
    notes: str
    seed: int
    hands: int | None
    games: int | None
    chunk_size: int
    games_chunk_size: int
    duplicate: bool
    analyses: tuple[str, ...]
    baseline: str | None
    configs: tuple[Config, ...]
    sources: tuple[ConfigSource, ...]
    # The [tournament]'s round robins: one, or one per mode (whole games, then hands).
    tournaments: tuple[TournamentSpec, ...] = ()
    par: bool = False  # the runs get the par columns (double-dummy tricks, nil safety)
    cards: bool = False  # the runs get the cards column (every seat's dealt cards)
    # The hands run also plays each configuration's number line (nil turned off: the paired
    # value of nil, experiment.counterfactual).
    nil_counterfactual: bool = False
    # The hands and games runs deal only what this accepts (core.features.DealFilter).
    deal_filter: DealFilter | None = None
    path: str = ""
    text: str = field(default="", repr=False)

    @property
    def tournament(self) -> TournamentSpec | None:
        """The first round robin of the ``[tournament]`` (None without one)."""
        return self.tournaments[0] if self.tournaments else None

    @property
    def modes(self) -> tuple[str, ...]:
        """The runs this experiment plays: ``"hands"``, ``"games"`` or both."""
        return tuple(m for m in MODES if getattr(self, m) is not None)

    def spec(self, mode: str) -> RunSpec:
        """The :class:`~spades_sim.runner.RunSpec` of the ``hands`` or ``games`` run."""
        if mode == "hands":
            configs = (with_number_lines(self.configs) if self.nil_counterfactual
                       else self.configs)
            return RunSpec(configs, self.seed, n_hands=self.hands,
                           chunk_size=self.chunk_size, duplicate=self.duplicate, par=self.par,
                           cards=self.cards, deal_filter=self.deal_filter)
        return RunSpec(self.configs, self.seed, n_games=self.games,
                       chunk_size=self.games_chunk_size, duplicate=self.duplicate, par=self.par,
                       cards=self.cards, deal_filter=self.deal_filter)

    def rules_by_config(self) -> dict[str, Rules]:
        return {c.name: c.rules for c in self.configs}
