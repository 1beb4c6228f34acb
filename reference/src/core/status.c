/* status.c -- status names, messages and the installable error handler. */
#include <stdio.h>
#include "rlref/status.h"

static _Thread_local char last_error[256];
static rlref_error_handler_t *handler = NULL;

const char *
rlref_status_name (int status)
{
  switch (status)
    {
    case RLREF_SUCCESS: return "SUCCESS";
    case RLREF_EDOM: return "EDOM";
    case RLREF_EINVAL: return "EINVAL";
    case RLREF_ENAN: return "ENAN";
    case RLREF_ERANGE: return "ERANGE";
    case RLREF_ENOMEM: return "ENOMEM";
    case RLREF_EMAXITER: return "EMAXITER";
    case RLREF_EPREC: return "EPREC";
    case RLREF_EFORMAT: return "EFORMAT";
    default: return "EUNKNOWN";
    }
}

const char *
rlref_strerror (int status)
{
  switch (status)
    {
    case RLREF_SUCCESS: return "success";
    case RLREF_EDOM: return "input outside the domain of the formula";
    case RLREF_EINVAL: return "invalid argument";
    case RLREF_ENAN: return "non-finite input";
    case RLREF_ERANGE: return "result out of range";
    case RLREF_ENOMEM: return "out of memory";
    case RLREF_EMAXITER: return "iteration did not converge";
    case RLREF_EPREC: return "certified digits not reached";
    case RLREF_EFORMAT: return "malformed input";
    default: return "unknown status";
    }
}

const char *
rlref_last_error (void)
{
  return last_error;
}

void
rlref_clear_error (void)
{
  last_error[0] = '\0';
}

rlref_error_handler_t *
rlref_set_error_handler (rlref_error_handler_t *h)
{
  rlref_error_handler_t *previous = handler;
  handler = h;
  return previous;
}

void
rlref_error (const char *reason, const char *file, int line, int status)
{
  snprintf (last_error, sizeof last_error, "%s", reason);
  if (handler)
    handler (reason, file, line, status);
}
