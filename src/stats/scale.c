#include "stats/scale.h"

uint64_t fsb_scale_next(uint64_t work, uint64_t elapsed_ns, uint64_t need_ns, uint64_t min_ns,
			double target, uint64_t granule, uint64_t max_work)
{
	double factor;
	uint64_t next;

	if (elapsed_ns >= need_ns || work >= max_work || !work)
		return work;
	if (!granule)
		granule = 1;
	/*
	 * The rate this attempt measured predicts the work that lasts
	 * target x min_ns: the margin keeps the next runs of that
	 * work above --min-time when they are faster than this one (a short
	 * kept run starts the measuring over). Doubling instead
	 * overshoots: a run just short of the minimum becomes runs of
	 * nearly twice it.
	 */
	factor = elapsed_ns ? target * (double)min_ns / (double)elapsed_ns : FSB_SCALE_MAX_GROWTH;
	if (factor > FSB_SCALE_MAX_GROWTH && (double)elapsed_ns * FSB_SCALE_TRUST < (double)min_ns)
		factor = FSB_SCALE_MAX_GROWTH;
	next = (uint64_t)((double)work * factor);
	if (next / factor < (double)work / 2) /* overflow guard */
		next = max_work;
	next = (next + granule - 1) / granule * granule;
	if (next > max_work)
		next = max_work;
	/* At least one granule more: a run a hair short must not repeat. */
	if (next <= work)
		next = work + granule <= max_work && work + granule > work ? work + granule
									   : max_work;
	return next > work ? next : work;
}

uint64_t fsb_scale_work_for(uint64_t work, uint64_t elapsed_ns, double target, uint64_t min_ns,
			    uint64_t granule)
{
	double w;

	if (!elapsed_ns)
		return work;
	if (!granule)
		granule = 1;
	w = (double)work * target * (double)min_ns / (double)elapsed_ns;
	/* Past what rounding up could hold: saturate. */
	if (w >= (double)(UINT64_MAX - granule))
		return UINT64_MAX;
	return ((uint64_t)w + granule - 1) / granule * granule;
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
