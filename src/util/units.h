/*
 * Figures with their units, the one way every view and progress line
 * shows them: three significant digits; rates of bytes binary ("512
 * MiB/s", like every size fsbench prints and like bonnie's K/sec), rates
 * of operations decimal ("12.3 k/s"), times in seconds ("0.179 s") or
 * below 10 ms in µs/ms ("850 µs"), latencies kept in microseconds.
 * Units are the result model's: "B/s", "ops/s", "s"; any other unit is
 * shown as it is. Pure.
 */
#ifndef FSB_UTIL_UNITS_H
#define FSB_UTIL_UNITS_H
#include <stdbool.h>
#include <stddef.h>

/*
 * How figures are shown: divided by div, printed with decimals (three
 * significant digits when decimals < 0), followed by unit (static text,
 * or the unit given).
 */
struct fsb_unit_scale {
	double div;
	int decimals;
	const char *unit;
};

/*
 * The scale for figures of unit whose reference value (a median, one
 * figure) is ref: one scale for a row, so its min and max read in the
 * median's unit.
 */
struct fsb_unit_scale fsb_unit_scale_for(const char *unit, double ref);

/* v on scale sc, without the unit ("512", "0.179"). Returns buf. */
char *fsb_unit_number(const struct fsb_unit_scale *sc, double v, char *buf, size_t len);

/* v on scale sc with the unit ("512 MiB/s"). Returns buf. */
char *fsb_unit_with(const struct fsb_unit_scale *sc, double v, char *buf, size_t len);

/*
 * v with its unit on its own scale: "512 MiB/s", "12.3 k/s", "0.179 s",
 * "850 µs"; a unit of no known kind as "%.3g UNIT". Returns buf.
 */
char *fsb_unit_format(const char *unit, double v, char *buf, size_t len);

/* A latency in microseconds: "850 µs", "1.20 ms", "2.00 s". Returns buf. */
char *fsb_unit_format_us(double us, char *buf, size_t len);

/* A rate per second of bytes (bytes) or of operations: "512 MiB/s", "12.3 k/s". */
char *fsb_unit_format_rate(double per_s, bool bytes, char *buf, size_t len);

/*
 * One scale for a set of figures of this unit whose largest is vmax (a
 * chart axis): sets *div to what a figure is divided by and returns the
 * scaled unit's name ("MiB/s", "k ops/s", "ms"; the unit itself for
 * others). Never NULL.
 */
const char *fsb_unit_axis(const char *unit, double vmax, double *div);

#endif
