"""An installed plugin whose import fails: graph-opt must warn and go on."""

raise ImportError("this plugin needs a package that is not installed")
