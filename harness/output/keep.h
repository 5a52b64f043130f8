/* A verb run by hand never silently replaces a results file (make bench's above all): its
 * default output, when it exists, is kept unless --force says otherwise. */
#ifndef LN_KEEP_H
#define LN_KEEP_H

/* Exits 2 with a message naming the run path holds (its .meta.json's date and command) when the
 * output was not given (out_given 0), path exists and force is 0; returns otherwise. */
void ln_keep_results(const char *verb, const char *path, int out_given, int force);

#endif
