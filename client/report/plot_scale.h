// Axis scales for the report's charts: linear, log 2 (message sizes) and
// log 10 (latency), each mapping a data interval onto a pixel interval, with
// tick values at round numbers.
#pragma once

#include <string>
#include <vector>

namespace fabricpulse::client::report {

// A pixel coordinate as an SVG attribute writes it: one decimal.
std::string Px(double v);

enum class ScaleKind { kLinear, kLog2, kLog10 };

class Scale {
 public:
  // A scale covering [min, max] (min <= max, both finite) drawn from pixel
  // `from` to pixel `to` (to < from for a y axis drawn upwards).
  // Linear: [0, max] rounded up to a tick when `from_zero` (bandwidth),
  // else [min, max] (times; widened by 1 on each side when min == max)
  // rounded out to multiples of a tick step of at least `min_step`.
  // Log: the whole powers of the base around [min, max] (one power wide
  // when they are equal); requires min > 0.
  static Scale Fit(ScaleKind kind, double min, double max, double from,
                   double to, bool from_zero = true, double min_step = 0);

  ScaleKind kind() const { return kind_; }
  double lo() const { return lo_; }
  double hi() const { return hi_; }

  // Whether `value` can be drawn: finite, and > 0 on a log scale.
  bool Drawable(double value) const;
  // The pixel of `value` (requires Drawable); values outside [lo, hi] map
  // outside [from, to].
  double Map(double value) const;

  // At most `max_ticks` (>= 2) values in [lo, hi], ascending: linear, the
  // multiples of the smallest 1, 2 or 5 x 10^k step that fits; log, the
  // powers of the base, every k-th power when there are too many, and on a
  // log 10 axis of at most two decades 2 and 5 times each power too.
  // `min_step` (linear only): no two ticks closer (e.g. 1 s for times).
  std::vector<double> Ticks(int max_ticks, double min_step = 0) const;

 private:
  Scale(ScaleKind kind, double lo, double hi, double from, double to)
      : kind_(kind), lo_(lo), hi_(hi), from_(from), to_(to) {}
  double Position(double value) const;  // the axis coordinate (log or not)

  ScaleKind kind_;
  double lo_, hi_, from_, to_;
};

// The smallest 1, 2 or 5 x 10^k that is >= `raw` (> 0).
double NiceStep(double raw);

// Tick labels. Bytes as sizes ("8 B", "64 KiB", "1 GiB"), for powers of 2.
std::string SizeTickLabel(double bytes);
// Seconds with an SI prefix: "100 ns", "1 us", "10 ms", "1 s" (ASCII "us"
// rather than the micro sign, like the table's headers).
std::string SecondsTickLabel(double seconds);
// A plain number with at most 3 significant digits ("0", "2.5", "1200").
std::string NumberTickLabel(double value);
// A Unix time in UTC as "MM-DD HH:MM".
std::string UnixTimeTickLabel(double unix_seconds);
// A Unix time in UTC as "HH:MM:SS", for spans shorter than a few minutes.
std::string UnixClockTickLabel(double unix_seconds);

}  // namespace fabricpulse::client::report
