#include "daemon/coordinator/request_checks.h"

#include "absl/strings/str_cat.h"

namespace fabricpulse::coordinator {

absl::StatusOr<int> ListSweepsLimit(const v1::ListSweepsRequest& request) {
  const int last = request.last() == 0 ? kDefaultListSweeps : request.last();
  if (last < 1 || last > kMaxListSweeps) {
    return absl::InvalidArgumentError(absl::StrCat(
        "last: ", last, " is out of range; allowed: 1 to ", kMaxListSweeps));
  }
  return last;
}

}  // namespace fabricpulse::coordinator
