/*
 * bessel_i0.h - the modified Bessel function of the first kind, order 0, for
 * Kaiser windows (filter design and pulse compression templates). Internal.
 */
#ifndef CONVOY_BESSEL_I0_H
#define CONVOY_BESSEL_I0_H

/* I0(x) by its power series, whose terms are all positive (no cancellation)
 * and which converges for every x; x = 50 needs about 100 terms. */
double bessel_i0(double x);

#endif /* CONVOY_BESSEL_I0_H */
