#include "core/calibrate.h"
#include "stats/scale.h"

#include <string.h>

/* A warm-up workload's first run at a grown work that lasted this many
 * times the second is a first touch of the grown part, not the filesystem
 * (see FSB_WL_WARMUP). */
#define FIRST_TOUCH 1.5
/* The most an open attempt may have, in works of the one before it: its
 * time ends it long before. */
#define OPEN_GROWTH 1024u

/*
 * The work of an open attempt from `start`, or 0. Where a run may do far
 * more work than start with nothing prepared and no space taken (ready
 * work: passes over a file in memory, the sets a stat test finds), the
 * attempt takes all that work and stops at open_next()'s time after its
 * start, as a run --deadline cuts does; never before it has done start.
 * The series then does that work, and that attempt is its first run. A
 * first attempt is open only for a test whose first run is like the later
 * ones (open_first); growth to ready work follows a run over the same
 * data, so it may always be.
 */
static uint64_t open_work(const struct fsb_cal *c, uint64_t start, bool first)
{
	uint64_t most = start > UINT64_MAX / OPEN_GROWTH ? UINT64_MAX : start * OPEN_GROWTH;
	uint64_t v;

	if (most > c->p.hard)
		most = c->p.hard;
	if ((first && !c->p.open_first) || !c->p.may_open || !c->p.has_ready || !start ||
	    most <= start)
		return 0;
	v = c->probe.ready(c->probe.arg, start + 1, most);
	return v > start && v <= most ? v : 0;
}

/*
 * Make the next run an open attempt from `least`, of what growth aims at
 * (the target, or the retry's margin once the series started over): it is
 * the run that sets the work, and a later run that falls short costs it
 * and a new series, so not FSB_SCALE_READY's slimmer margin.
 */
static void open_next(struct fsb_cal *c, uint64_t least)
{
	c->open_ns = (uint64_t)(c->target * (double)c->p.min_ns);
	c->open_least = least;
}

/*
 * Given that growth aims at `aim`, a work the workload has ready between
 * the least that should still meet --min-time with FSB_SCALE_READY's
 * margin and `aim` (the aim itself when that least is past it), or 0.
 */
static uint64_t ready(const struct fsb_cal *c, uint64_t pace_ns, uint64_t aim)
{
	uint64_t low = fsb_scale_work_for(c->work, pace_ns, FSB_SCALE_READY, c->p.min_ns,
					  c->p.granule);
	uint64_t v;

	if (low < c->work + 1)
		low = c->work + 1;
	if (low > aim)
		low = aim;
	v = c->probe.ready(c->probe.arg, low, aim);
	return v >= low && v <= aim ? v : 0;
}

void fsb_cal_init(struct fsb_cal *c, const struct fsb_cal_params *p,
		  const struct fsb_cal_probe *probe)
{
	const uint64_t g = p->granule;
	uint64_t space = UINT64_MAX;

	memset(c, 0, sizeof(*c));
	c->p = *p;
	c->probe = *probe;
	c->target = FSB_SCALE_TARGET;
	c->warm = !p->warmup;
	if (p->grows && !p->fixed && !p->file_given)
		space = probe->space(probe->arg, p->asked);
	/* A first work that does not fit is the workload's default (the
	 * user's sizes are checked up front): it starts at the share growth
	 * may take, so that a second run in the same directory fits too. */
	c->start = p->asked <= space ? p->asked : fsb_scale_share(space, g, g);
	/* Never past the workload's own limit (seeks: every chunk once). */
	if (c->start > p->hard)
		c->start = p->hard;
	c->work = c->start;
	/* Two runs started in one directory at once must both fit: growth
	 * may take only a share of what fits. The workload's own limit is no
	 * space: it is not shared out. */
	c->cap = p->fixed || p->file_given ? c->start : fsb_scale_share(space, c->start, g);
	if (p->hard < c->cap)
		c->cap = p->hard;
	if (p->grows && !p->fixed && c->warm) {
		uint64_t open = open_work(c, c->start, true);

		if (open) {
			c->work = open;
			open_next(c, c->start);
		}
	}
}

/* Out of space at a grown work: the largest work below it that completed,
 * or the first, and no more growth. */
static struct fsb_cal_decision fall_back(struct fsb_cal *c, bool opened)
{
	struct fsb_cal_decision d = { .action = FSB_CAL_FALLBACK };

	while (c->nfits && c->fits[c->nfits - 1] >= c->work)
		c->nfits--;
	c->failed_at = c->work;
	c->failed_open = opened;
	c->work = c->cap = c->nfits ? c->fits[c->nfits - 1] : c->start;
	c->warm = true;
	d.work = c->work;
	return d;
}

/*
 * The next work after a run that counted, at the cap: its own work when
 * the run was long enough. A run that fell short predicts the work at its
 * last quarter's pace (its start-up is no cost a larger work pays in
 * proportion). A series' first run must also leave FSB_SCALE_KEEP's
 * margin: barely long enough, a later run would likely fall short.
 */
