#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "outfile.h"

static char npy_error[512];

static const char *fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(npy_error, sizeof npy_error, fmt, ap);
    va_end(ap);
    return npy_error;
}

/* Little-endian integers from bytes, whatever the host's byte order. */
static uint64_t load_le(const unsigned char *b, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

static void store_le(unsigned char *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++, v >>= 8) b[i] = (unsigned char)(v & 0xff);
}

/* The header is a Python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * with exactly those three keys in any order. */
typedef struct {
    const char *s;
    char descr[32];
    int fortran, ndim, seen;
    unsigned long long shape[8];
} header;

static void skip_space(header *h)
{
    while (*h->s == ' ' || *h->s == '\t' || *h->s == '\n') h->s++;
}

static int quoted(header *h, char *out, size_t len)
{
    char q = *h->s;
    if (q != '\'' && q != '"') return 0;
    const char *end = strchr(h->s + 1, q);
    if (!end || (size_t)(end - h->s - 1) >= len) return 0;
    memcpy(out, h->s + 1, (size_t)(end - h->s - 1));
    out[end - h->s - 1] = 0;
    h->s = end + 1;
    return 1;
}

static int tuple(header *h)
{
    if (*h->s++ != '(') return 0;
    h->ndim = 0;
    for (;;) {
        skip_space(h);
        if (*h->s == ')') break;
        if (!isdigit((unsigned char)*h->s) || h->ndim == 8) return 0;
        errno = 0;
        char *end;
        h->shape[h->ndim++] = strtoull(h->s, &end, 10);
        if (errno) return 0;
        h->s = end;
        skip_space(h);
        if (*h->s == ',') h->s++;
        else if (*h->s != ')') return 0;
    }
    h->s++;
    return 1;
}

static const char *parse_header(header *h)
{
    skip_space(h);
    if (*h->s++ != '{') return "header is not a dict";
    for (;;) {
        skip_space(h);
        if (*h->s == '}') break;
        char key[32];
        if (!quoted(h, key, sizeof key)) return "header has a malformed key";
        skip_space(h);
        if (*h->s++ != ':') return "header has no ':' after a key";
        skip_space(h);
        if (!strcmp(key, "descr")) {
            if (!quoted(h, h->descr, sizeof h->descr)) return "header's descr is not a string";
            h->seen |= 1;
        } else if (!strcmp(key, "fortran_order")) {
            if (!strncmp(h->s, "True", 4)) h->fortran = 1, h->s += 4;
            else if (!strncmp(h->s, "False", 5)) h->fortran = 0, h->s += 5;
            else return "header's fortran_order is not True or False";
            h->seen |= 2;
        } else if (!strcmp(key, "shape")) {
            if (!tuple(h)) return "header's shape is not a tuple of sizes";
            h->seen |= 4;
        } else {
            return "header has an unknown key";
        }
        skip_space(h);
        if (*h->s == ',') h->s++;
        else if (*h->s != '}') return "header dict is malformed";
    }
    if (h->seen != 7) return "header lacks descr, fortran_order or shape";
    return NULL;
}

