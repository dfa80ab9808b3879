"""Analysis: tidy frames from result arrays, metrics with confidence intervals, summaries."""
