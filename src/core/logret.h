/* The log return between two prices, the one definition of kernels/raid_f64_returns.h for host code that
 * may not include kernels/ (the segmenter, src/io/segment.c): the same bits as the device kernels'. */
#ifndef RAID_CORE_LOGRET_H
#define RAID_CORE_LOGRET_H

/* log(p / prev) for positive finite prices prev and p, by raidF64LogReturn (kernels/raid_f64_returns.h:
 * log1p of the relative change for p / prev in [0.5, 2], else the difference of the logarithms; both
 * correctly rounded). Other inputs give what that formula gives (a NaN, an infinity); callers refuse them
 * first. Thread-safe, no state. */
double raidLogReturn(double prev, double p);

#endif