static uint64_t next_work(struct fsb_cal *c, const struct fsb_cal_run *r, unsigned index,
			  bool *open)
{
	uint64_t need = index || !c->warm ? c->p.min_ns
					  : (uint64_t)(FSB_SCALE_KEEP * (double)c->p.min_ns);
	uint64_t pace = r->wall_ns < need ? r->pace_ns : r->wall_ns;
	uint64_t next, g = c->p.granule, min = c->p.min_ns;

	/* A later run fell short: this test's runs differ more than the
	 * target's margin allows; aim higher from now on. */
	if (index && r->wall_ns < need)
		c->target = FSB_SCALE_RETRY;
	next = fsb_scale_next(c->work, pace, need, min, c->target, g, c->cap);
	if (next != c->work && !c->p.fixed && !c->p.file_given) {
		/* Ask again: another process may have taken space. */
		uint64_t now = fsb_scale_share(c->probe.space(c->probe.arg, 0), c->work, g);

		if (now < c->cap) {
			c->cap = now;
			next = fsb_scale_next(c->work, pace, need, min, c->target, g, c->cap);
		}
	}
	*open = false;
	if (c->p.has_ready && !c->p.fixed) {
		/* Work that is ready takes no space: the cap is not its limit. */
		uint64_t aim = fsb_scale_next(c->work, pace, need, min, c->target, g, c->p.hard);
		uint64_t rw = aim != c->work ? ready(c, pace, aim) : 0;

		if (rw) {
			/* Ready, it may as well be open: the run before it was
			 * the first over its data. */
			uint64_t o = open_work(c, c->work, false);

			*open = o > rw;
			next = *open ? o : rw;
		}
	}
	return next;
}

struct fsb_cal_decision fsb_cal_decide(struct fsb_cal *c, const struct fsb_cal_run *r)
{
	struct fsb_cal_decision d = { .action = FSB_CAL_KEEP };
	bool grown = c->work > c->start, opened = c->open_ns != 0, cut, open;
	unsigned index = r->index;
	uint64_t next;

	c->open_ns = 0;
	if (r->end == FSB_CAL_NOSPACE && grown)
		return fall_back(c, opened);
	if (r->end == FSB_CAL_NOSPACE || r->end == FSB_CAL_FAILED) {
		d.action = FSB_CAL_STOP;
		d.work = c->work;
		return d;
	}
	/* Stopped at its time, an open attempt did the series' work: its
	 * first run (it did at least the work before it). */
	if (opened && r->end == FSB_CAL_DEADLINE && r->done) {
		d.timed = true;
		c->work = r->done;
	}
	cut = r->end == FSB_CAL_DEADLINE && !d.timed;
	if (!c->nfits || (c->fits[c->nfits - 1] < c->work && c->nfits < FSB_CAL_MAX_ATTEMPTS + 1))
		c->fits[c->nfits++] = c->work;
	/* The warm-up ran at a smaller work: the first run at a grown one
	 * touched its grown part first (memory a VM hands out slowly the
	 * first time). Far longer than the run after it, it is discarded as
	 * the warm-up is. */
	if (c->touch && index == 1) {
		c->touch = false;
		if ((double)r->first_wall_ns > FIRST_TOUCH * (double)r->wall_ns) {
			d.drop_first = true;
			index = 0;
		}
	}
	d.work = c->work;
	/* No '+++++': a run shorter than --min-time is discarded, the work
	 * grown, and measuring starts over, so that every kept run does the
	 * same work and lasts long enough. A run the deadline cut lasted as
	 * long as the user allows: no growth (a work the user gave has its
	 * cap at itself: only its warm-up is redone). */
	if (!c->p.grows || c->failed_at || cut || c->attempts >= FSB_CAL_MAX_ATTEMPTS)
		return d;
	next = next_work(c, r, index, &open);
	if (next == c->work && c->warm)
		return d;
	if (open)
		open_next(c, c->work);
	c->attempts++;
	c->touch = next != c->work && c->p.warmup;
	c->work = next;
	c->warm = true;
	d.action = FSB_CAL_REDO;
	d.work = next;
	return d;
}

const char *fsb_cal_short_why(const struct fsb_cal *c, uint64_t shortest_ns, bool shortest_cut)
{
	bool space;

	if (!c->p.grows || shortest_ns >= c->p.min_ns || shortest_cut)
		return NULL;
	/* Short because of space: a grown attempt ran out of it, or the work
	 * stopped at the space cap (not at the workload's own limit, nor at a
	 * work the user gave, nor for want of attempts). */
	space = c->failed_at ||
		(!c->p.fixed && !c->p.file_given && c->cap < c->p.hard && c->work >= c->cap);
	if (space)
		return "space";
	if (c->p.fixed || c->p.file_given)
		return "given";
	if (c->attempts >= FSB_CAL_MAX_ATTEMPTS && c->work < c->p.hard)
		return "time";
	return "limit";
}
