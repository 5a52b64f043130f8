/* The lnbench verbs: each takes the arguments after its name (argv[0] is the verb) and returns
 * the exit status. main.c's table lists them. */
#ifndef LN_VERBS_H
#define LN_VERBS_H

int cmd_list(int argc, char **argv);
int cmd_accuracy(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_hunt(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_tune(int argc, char **argv);

#endif
