"""Ways to build graph IR: the Python builder API; later, importers."""
