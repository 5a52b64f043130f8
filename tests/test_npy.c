/* .npy reading and writing: round trips, and every kind of malformed file rejected with a
 * message saying what is wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npy.h"
#include "tmpdir.h"

/* A .npy with the given version, header dict and data bytes, padded as numpy does. */
static const char *write_raw(int version, const char *dict, const void *data, size_t nbytes)
{
    const char *path = test_path("raw.npy");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    int lenbytes = version == 1 ? 2 : 4;
    size_t pre = 8 + (size_t)lenbytes, hlen = strlen(dict) + 1;
    hlen += (64 - (pre + hlen) % 64) % 64;
    unsigned char head[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)version, 0};
    for (int i = 0; i < lenbytes; i++) head[8 + i] = (unsigned char)(hlen >> (8 * i));
    fwrite(head, 1, pre, f);
    fprintf(f, "%-*s\n", (int)(hlen - 1), dict);
    if (nbytes) fwrite(data, 1, nbytes, f);
    fclose(f);
    return path;
}

static void expect_error(const char *path, const char *words)
{
    ln_npy_array a;
    const char *err = ln_npy_read(path, &a);
    assert_non_null(err);
    if (!strstr(err, words)) fail_msg("error '%s' does not mention '%s'", err, words);
    assert_null(a.data);
}

static void test_round_trip_float(void **state)
{
    (void)state;
    double d[6] = {1.5, -2.25, 0x1p-1074, 1e300, -0.0, 3.141592653589793};
    float f[6] = {1.5f, -2.25f, 0x1p-149f, 3e38f, -0.0f, 3.1415927f};
    ln_npy_array a;
    ln_npy_write(test_path("d.npy"), LN_F64, 2, 2, 3, d);
    assert_null(ln_npy_read(test_path("d.npy"), &a));
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.rows, 2);
    assert_int_equal(a.cols, 3);
    assert_memory_equal(a.data, d, sizeof d);
    free(a.data);
    ln_npy_write(test_path("f.npy"), LN_F32, 1, 1, 6, f);
    assert_null(ln_npy_read(test_path("f.npy"), &a));
    assert_int_equal(a.ndim, 1);
    assert_int_equal(a.rows, 1);
    assert_int_equal(a.cols, 6);
    for (int i = 0; i < 6; i++) assert_memory_equal(&(float){(float)a.data[i]}, &f[i], 4);
    free(a.data);
    assert_no_temp_files();
}

/* f16 and bf16 (as '<u2') are written but not read back by ln_npy_read: check the bytes. */
static void test_write_16bit(void **state)
{
    (void)state;
    uint16_t h[5] = {0x3c00, 0xc000, 0x0001, 0x7c00, 0x8000};
    for (int t = LN_F16; t <= LN_BF16; t++) {
        ln_npy_write(test_path("h.npy"), (ln_dtype)t, 2, 1, 5, h);
        FILE *f = fopen(test_path("h.npy"), "rb");
        assert_non_null(f);
        unsigned char buf[256];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        size_t hlen = buf[8] | (size_t)buf[9] << 8;
        assert_int_equal((10 + hlen) % 64, 0);
        assert_int_equal(n, 10 + hlen + sizeof h);
        assert_int_equal(buf[10 + hlen - 1], '\n');
        buf[10 + hlen - 1] = 0;
        assert_non_null(strstr((char *)buf + 10, t == LN_F16 ? "'<f2'" : "'<u2'"));
        assert_non_null(strstr((char *)buf + 10, "(1, 5)"));
        for (int i = 0; i < 5; i++) assert_int_equal(buf[10 + hlen + 2 * i] | buf[11 + hlen + 2 * i] << 8, h[i]);
        expect_error(test_path("h.npy"), "dtype");
    }
}

static void test_versions_and_spacing(void **state)
{
    (void)state;
    double v[2] = {1, 2};
    ln_npy_array a;
    const char *p = write_raw(2, "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<f8\"}", v, sizeof v);
    assert_null(ln_npy_read(p, &a));
    assert_int_equal(a.cols, 2);
    assert_true(a.data[1] == 2);
    free(a.data);
    p = write_raw(1, "{'descr':'<f8','fortran_order':False,'shape':(1,2)}", v, sizeof v);
    assert_null(ln_npy_read(p, &a));
    assert_int_equal(a.ndim, 2);
    free(a.data);
}

static void test_malformed(void **state)
{
    (void)state;
    float v[6] = {0};
    expect_error(test_path("missing.npy"), "cannot open");
    FILE *f = fopen(test_path("magic.npy"), "wb");
    fputs("PK\x03\x04 this is a zip file, not an array", f);
    fclose(f);
    expect_error(test_path("magic.npy"), "magic");
    f = fopen(test_path("short.npy"), "wb");
    fputs("\x93NUMPY\x01", f);
    fclose(f);
    expect_error(test_path("short.npy"), "magic");
    expect_error(write_raw(4, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", v, sizeof v), "version");
    expect_error(write_raw(1, "['descr', '<f4']", v, sizeof v), "not a dict");
    expect_error(write_raw(1, "{'descr': '<f4', 'fortran_order': False, }", v, sizeof v), "lacks");
    expect_error(write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}", v, sizeof v),
                 "unknown key");
    expect_error(write_raw(1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (6,), }", v, sizeof v),
                 "fortran_order");
    expect_error(write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': [6], }", v, sizeof v), "shape");
    expect_error(write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,x), }", v, sizeof v), "shape");
    expect_error(write_raw(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (6,), }", v, sizeof v), "big-endian");
    expect_error(write_raw(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (6,), }", v, sizeof v), "'<i4'");
    expect_error(write_raw(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (6,), }", v, sizeof v), "'<f2'");
    expect_error(write_raw(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", v, sizeof v), "Fortran");
    expect_error(write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 3), }", v, sizeof v),
                 "3 dimensions");
    expect_error(write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", v, sizeof v), "0 dimensions");
    expect_error(write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", v, 0), "no elements");
    expect_error(write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v - 1),
                 "truncated");
    expect_error(
        write_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", v, sizeof v),
        "too large");
    /* a header length beyond the end of the file */
    f = fopen(test_path("hlen.npy"), "wb");
    fwrite("\x93NUMPY\x01\x00\xff\x7f{'descr'", 1, 17, f);
    fclose(f);
    expect_error(test_path("hlen.npy"), "truncated header");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_float),
        cmocka_unit_test(test_write_16bit),
        cmocka_unit_test(test_versions_and_spacing),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, test_dir_create, test_dir_remove);
}
