"""Fair strategy evaluation: duplicate matches (``match``), round-robin tournaments
(``tournament``) and their Bradley-Terry ratings (``ratings``)."""

from .match import MatchResult, format_match, match, match_result, match_spec, paired_interval
from .ratings import bradley_terry
from .tournament import (
    TournamentResult,
    format_tournament,
    load_tournament,
    rating_difference,
    tournament,
    tournament_pairs,
    tournament_ratings,
)

__all__ = ["MatchResult", "TournamentResult", "bradley_terry", "format_match",
           "format_tournament", "load_tournament", "match", "match_result", "match_spec",
           "paired_interval", "rating_difference", "tournament", "tournament_pairs",
           "tournament_ratings"]
