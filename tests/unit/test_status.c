/* test_status.c -- status names and messages, the installable error
 * handler, and the last-error message: GSL-style errors, never an abort. */
#include <string.h>
#include "testutil.h"

static int handler_calls;
static int handler_status;
static char handler_reason[128];

static void
record_handler (const char *reason, const char *file, int line, int status)
{
  (void) file;
  (void) line;
  handler_calls++;
  handler_status = status;
  snprintf (handler_reason, sizeof handler_reason, "%s", reason);
}

/* Every code has the name the golden files use and a sentence; an unknown
 * code has neither a crash nor an empty string. */
START_TEST (test_names_and_messages)
{
  static const struct { int code; const char *name; } names[] = {
    { RLREF_SUCCESS, "SUCCESS" }, { RLREF_EDOM, "EDOM" }, { RLREF_EINVAL, "EINVAL" },
    { RLREF_ENAN, "ENAN" }, { RLREF_ERANGE, "ERANGE" }, { RLREF_ENOMEM, "ENOMEM" },
    { RLREF_EMAXITER, "EMAXITER" }, { RLREF_EPREC, "EPREC" }, { RLREF_EFORMAT, "EFORMAT" },
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    {
      ck_assert_str_eq (rlref_status_name (names[i].code), names[i].name);
      ck_assert_int_gt ((int) strlen (rlref_strerror (names[i].code)), 0);
    }
  ck_assert_str_eq (rlref_status_name (12345), "EUNKNOWN");
  ck_assert_int_gt ((int) strlen (rlref_strerror (-7)), 0);
}
END_TEST

/* A rejected input records its reason, calls an installed handler with the
 * status, and returns the status; clearing empties the message. */
START_TEST (test_handler_and_last_error)
{
  double x = NAN, r = 0.5;
  rlref_error_handler_t *old = rlref_set_error_handler (record_handler);
  handler_calls = 0;
  rlref_clear_error ();
  ck_assert_str_eq (rlref_last_error (), "");
  ck_assert_int_eq (rlref_sigmoid_d (&r, &x), RLREF_ENAN);
  ck_assert_int_eq (handler_calls, 1);
  ck_assert_int_eq (handler_status, RLREF_ENAN);
  ck_assert_str_eq (handler_reason, rlref_last_error ());
  ck_assert_int_gt ((int) strlen (rlref_last_error ()), 0);
  ck_assert (r == 0.5);                 /* the output is left alone */
  rlref_clear_error ();
  ck_assert_str_eq (rlref_last_error (), "");
  ck_assert_ptr_eq (rlref_set_error_handler (old), record_handler);
  /* without a handler: the same status, nothing else happens */
  ck_assert_int_eq (rlref_sigmoid_d (&r, &x), RLREF_ENAN);
  ck_assert_int_eq (handler_calls, 1);
}
END_TEST

static Suite *
status_suite (void)
{
  Suite *s = suite_create ("status");
  TCase *tc = tu_tcase ("status");
  tcase_add_test (tc, test_names_and_messages);
  tcase_add_test (tc, test_handler_and_last_error);
  suite_add_tcase (s, tc);
  return s;
}

TU_MAIN (status_suite)
