// A matrix's flagged pairs confirmed by a second matrix of the same nodes
// (issue 29, item 5: one bad number is a suspect, never a culprit).
#pragma once

#include "client/output/matrix_printer.h"

namespace fabricpulse::client {

// Keeps a pair of `first` flagged only when `second` flagged the same rank
// pair at the same size; clears the others and recounts. Sets
// first.confirmed_by to second's sweep id. Returns the pairs cleared.
int ConfirmFlagged(PairMatrix& first, const PairMatrix& second);

}  // namespace fabricpulse::client
