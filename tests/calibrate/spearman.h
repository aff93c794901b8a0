/*
 * Spearman's rank correlation: how alike two orderings of the same items are,
 * from 1 (the same order) through 0 to -1 (reversed), whatever the scales of the
 * two measures. The calibration compares published figures with modeled ones
 * this way, since they come from different GPUs and sizes.
 */
#ifndef KGRADE_TESTS_CALIBRATE_SPEARMAN_H
#define KGRADE_TESTS_CALIBRATE_SPEARMAN_H

#define SPEARMAN_MAX 64 /* items at most */

/* The ranks of x[0..n-1] (1 for the smallest; tied values share the mean of
 * their ranks) into rank[]. */
void spearman_ranks(const double *x, int n, double *rank);

/* Spearman's rho of x and y (n items, 2 ≤ n ≤ SPEARMAN_MAX): the Pearson
 * correlation of their ranks, which handles ties. 0 when either is constant. */
double spearman(const double *x, const double *y, int n);

#endif
