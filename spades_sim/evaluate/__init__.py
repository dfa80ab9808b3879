"""Fair strategy evaluation: matches (``match``: duplicate with partnerships, rotated with
players on their own), how they seat the strategies and their per-board differences played in
memory (``rotation``), round-robin tournaments (``tournament``) and their Bradley-Terry
ratings (``ratings``), and where a match's points went (``split``)."""

from .match import (
    MatchResult,
    format_match,
    match,
    match_boards,
    match_result,
    match_spec,
    paired_interval,
)
from .ratings import Fit, bradley_terry, goodness_of_fit
from .rotation import board_differences, seatings
from .split import format_split, points_split, split_summary, split_to_dict
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

__all__ = ["Fit", "MatchResult", "TournamentResult", "board_differences", "bradley_terry",
           "format_match", "format_split", "format_tournament", "goodness_of_fit",
           "head_to_head", "load_tournament", "match", "match_boards", "match_result",
           "match_spec", "paired_interval", "points_split", "rating_difference", "seatings",
           "split_summary", "split_to_dict", "tournament", "tournament_fit", "tournament_pairs",
           "tournament_ratings"]
