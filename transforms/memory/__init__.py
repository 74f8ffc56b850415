"""Memory planning (``plan-memory``): liveness, in-place reuse and offset packing into one workspace."""