const char *ln_npy_read(const char *path, ln_npy_array *a)
{
    memset(a, 0, sizeof *a);
    FILE *f = fopen(path, "rb");
    if (!f) return fail("cannot open: %s", strerror(errno));
    const char *err = NULL;
    unsigned char pre[12];
    char *text = NULL;
    unsigned char *raw = NULL;
    if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        err = fail("not a .npy file (bad magic)");
        goto out;
    }
    int major = pre[6], lenbytes = major == 1 ? 2 : 4;
    if (major < 1 || major > 3) {
        err = fail("unsupported .npy format version %d", major);
        goto out;
    }
    if (fread(pre + 8, 1, (size_t)lenbytes, f) != (size_t)lenbytes) {
        err = fail("truncated header");
        goto out;
    }
    size_t hlen = (size_t)load_le(pre + 8, lenbytes);
    if (hlen > (1u << 20) || !(text = malloc(hlen + 1))) {
        err = fail("header length %zu is implausible", hlen);
        goto out;
    }
    if (fread(text, 1, hlen, f) != hlen) {
        err = fail("truncated header");
        goto out;
    }
    text[hlen] = 0;
    if (strlen(text) != hlen) {
        err = fail("header contains a NUL byte");
        goto out;
    }
    header h = {.s = text};
    if ((err = parse_header(&h))) {
        err = fail("%s: %s", err, text);
        goto out;
    }
    size_t size;
    if (!strcmp(h.descr, "<f4")) size = 4;
    else if (!strcmp(h.descr, "<f8")) size = 8;
    else if (!strcmp(h.descr, ">f4") || !strcmp(h.descr, ">f8")) {
        err = fail("dtype '%s' is big-endian; only little-endian '<f4' and '<f8' are read", h.descr);
        goto out;
    } else {
        err = fail("dtype '%s' is not float32 ('<f4') or float64 ('<f8')", h.descr);
        goto out;
    }
    if (h.fortran) {
        err = fail("array is in Fortran order; save it in C order (np.ascontiguousarray)");
        goto out;
    }
    if (h.ndim != 1 && h.ndim != 2) {
        err = fail("array has %d dimensions; 1 or 2 are read", h.ndim);
        goto out;
    }
    a->ndim = h.ndim;
    a->rows = h.ndim == 2 ? h.shape[0] : 1;
    a->cols = h.shape[h.ndim - 1];
    if (a->rows == 0 || a->cols == 0) {
        err = fail("array has no elements");
        goto out;
    }
    if (a->rows > SIZE_MAX / sizeof *a->data / a->cols) {
        err = fail("array is too large");
        goto out;
    }
    size_t n = a->rows * a->cols;
    /* Compare the claimed size with the file before allocating anything of that size. */
    struct stat st;
    long pos = ftell(f);
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && pos >= 0 && (uint64_t)(st.st_size - pos) / size < n) {
        err = fail("truncated: the shape needs %zu elements, the file holds %lld", n,
                   (long long)(st.st_size - pos) / (long long)size);
        goto out;
    }
    raw = malloc(n * size);
    a->data = malloc(n * sizeof *a->data);
    if (!raw || !a->data) {
        err = fail("array of %zu elements does not fit in memory", n);
        goto out;
    }
    size_t got = fread(raw, size, n, f);
    if (got != n) {
        err = fail("truncated: %zu of %zu elements present", got, n);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t bits = load_le(raw + i * size, (int)size);
        if (size == 4) {
            uint32_t b32 = (uint32_t)bits;
            float v;
            memcpy(&v, &b32, 4);
            a->data[i] = v;
        } else {
            memcpy(&a->data[i], &bits, 8);
        }
    }
out:
    if (err) {
        free(a->data);
        a->data = NULL;
    }
    free(raw);
    free(text);
    fclose(f);
    return err;
}

void ln_npy_write(const char *path, ln_dtype t, int ndim, size_t rows, size_t cols, const void *data)
{
    static const char *descr[LN_NDTYPES] = {[LN_F64] = "<f8", [LN_F32] = "<f4", [LN_F16] = "<f2", [LN_BF16] = "<u2"};
    char dict[160];
    if (ndim == 1)
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }", descr[t], cols);
    else
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu), }", descr[t], rows,
                 cols);
    /* Version 1.0: magic, 2 version bytes, 2 length bytes, then the dict padded with spaces and
     * ending in '\n' so the data starts at a multiple of 64 bytes. */
    size_t hlen = strlen(dict) + 1;
    hlen += (64 - (10 + hlen) % 64) % 64;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    store_le(pre + 8, hlen, 2);
    ln_outfile o;
    ln_out_open(&o, path);
    fwrite(pre, 1, 10, o.f);
    fprintf(o.f, "%-*s\n", (int)(hlen - 1), dict);
    size_t size = ln_fmt(t)->size, n = rows * cols;
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        unsigned char b[8];
        if (size == 8) memcpy(&v, p + 8 * i, 8);
        else if (size == 4) {
            uint32_t w;
            memcpy(&w, p + 4 * i, 4);
            v = w;
        } else {
            uint16_t w;
            memcpy(&w, p + 2 * i, 2);
            v = w;
        }
        store_le(b, v, (int)size);
        fwrite(b, 1, size, o.f);
    }
    ln_out_commit(&o);
}
