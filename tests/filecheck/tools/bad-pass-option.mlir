// Bad pass options and malformed pipelines: one diagnostic, no traceback.
// RUN: not graph-opt %s -p 'memref-streamify{nope=1}' 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not graph-opt %s -p 'cse{nope=1}' 2>&1 | filecheck %s --check-prefix=NOOPTS
// RUN: not graph-opt %s -p 'memref-streamify{streams=abc}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not graph-opt %s -p 'cse{' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not graph-opt %s -p 'cse,,dce' 2>&1 | filecheck %s --check-prefix=EMPTY

// NAME-NOT: Traceback
// NAME: graph-opt: error: invalid pass option: Provided arguments ["nope"] not found in expected arguments ["streams"]
// NAME-NOT: Traceback

// NOOPTS-NOT: Traceback
// NOOPTS: graph-opt: error: invalid pass option: Provided arguments ["nope"] not found in expected arguments []
// NOOPTS-NOT: Traceback

// TYPE-NOT: Traceback
// TYPE: graph-opt: error: invalid pass option: Incompatible types: given ('abc',), expected <class 'int'>
// TYPE-NOT: Traceback

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
// EMPTY-NOT: Traceback

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.exp %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
