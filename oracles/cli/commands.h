/* commands.h -- the subcommands of rlref; each takes argv[0] = its name. */
#ifndef RLREF_ORACLES_COMMANDS_H
#define RLREF_ORACLES_COMMANDS_H

int rlref_cmd_list (int argc, char **argv);
int rlref_cmd_eval (int argc, char **argv);
int rlref_cmd_golden (int argc, char **argv);
int rlref_cmd_table (int argc, char **argv);
int rlref_cmd_check (int argc, char **argv);
int rlref_cmd_candidate (int argc, char **argv);
int rlref_cmd_lm (int argc, char **argv);
int rlref_cmd_train (int argc, char **argv);
int rlref_cmd_mdp (int argc, char **argv);

#endif
