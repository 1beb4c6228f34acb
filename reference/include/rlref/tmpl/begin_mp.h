/* Declaration-template prologue for the MPFR functions (no guard). */
#define RLREF_T mpfr_ptr
#define RLREF_CT mpfr_srcptr
#define RLREF_FN(name) rlref_##name##_mp
