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
	out->cv = (n > 1 && out->mean != 0) ? sqrt(var / (double)(n - 1)) / fabs(out->mean) : 0;
	free(s);
	return 0;
}
