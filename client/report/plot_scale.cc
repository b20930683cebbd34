#include "client/report/plot_scale.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "daemon/core/byte_size.h"

namespace fabricpulse::client::report {
namespace {

double Base(ScaleKind kind) { return kind == ScaleKind::kLog2 ? 2 : 10; }

// base^exponent, exact for the exponents a chart uses.
double Power(ScaleKind kind, int exponent) {
  return kind == ScaleKind::kLog2 ? std::ldexp(1.0, exponent)
                                  : std::pow(10.0, exponent);
}

// The exponent of the largest power <= value, robust to rounding (log10 of
// 1000 may come out as 2.9999999999999996).
int FloorExponent(ScaleKind kind, double value) {
  int e = static_cast<int>(std::floor(std::log(value) / std::log(Base(kind))));
  while (Power(kind, e + 1) <= value) ++e;
  while (Power(kind, e) > value) --e;
  return e;
}

int CeilExponent(ScaleKind kind, double value) {
  int e = FloorExponent(kind, value);
  return Power(kind, e) < value ? e + 1 : e;
}

}  // namespace

std::string Px(double v) { return absl::StrFormat("%.1f", v); }

double NiceStep(double raw) {
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    // A relative tolerance: 0.30000000000000004 is still a step of 0.3's
    // decade's 5 x 10^-1, not the next one up.
    if (m * decade >= raw * (1 - 1e-9)) return m * decade;
  }
  return 10 * decade;
}

Scale Scale::Fit(ScaleKind kind, double min, double max, double from, double to,
                 bool from_zero, double min_step) {
  if (kind == ScaleKind::kLinear) {
    double lo = from_zero ? std::min(0.0, min) : min;
    double hi = max;
    if (hi <= lo) {
      hi = lo + 1;
      if (!from_zero) lo -= 1;
    }
    const double step =
        NiceStep(std::max((hi - lo) / (from_zero ? 5 : 4), min_step));
    if (!from_zero) lo = std::floor(lo / step + 1e-9) * step;
    hi = std::ceil(hi / step - 1e-9) * step;
    if (hi <= lo) hi = lo + step;
    return Scale(kind, lo, hi, from, to);
  }
  const int e_lo = FloorExponent(kind, min);
  int e_hi = CeilExponent(kind, max);
  if (e_hi <= e_lo) e_hi = e_lo + 1;
  return Scale(kind, Power(kind, e_lo), Power(kind, e_hi), from, to);
}

bool Scale::Drawable(double value) const {
  return std::isfinite(value) && (kind_ == ScaleKind::kLinear || value > 0);
}

double Scale::Position(double value) const {
  return kind_ == ScaleKind::kLinear ? value : std::log(value);
}

double Scale::Map(double value) const {
  const double p_lo = Position(lo_), p_hi = Position(hi_);
  return from_ + (Position(value) - p_lo) / (p_hi - p_lo) * (to_ - from_);
}

std::vector<double> Scale::Ticks(int max_ticks, double min_step) const {
  if (max_ticks < 2) max_ticks = 2;
  std::vector<double> ticks;
  if (kind_ == ScaleKind::kLinear) {
    double step = NiceStep(std::max((hi_ - lo_) / (max_ticks - 1), min_step));
    for (;;) {
      ticks.clear();
      const int64_t first = static_cast<int64_t>(std::ceil(lo_ / step - 1e-9));
      for (int64_t k = first; k * step <= hi_ + step * 1e-9; ++k) {
        ticks.push_back(k * step);
      }
      if (static_cast<int>(ticks.size()) <= max_ticks) return ticks;
      step = NiceStep(step * 1.01);
    }
  }
  const int e_lo = FloorExponent(kind_, lo_);
  const int e_hi = FloorExponent(kind_, hi_);
  const int count = e_hi - e_lo + 1;
  // Two decades or less: 1, 2 and 5 of each, or the axis has 2 or 3 labels.
  if (kind_ == ScaleKind::kLog10 && count <= 3 && 3 * count - 2 <= max_ticks) {
    for (int e = e_lo; e <= e_hi; ++e) {
      for (double m : {1.0, 2.0, 5.0}) {
        if (e == e_hi && m > 1) break;
        ticks.push_back(m * Power(kind_, e));
      }
    }
    return ticks;
  }
  const int stride = (count + max_ticks - 1) / max_ticks;
  for (int e = e_lo; e <= e_hi; e += stride) ticks.push_back(Power(kind_, e));
  return ticks;
}

std::string SizeTickLabel(double bytes) {
  return core::HumanByteSize(static_cast<uint64_t>(std::llround(bytes)));
}

std::string SecondsTickLabel(double seconds) {
  struct Unit {
    double scale;
    const char* name;
  };
  for (const Unit& u : {Unit{1, "s"}, Unit{1e-3, "ms"}, Unit{1e-6, "us"}}) {
    if (seconds >= u.scale * (1 - 1e-9)) {
      return absl::StrFormat("%s %s", NumberTickLabel(seconds / u.scale),
                             u.name);
    }
  }
  return absl::StrFormat("%s ns", NumberTickLabel(seconds / 1e-9));
}

std::string NumberTickLabel(double value) {
  if (value == 0) return "0";
  // %g would write 1200 as 1.2e+03.
  if (std::fabs(value) >= 1000) return absl::StrFormat("%.0f", value);
  return absl::StrFormat("%.3g", value);
}

std::string UnixTimeTickLabel(double unix_seconds) {
  return absl::FormatTime(
      "%m-%d %H:%M",
      absl::FromUnixSeconds(static_cast<int64_t>(std::llround(unix_seconds))),
      absl::UTCTimeZone());
}

std::string UnixClockTickLabel(double unix_seconds) {
  return absl::FormatTime(
      "%H:%M:%S",
      absl::FromUnixSeconds(static_cast<int64_t>(std::llround(unix_seconds))),
      absl::UTCTimeZone());
}

}  // namespace fabricpulse::client::report
