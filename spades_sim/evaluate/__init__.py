"""Fair strategy evaluation: duplicate matches (``match``), round-robin tournaments
(``tournament``) and their Bradley-Terry ratings (``ratings``)."""

from .match import MatchResult, format_match, match, match_result, match_spec, paired_interval
from .ratings import Fit, bradley_terry, goodness_of_fit
from .tournament import (
    TournamentResult,
    format_tournament,
    head_to_head,
    load_tournament,
    rating_difference,
    tournament,
    tournament_fit,
    tournament_pairs,
    tournament_ratings,
)

__all__ = ["Fit", "MatchResult", "TournamentResult", "bradley_terry", "format_match",
           "format_tournament", "goodness_of_fit", "head_to_head", "load_tournament", "match",
           "match_result", "match_spec", "paired_interval", "rating_difference", "tournament",
           "tournament_fit", "tournament_pairs", "tournament_ratings"]
