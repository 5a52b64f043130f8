/* Command-line helpers shared by the verbs: strict number parsing, comma lists, and the one
 * way lnbench reports bad input (a message naming the value, exit status 2). */
#ifndef LN_CLI_H
#define LN_CLI_H

#include <stddef.h>

#include "kernel.h"

#define LN_EXIT_USAGE 2

/* Prints "lnbench: <message>" to stderr and exits with status 2. */
_Noreturn void ln_die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "lnbench: <message>" to stderr and exits with status 1 (a failure that is not the
 * user's input: out of memory, an I/O error while writing). */
_Noreturn void ln_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Strict parsers: the whole string must be the number; `what` names the flag in the message. */
double ln_parse_double(const char *s, const char *what);
long long ln_parse_int(const char *s, const char *what, long long min, long long max);
/* A size with an optional K, M, G suffix (powers of 1024): "256M" -> 268435456. */
size_t ln_parse_size(const char *s, const char *what);

/* Splits a comma list into a NULL-terminated array of strings (one allocation, free() it).
 * An empty list or an empty item ("a,,b", "a,") is a usage error naming `what`. */
char **ln_split_list(const char *s, const char *what, size_t *count);

/* The choice nearest to word by edit distance, if near enough to be a misspelling (at most a
 * third of word's length, and at least 1 edit, wrong), else NULL. */
const char *ln_did_you_mean(const char *word, const char *const *choices, size_t n);

/* A share of a run split over machines: --shard K/N takes the cases (or search starts) whose
 * index i has i % N == K - 1, so N runs with K = 1..N together do exactly the unsharded work. */
typedef struct {
    unsigned index, count; /* 0-based K - 1, and N; {0, 1} = everything */
} ln_shard;

/* Parses "K/N" (1 <= K <= N); anything else is a usage error naming --shard. */
ln_shard ln_parse_shard(const char *s);
static inline int ln_shard_takes(ln_shard sh, size_t i) { return sh.count <= 1 || i % sh.count == sh.index; }

/* The operator the verbs work on: --op NAME (or --op=NAME) on any verb, taken out of argv by
 * main like --plugin; layernorm when not given (ln_cli_op_given is then 0). */
extern ln_op ln_cli_op;
extern int ln_cli_op_given;
/* The op called name; a usage error naming the valid ops otherwise. */
ln_op ln_parse_op(const char *name);
/* The ops' names in table order (kernels/ops.def), comma-separated: "layernorm, rmsnorm, ...". */
const char *ln_op_list(void);
/* Removes every --op from argv[first..argc), setting ln_cli_op; returns the new argc. */
int ln_op_take_args(int argc, char **argv, int first);

/* Kernels of op ln_cli_op matching a comma list of names or globs ("f32-*,f64-twopass-scalar"), in
 * kernels.inc order then the plugins' (plugin.h), each once. A name or glob matching no kernel
 * is a usage error (with the nearest kernel name when it looks misspelt); an empty selection too;
 * kernels not available on this CPU are left out unless `keep_unavailable`, with a note that
 * ln_print_skip_note prints once the verb's arguments have all parsed (an argument error alone).
 * Returns the count; *out is malloc'ed. */
size_t ln_select_kernels(const char *list, const ln_kernel ***out, int keep_unavailable);
void ln_print_skip_note(void);

#endif
