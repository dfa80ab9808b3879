"""The one base class of every error a user can cause, and its kinds.

The command line catches :class:`SpadesError` once and prints its message as one line with exit
status 2; Python callers can catch the base class or one kind. Every message names what is wrong
and where (the field, the parameter, the file and line), so it is useful without a traceback.
"""


class SpadesError(ValueError):
    """A bad input: the message is one line that names what is wrong and where.

    It derives from ``ValueError`` so that code which caught a ``ValueError`` before keeps
    working.
    """


class RulesError(SpadesError):
    """A bad rule field, value, combination or preset name."""


class StrategyError(SpadesError):
    """A bad strategy name, parameter name or value."""


class RunError(SpadesError):
    """A bad run specification, or a run folder that holds another run or cannot be read."""


class ExperimentError(SpadesError):
    """A bad experiment file (the message names the file and line) or results folder."""


class EvaluationError(SpadesError):
    """A bad match or tournament request, or saved results that do not fit it."""


class CardError(SpadesError):
    """An unknown card text or card index."""


class AnalysisError(SpadesError):
    """An analysis or plot asked of a table that cannot answer it (a missing column, an
    unknown metric or feature)."""


class HandLogError(SpadesError):
    """A hand log that cannot be written or read as a whole (bad lines are reported per line)."""


class UsageError(SpadesError):
    """Command-line options that do not go together."""


class DealFilterError(SpadesError):
    """A deal filter that cannot be read (the message gives the column), that does not fit the
    rules, or that accepts no deal within its bounded number of tries."""
