"""The numba engine: the only package that imports numba.

Modules: ``layout`` (kernel tuple and record layout, no numba), ``bits`` (bitboard helpers),
``rng`` (in-kernel PRNG and its draw contract), ``deal``, ``trick`` (legal moves, trick winner),
``strategy_kernels`` (bidding and play decisions of every strategy), ``scoring``, ``simulate``
(the entry kernels). Import the submodules directly; this file stays empty so that importing
``spades_sim.engine.layout`` does not compile anything.
"""
