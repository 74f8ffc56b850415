// Bad pass options and malformed pipelines: one diagnostic, no traceback,
// naming options as the user spells them (max-depth) and their types in words.
// RUN: not graph-opt %s -p 'memref-streamify{nope=1}' 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not graph-opt %s -p 'cse{nope=1}' 2>&1 | filecheck %s --check-prefix=NOOPTS
// RUN: not graph-opt %s -p 'memref-streamify{streams=abc}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not graph-opt %s -p 'fuse-ops{max-dept=3}' 2>&1 | filecheck %s --check-prefix=MEAN
// RUN: not graph-opt %s -p 'fuse-ops{max_depth=deep}' 2>&1 | filecheck %s --check-prefix=INT
// RUN: not graph-opt %s -p 'cse{' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not graph-opt %s -p 'cse,,dce' 2>&1 | filecheck %s --check-prefix=EMPTY

// NAME-NOT: Traceback
// NAME: graph-opt: error: pass 'memref-streamify' has no option 'nope' (its options: streams)
// NAME-NOT: Traceback

// NOOPTS: graph-opt: error: pass 'cse' takes no options, got 'nope'

// TYPE: graph-opt: error: option 'streams' of pass 'memref-streamify' expects an integer, got 'abc'

// MEAN: graph-opt: error: pass 'fuse-ops' has no option 'max-dept'; did you mean 'max-depth'? (its options: max-depth, {{.*}})

// INT: graph-opt: error: option 'max-depth' of pass 'fuse-ops' expects an integer, got 'deep'
// INT-NOT: max_depth
// INT-NOT: class

// SYNTAX-NOT: Traceback
// SYNTAX: graph-opt: error: invalid pass pipeline 'cse{': Error parsing pass pipeline specification:
// SYNTAX-NEXT: pass-pipeline:1:5
// SYNTAX-NEXT: {{^}}cse{
// SYNTAX-NEXT: {{^}}    ^
// SYNTAX-NEXT: Expected argument name here
// SYNTAX-NOT: Traceback

// EMPTY-NOT: Traceback
// EMPTY: graph-opt: error: invalid pass pipeline 'cse,,dce'
// EMPTY: Expected pass name here
