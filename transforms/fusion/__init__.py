"""Operator fusion (``fuse-ops``): TVM-style post-dominator partitioning into ``fused.group`` ops."""
