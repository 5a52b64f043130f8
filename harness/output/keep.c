#include "keep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "table.h"

void ln_keep_results(const char *verb, const char *path, int out_given, int force)
{
    struct stat st;
    if (out_given || force || stat(path, &st)) return;
    char meta[4200], date[64], command[1024];
    snprintf(meta, sizeof meta, "%s.meta.json", path);
    ln_meta_value(meta, "date", date, sizeof date);
    ln_meta_value(meta, "command", command, sizeof command);
    ln_die_usage("%s: %s holds an earlier run%s%s%s%s%s; it is not replaced without --force. Give --out FILE to keep "
                 "both (lnbench report DIR reads a folder), or --force to replace it",
                 verb, path, *date ? " (" : "", date, *command ? ", " : "", command, *date ? ")" : "");
}
