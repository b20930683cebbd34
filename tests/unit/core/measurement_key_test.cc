#include "daemon/core/measurement_key.h"

#include "gtest/gtest.h"

namespace fabricpulse::core {
namespace {
namespace FP_UNITY_ID {

TEST(MeasurementKeyTest, EverySettingThatChangesTheFiguresChangesTheKey) {
  const SweepSpec base;
  EXPECT_EQ(MeasurementKey(base), "warmup=5;iters=20;graph=0;redop=sum;root=0");
  std::vector<SweepSpec> edited(7, base);
  edited[0].warmup_iters = 1;
  edited[1].iters = 100;
  edited[2].adaptive.enabled = true;
  edited[3].graph = true;
  edited[4].redop = "max";
  edited[5].root = 1;
  edited[6].ops = {"moe_dispatch"};
  for (const SweepSpec& spec : edited) {
    EXPECT_NE(MeasurementKey(spec), MeasurementKey(base));
  }
  EXPECT_EQ(MeasurementKey(edited[2]),
            "warmup=5;iters=auto(0.01,5..100,2s);graph=0;redop=sum;root=0");
  // What a step's own key carries, or what does not change a figure (the
  // size schedule, the check, the timeout), leaves it alone.
  SweepSpec same = base;
  same.max_bytes = 1 << 30;
  same.check = false;
  same.timeout = absl::Seconds(5);
  same.dtype = "half";
  EXPECT_EQ(MeasurementKey(same), MeasurementKey(base));
  // The MoE shape counts only when a MoE op runs.
  SweepSpec moe = edited[6];
  moe.moe.topk = 4;
  EXPECT_NE(MeasurementKey(moe), MeasurementKey(edited[6]));
  SweepSpec plain = base;
  plain.moe.topk = 4;
  EXPECT_EQ(MeasurementKey(plain), MeasurementKey(base));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::core
