/* cmd_golden.c -- `rlref golden DIR [ID ...]`: writes the golden files,
   one per formula, on as many processes as there are processors. */
#define _DEFAULT_SOURCE         /* MAP_ANONYMOUS */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "core/registry.h"
#include "core/golden.h"
#include "commands.h"
#include "core/options.h"

static const char *usage =
  "usage: rlref golden DIR [ID ...]\n"
  "\n"
  "Writes DIR/ID.json for every formula (or the ids given): certified\n"
  "expected values, in the format of golden/README.md.  The output is\n"
  "canonical: the same bytes on every run.  Each file is written whole to\n"
  "ID.json.tmp and renamed, so a failed write leaves the old file.  The\n"
  "files are written by as many processes as there are processors online\n"
  "($RLREF_JOBS, when set, says how many); each file is the same whatever\n"
  "the number.\n"
  "\n"
  "exit status: 0; 1 when a case's outcome is not the declared one; 2 for a\n"
  "usage error or a file that cannot be written.\n";

/* What the writers share: the next formula to take, the exit status so
   far (a writer stops at 2: the disk is full or the directory gone). */
typedef struct
{
  size_t next;
  int failed;
} work;

/* Write the n golden files of fs into dir, taking each next one from w;
   on the calling process when jobs is 1.  */
static void
write_some (const rl_formula *const *fs, size_t n, const char *dir, work *w)
{
  for (;;)
    {
      size_t i = __atomic_fetch_add (&w->next, 1, __ATOMIC_SEQ_CST);
      int rc, old;
      if (i >= n || __atomic_load_n (&w->failed, __ATOMIC_SEQ_CST) >= 2)
        return;
      rc = rl_golden_write (fs[i], dir);
      old = __atomic_load_n (&w->failed, __ATOMIC_SEQ_CST);
      while (rc > old
             && !__atomic_compare_exchange_n (&w->failed, &old, rc, 0, __ATOMIC_SEQ_CST,
                                              __ATOMIC_SEQ_CST))
        ;
    }
}

/* The number of writers: $RLREF_JOBS (1 to 64), else the processors
   online, at most n. */
static long
writers (size_t n)
{
  const char *env = getenv ("RLREF_JOBS");
  long j = env && *env ? strtol (env, NULL, 10) : sysconf (_SC_NPROCESSORS_ONLN);
  if (j < 1)
    j = 1;
  if (j > 64)
    j = 64;
  return (size_t) j > n ? (long) n : j;
}

/* Write the n files of fs into dir on jobs processes sharing one work
   list; the exit status. */
static int
write_all (const rl_formula *const *fs, size_t n, const char *dir)
{
  long jobs = writers (n), started = 0;
  work *w = mmap (NULL, sizeof *w, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int failed;
  if (w == MAP_FAILED)
    {
      work local = { 0, 0 };
      write_some (fs, n, dir, &local);
      return local.failed;
    }
  w->next = 0;
  w->failed = 0;
  fflush (stdout);
  fflush (stderr);
  for (; jobs > 1 && started < jobs; started++)
    {
      pid_t pid = fork ();
      if (pid == 0)
        {
          write_some (fs, n, dir, w);
          fflush (stderr);
          _exit (0);
        }
      if (pid < 0)
        break;                  /* the writers started, and this process, do the rest */
    }
  write_some (fs, n, dir, w);
  for (;;)
    {
      int status;
      pid_t pid = wait (&status);
      if (pid < 0 && errno == ECHILD)
        break;
      if (pid > 0 && !(WIFEXITED (status) && WEXITSTATUS (status) == 0))
        {
          fprintf (stderr, "rlref golden: a writer process ended abnormally\n");
          w->failed = 2;
        }
    }
  failed = w->failed;
  munmap (w, sizeof *w);
  return failed;
}

int
rlref_cmd_golden (int argc, char **argv)
{
  const rl_formula **fs;
  size_t n = 0;
  int failed;
  struct stat st;
  if (rl_wants_help (argc, argv))
    {
      fputs (usage, stdout);
      return 0;
    }
  if (argc < 2)
    {
      fprintf (stderr, "rlref golden: missing directory\n%s", usage);
      return 2;
    }
  if (stat (argv[1], &st) != 0 || !S_ISDIR (st.st_mode))
    {
      fprintf (stderr, "rlref golden: '%s' is not a directory\n", argv[1]);
      return 2;
    }
  /* every id is checked before anything is written */
  for (int i = 2; i < argc; i++)
    if (!rl_find (argv[i]))
      {
        fprintf (stderr, "rlref golden: unknown formula '%s' (see rlref list)\n", argv[i]);
        return 2;
      }
  fs = malloc ((argc > 2 ? (size_t) argc : rl_formula_count () + 1) * sizeof *fs);
  if (!fs)
    {
      fprintf (stderr, "rlref golden: out of memory\n");
      return 2;
    }
  if (argc == 2)
    for (size_t i = 0; i < rl_formula_count (); i++)
      fs[n++] = rl_formula_at (i);
  for (int i = 2; i < argc; i++)
    fs[n++] = rl_find (argv[i]);
  /* 1: a case gave other than its declared outcome; 2: a file could not
     be written */
  failed = write_all (fs, n, argv[1]);
  free (fs);
  return failed;
}
