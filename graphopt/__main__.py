"""``python -m graphopt``: the ``graph-opt`` driver, for when the console
scripts are not on ``PATH`` (``python -m graphopt examples/mlp.mlir -O2``).
``python -m graphopt.tools.graph_run`` is ``graph-run``."""

import sys

from graphopt.tools.graph_opt import main

if __name__ == "__main__":
    sys.argv[0] = "python -m graphopt"
    sys.exit(main())
