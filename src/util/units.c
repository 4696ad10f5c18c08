#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const bps_units[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s" };
static const char *const ops_units[] = { "/s", "k/s", "M/s", "G/s", "T/s" };
static const char *const ops_axis_units[] = { "ops/s", "k ops/s", "M ops/s", "G ops/s", "T ops/s" };
static const char *const us_units[] = { "µs", "ms", "s" };

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A figure that is no number, or negative, shows as 0. */
static double sane(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

/* Three significant digits, as far as the magnitude allows. */
static int sig3_decimals(double v)
{
	return v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
}

/* Step v (divided by div) down by step until it is below 1000, or the units run out. */
static struct fsb_unit_scale stepped(double v, double div, double step, const char *const *units,
				     int nunits)
{
	struct fsb_unit_scale sc = { .div = div, .decimals = -1, .unit = units[0] };

	v = sane(v) / div;
	for (int u = 1; v >= 999.5 && u < nunits; u++) {
		v /= step;
		sc.div *= step;
		sc.unit = units[u];
	}
	return sc;
}

/* Wall times of lifecycle phases read best in seconds: "0.179 s". */
static struct fsb_unit_scale scale_s(double s)
{
	struct fsb_unit_scale sc = { .div = 1, .unit = "s" };

	s = sane(s);
	if (s < 0.01)
		return stepped(s, 1e-6, 1000, us_units, NELEM(us_units));
	sc.decimals = s < 9.9995 ? 3 : s < 99.995 ? 2 : 1;
	return sc;
}

struct fsb_unit_scale fsb_unit_scale_for(const char *unit, double ref)
{
	struct fsb_unit_scale sc = { .div = 1, .decimals = -1, .unit = unit ? unit : "" };

	if (!unit)
		return sc;
	if (!strcmp(unit, "B/s"))
		return stepped(ref, 1, 1024, bps_units, NELEM(bps_units));
	if (!strcmp(unit, "ops/s"))
		return stepped(ref, 1, 1000, ops_units, NELEM(ops_units));
	if (!strcmp(unit, "s"))
		return scale_s(ref);
	return sc;
}

char *fsb_unit_number(const struct fsb_unit_scale *sc, double v, char *buf, size_t len)
{
	v = sane(v) / sc->div;
	snprintf(buf, len, "%.*f", sc->decimals >= 0 ? sc->decimals : sig3_decimals(v), v);
	return buf;
}

char *fsb_unit_with(const struct fsb_unit_scale *sc, double v, char *buf, size_t len)
{
	char num[64];

	snprintf(buf, len, "%s %s", fsb_unit_number(sc, v, num, sizeof(num)), sc->unit);
	return buf;
}

static bool known(const char *unit)
{
	return unit && (!strcmp(unit, "B/s") || !strcmp(unit, "ops/s") || !strcmp(unit, "s"));
}

char *fsb_unit_format(const char *unit, double v, char *buf, size_t len)
{
	struct fsb_unit_scale sc;

	if (!known(unit)) {
		unit = unit ? unit : "";
		snprintf(buf, len, "%.3g%s%s", sane(v), unit[0] ? " " : "", unit);
		return buf;
	}
	sc = fsb_unit_scale_for(unit, v);
	return fsb_unit_with(&sc, v, buf, len);
}

char *fsb_unit_format_us(double us, char *buf, size_t len)
{
	struct fsb_unit_scale sc = stepped(us, 1, 1000, us_units, NELEM(us_units));

	return fsb_unit_with(&sc, us, buf, len);
}

char *fsb_unit_format_rate(double per_s, bool bytes, char *buf, size_t len)
{
	return fsb_unit_format(bytes ? "B/s" : "ops/s", per_s, buf, len);
}

const char *fsb_unit_axis(const char *unit, double vmax, double *div)
{
	struct fsb_unit_scale sc;

	if (!unit)
		unit = "";
	if (!strcmp(unit, "B/s")) {
		sc = stepped(vmax, 1, 1024, bps_units, NELEM(bps_units));
		*div = sc.div;
		return sc.unit;
	}
	if (!strcmp(unit, "ops/s")) {
		sc = stepped(vmax, 1, 1000, ops_axis_units, NELEM(ops_axis_units));
		*div = sc.div;
		return sc.unit;
	}
	if (!strcmp(unit, "s")) {
		vmax = sane(vmax);
		if (vmax >= 1) {
			*div = 1;
			return "s";
		}
		if (vmax >= 0.001) {
			*div = 1e-3;
			return "ms";
		}
		*div = 1e-6;
		return "µs";
	}
	*div = 1;
	return unit;
}
