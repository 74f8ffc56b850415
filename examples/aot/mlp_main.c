/* Calls the MLP compiled ahead of time by graph-compile (see README):
 *   graph-compile examples/mlp.mlir -O2 -o libmlp.so
 *   cc -I. examples/aot/mlp_main.c -L. -lmlp -Wl,-rpath,. -o mlp_main && ./mlp_main
 * Reads 4x16 floats from stdin when given, else uses x[i] = i / 64.
 */
#include <stdio.h>
#include <stdlib.h>

#include "libmlp.h"

int main(void) {
    float x[4 * 16], p[4 * 10];
    if (fread(x, sizeof x, 1, stdin) != 1)
        for (int i = 0; i < 4 * 16; ++i) x[i] = (float)i / 64.0f;
    void *workspace = aligned_alloc(64, (MLP_WORKSPACE_BYTES + 63) / 64 * 64);
    mlp(x, p, workspace);
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 10; ++j) printf(" %.6f", p[i * 10 + j]);
        printf("\n");
    }
    free(workspace);
    return 0;
}
