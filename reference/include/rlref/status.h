/* rlref/status.h -- status codes and the error handler.
 *
 * Every public function returns one of these codes.  The library never
 * aborts: on bad input it calls the installed handler (none by default),
 * records a message that rlref_last_error() returns, and returns the code,
 * in the manner of GSL's GSL_ERROR.  */
#ifndef RLREF_STATUS_H
#define RLREF_STATUS_H

enum rlref_status {
  RLREF_SUCCESS = 0,
  RLREF_EDOM = 1,       /* input outside the domain (beta <= 0, negative count, ...) */
  RLREF_EINVAL = 2,     /* invalid argument (NULL, empty array, length mismatch) */
  RLREF_ENAN = 3,       /* a NaN or infinite input where the formula needs a finite one */
  RLREF_ERANGE = 4,     /* result not representable */
  RLREF_ENOMEM = 5,     /* allocation failed */
  RLREF_EMAXITER = 6,   /* an iteration did not converge */
  RLREF_EPREC = 7,      /* the requested certified digits could not be reached */
  RLREF_EFORMAT = 8     /* malformed text or file */
};

/* "EDOM", "EINVAL", ... (the names the golden files use). */
const char *rlref_status_name(int status);
/* A sentence describing the code. */
const char *rlref_strerror(int status);

/* The message of the last error raised in this thread ("" if none). */
const char *rlref_last_error(void);
void rlref_clear_error(void);

typedef void rlref_error_handler_t(const char *reason, const char *file, int line, int status);
/* Installs a handler called on every error; returns the previous one.
 * NULL (the default) means: record the message and return the code. */
rlref_error_handler_t *rlref_set_error_handler(rlref_error_handler_t *handler);

void rlref_error(const char *reason, const char *file, int line, int status);

/* Marks a public function whose status must not be ignored. */
#if defined(__GNUC__) || defined(__clang__)
#define RLREF_WUR __attribute__ ((warn_unused_result))
#else
#define RLREF_WUR
#endif

#define RLREF_ERROR(reason, status)                        \
  do {                                                     \
    rlref_error((reason), __FILE__, __LINE__, (status));   \
    return (status);                                       \
  } while (0)

#endif
