#include "daemon/coordinator/scheduler.h"

#include "gtest/gtest.h"

namespace fabricpulse::coordinator {
namespace {
namespace FP_UNITY_ID {

absl::Time At(int hour, int minute) {
  return absl::FromCivil(absl::CivilMinute(2026, 11, 30, hour, minute),
                         absl::UTCTimeZone());
}

ScheduleState Every(const char* cron, absl::Time next) {
  ScheduleState s;
  s.schedule.name = cron;
  s.schedule.plan = "quick";
  auto parsed = core::CronSchedule::Parse(cron, "UTC");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  s.schedule.cron = *parsed;
  s.next = next;
  return s;
}

TEST(MarkDueTest, FiresOnceWhenDueAndMovesPastNow) {
  std::vector<ScheduleState> states = {Every("*/5 * * * *", At(2, 5))};
  EXPECT_EQ(MarkDue(states, At(2, 4)), 0);
  EXPECT_FALSE(states[0].pending);
  EXPECT_EQ(MarkDue(states, At(2, 5)), 1);
  EXPECT_TRUE(states[0].pending);
  EXPECT_EQ(states[0].next, At(2, 10));
}

TEST(MarkDueTest, MissedFiringsWhileBusyQueueOnceNotStacked) {
  std::vector<ScheduleState> states = {Every("* * * * *", At(2, 0))};
  EXPECT_EQ(MarkDue(states, At(2, 0)), 1);
  // The members stay busy for an hour: 60 more firings pass, but the
  // schedule is only pending once.
  EXPECT_EQ(MarkDue(states, At(3, 0)), 0);
  EXPECT_TRUE(states[0].pending);
  EXPECT_EQ(states[0].next, At(3, 1));
}

TEST(MarkDueTest, IndependentSchedules) {
  std::vector<ScheduleState> states = {Every("0 * * * *", At(3, 0)),
                                       Every("0 2 * * *", At(2, 0))};
  EXPECT_EQ(MarkDue(states, At(2, 30)), 1);
  EXPECT_FALSE(states[0].pending);
  EXPECT_TRUE(states[1].pending);
  EXPECT_EQ(states[1].next, At(2, 0) + absl::Hours(24));
}

}  // namespace FP_UNITY_ID
}  // namespace
}  // namespace fabricpulse::coordinator
