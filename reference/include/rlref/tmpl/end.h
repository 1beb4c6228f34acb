/* Declaration-template epilogue (no guard). */
#undef RLREF_T
#undef RLREF_CT
#undef RLREF_FN
