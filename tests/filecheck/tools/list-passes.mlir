// --list-passes: every project pass with its description and options (name,
// type, default), the named pipelines, then xDSL's passes under their own
// heading.  --help says what -O0..-O3 and default run.
// RUN: graph-opt --list-passes | filecheck %s
// CHECK: graph-opt passes:
// CHECK: fold-constants        Evaluate all-constant ops at compile time.
// CHECK-NEXT: max-elements: an integer; default {{[0-9]+}}
// CHECK: fuse-ops              Fuse graph ops into fused.group kernels.
// CHECK-NEXT: max-depth: an integer; default {{[0-9]+}}
// CHECK: remarks: true or false; default false
// CHECK: autodiff
// CHECK: wrt: a comma-separated list of integers or strings; default (none)
// CHECK: named pipelines
// CHECK: O2                    fold-constants,canonicalize,cse,fuse-ops,dce,plan-memory
// CHECK: xDSL passes:
// CHECK: canonicalize
// RUN: graph-opt --help | filecheck %s --check-prefix=HELP
// HELP: optimization levels (-O runs first, then -p):
// HELP-NEXT: -O0  no passes
// HELP-NEXT: -O1  fold-constants, canonicalize, cse, dce
// HELP-NEXT: -O2  fold-constants, canonicalize, cse, fuse-ops, dce, plan-memory
// HELP-NEXT: -O3  fold-batch-norm,
// HELP: 'default' (usable in -p) is -O2
// HELP: -p may be given several times: the pipelines run one after the other
