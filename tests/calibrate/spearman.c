/*
 * Spearman's rank correlation, computed as the Pearson correlation of the
 * ranks (the textbook 1 - 6·Σd²/(n(n²-1)) is exact only without ties).
 * O(n²) ranking: tables have a handful of rows.
 */
#include "spearman.h"

#include <math.h>

void spearman_ranks(const double *x, int n, double *rank)
{
    for (int i = 0; i < n; i++) {
        int below = 0, equal = 0;
        for (int j = 0; j < n; j++) {
            below += x[j] < x[i];
            equal += x[j] == x[i];
        }
        rank[i] = below + (equal + 1) / 2.0;
    }
}

static double mean(const double *v, int n)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    return sum / n;
}

double spearman(const double *x, const double *y, int n)
{
    if (n < 2 || n > SPEARMAN_MAX)
        return 0;
    double rx[SPEARMAN_MAX], ry[SPEARMAN_MAX];
    spearman_ranks(x, n, rx);
    spearman_ranks(y, n, ry);
    double mx = mean(rx, n), my = mean(ry, n), sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}
