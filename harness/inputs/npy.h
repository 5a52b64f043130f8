/* NumPy .npy files (format versions 1 to 3): read float32/float64 arrays as double, write the
 * storage formats (f64 '<f8', f32 '<f4', f16 '<f2', bf16 as its bit patterns '<u2', since .npy
 * has no bfloat16: view them with `np.load(f).astype(np.uint32) << 16` then `.view(np.float32)`). */
#ifndef LN_NPY_H
#define LN_NPY_H

#include <stddef.h>

#include "dtype.h"

typedef struct {
    int ndim;          /* 1 or 2 */
    size_t rows, cols; /* 2-D: shape (rows, cols); 1-D: rows = 1, cols = length */
    double *data;      /* rows * cols values, row-major; free() it */
} ln_npy_array;

/* Reads a 1-D or 2-D little-endian C-order '<f4' or '<f8' array. Returns NULL on success, or a
 * message (static buffer, valid until the next call) saying what is wrong with the file: bad
 * magic, malformed header, big-endian, other dtypes, Fortran order, other dimensions, no
 * elements, truncated data. */
const char *ln_npy_read(const char *path, ln_npy_array *a);

/* Writes rows x cols elements of format t (ndim 1: a vector of cols elements, rows must be 1)
 * to path, atomically (see outfile.h). */
void ln_npy_write(const char *path, ln_dtype t, int ndim, size_t rows, size_t cols, const void *data);

#endif
