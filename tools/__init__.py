"""Command-line entry points: graph-opt and graph-run."""
