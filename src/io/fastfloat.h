/* Decimal text to float64 by fast_float (Debian libfast-float-dev, header-only C++, D. Lemire, "Number
 * Parsing at a Gigabyte per Second", Software: Practice and Experience 51(8), 2021): the double nearest to the
 * decimal value, ties to even, as glibc's strtod rounds it in the "C" locale (IEEE 754 correctly rounded
 * conversion), several times faster; short decimals (at most 15 digits, no exponent) by Clinger's exact fast
 * path before it. The one C++ file of the library (fastfloat.cpp) behind this C
 * interface. Never installed. */
#ifndef RAID_IO_FASTFLOAT_H
#define RAID_IO_FASTFLOAT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The whole of s[0..n) as a decimal number digits[.digits][(e|E)[+-]digits] (also ".5", "5."), with an
 * optional leading '-' (a leading '+' is the caller's to strip): 0 and *v, or -1 when the text is not
 * entirely such a number. Too large for float64: +-infinity (strtod's value, without its ERANGE); too
 * small: the nearest subnormal or zero, as strtod. fast_float also reads "inf", "nan" and "infinity":
 * callers that refuse them check the syntax first (table.c's parse_decimal). */
int raidParseF64(const char *s, size_t n, double *v);

#ifdef __cplusplus
}
#endif

#endif
