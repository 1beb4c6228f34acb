/* Declaration-template prologue for the binary64 functions (no guard). */
#define RLREF_T double *
#define RLREF_CT const double *
#define RLREF_FN(name) rlref_##name##_d
