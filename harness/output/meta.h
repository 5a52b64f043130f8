/* Machine and run metadata carried by every result file. */
#ifndef LN_META_H
#define LN_META_H

#include <stdint.h>
#include <stdio.h>

/* Writes a JSON object (no trailing newline) with: cpu_model, isa_features (detected),
 * isa_cap (LNBENCH_ISA), emulator ("qemu-user" or "none": timings under emulation mean nothing), cores, compiler, cflags, mpfr_version, gbench_version, onednn,
 * git_commit, date (UTC, ISO 8601), hostname, seed, command (the argv given). */
void ln_meta_write_json(FILE *f, uint64_t seed, int argc, char **argv);
/* The same with one more string field at the end (key NULL: none), e.g. "shard": "2/3". */
void ln_meta_write_json_extra(FILE *f, uint64_t seed, int argc, char **argv, const char *key, const char *value);
/* The same fields one by one, in that order: fn(ctx, key, value, quoted), value as text
 * (command as a JSON array), quoted when it is a JSON string (numbers and command are not). */
typedef void (*ln_meta_field_fn)(void *ctx, const char *key, const char *value, int quoted);
void ln_meta_fields(uint64_t seed, int argc, char **argv, ln_meta_field_fn fn, void *ctx);
/* Writes the same object to path (atomically), e.g. results/accuracy.csv.meta.json. */
void ln_meta_write_file(const char *path, uint64_t seed, int argc, char **argv);

/* The commit this binary was built from (git describe), "unknown" outside a checkout. */
const char *ln_meta_git_commit(void);

/* "qemu-user" when this process runs under a user-mode emulator (the binary's architecture is
 * not the machine's), else NULL. */
const char *ln_emulator(void);

/* Prints what `lnbench --version` says: the commit, the compiler and flags, and the library
 * versions the results depend on. */
void ln_meta_print_version(FILE *f);

/* The folder name of a machine, from its CPU model and detected ISA: letters, digits, '.', '-'
 * and '_' only, e.g. "Intel-Xeon-Processor_avx2-avx512-avx512fp16-avx512bf16". */
void ln_machine_id(const char *cpu, const char *isa, char *out, size_t n);

#endif
