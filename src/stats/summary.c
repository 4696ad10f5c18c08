#include "stats/summary.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int fsb_summary_compute(const double *v, size_t n, struct fsb_summary *out)
{
	double *s, sum = 0, var = 0;

	if (!n)
		return -EINVAL;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	out->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		var += (s[i] - out->mean) * (s[i] - out->mean);
	out->n = n;
	out->sd = n > 1 ? sqrt(var / (double)(n - 1)) : 0;
	out->cv = out->mean != 0 ? out->sd / fabs(out->mean) : 0;
	free(s);
	return 0;
}

/* t 0.975 for df 1..30, the standard table's row. */
static const double t95_table[30] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201,	2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080,	2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

double fsb_t95(unsigned df)
{
	if (!df)
		return 0;
	return t95_table[df <= 30 ? df - 1 : 29];
}

int fsb_summary_ci95(const struct fsb_summary *s, double *lo, double *hi)
{
	double half;

	if (s->n < 2)
		return -EINVAL;
	half = fsb_t95((unsigned)(s->n - 1 < 30 ? s->n - 1 : 30)) * s->sd / sqrt((double)s->n);
	*lo = s->mean > half ? s->mean - half : 0;
	*hi = s->mean + half;
	return 0;
}
