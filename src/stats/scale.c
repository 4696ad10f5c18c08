#include "stats/scale.h"

uint64_t fsb_scale_next(uint64_t work, uint64_t elapsed_ns, uint64_t min_ns, uint64_t granule,
			uint64_t max_work)
{
	double factor;
	uint64_t next;

	if (elapsed_ns >= min_ns || work >= max_work || !work)
		return work;
	if (!granule)
		granule = 1;
	factor = elapsed_ns ? 1.25 * (double)min_ns / (double)elapsed_ns : 16;
	if (factor < 2)
		factor = 2;
	if (factor > 16)
		factor = 16;
	next = (uint64_t)((double)work * factor);
	if (next / factor < (double)work / 2) /* overflow guard */
		next = max_work;
	next = (next + granule - 1) / granule * granule;
	if (next > max_work)
		next = max_work;
	return next > work ? next : work;
}

uint64_t fsb_scale_share(uint64_t limit, uint64_t floor, uint64_t granule)
{
	uint64_t share;

	if (limit == UINT64_MAX)
		return UINT64_MAX;
	if (!granule)
		granule = 1;
	share = limit / 2 / granule * granule;
	return share > floor ? share : floor;
}
