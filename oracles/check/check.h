/* check.h -- the "rlref check" subcommand: judge a candidate's results
 * against a golden file (schema version 1, see golden/README.md).  */
#ifndef RLREF_CHECK_H
#define RLREF_CHECK_H

/* Runs "rlref check GOLDEN CANDIDATE [options]"; argv[0] is "check".
 * Returns the exit status: 0 when the candidate passes (or, on a golden
 * with several variants, follows one of them), 1 when it does not, 2 on a
 * usage error or an unreadable or malformed file.  */
int rlref_cmd_check (int argc, char **argv);

#endif
