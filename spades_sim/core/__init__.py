"""The pure core: cards, rules and presets, strategy specs, the result schema, the seeding
scheme, the pure rule helpers and the errors. Plain Python and NumPy; it never imports numba,
so the twin, the hand logs and every layer above can use it cheaply.
"""
